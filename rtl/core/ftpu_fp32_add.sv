// SPDX-License-Identifier: Apache-2.0
// ftpu_fp32_add: fp32 + fp32, round to nearest even, DAZ inputs, FTZ result,
// canonical NaN (docs/numerics.md).
//
// Classic guard/round/sticky datapath in four steps, each optionally ending
// in a pipeline register (Cuts[i] set: a register after step i+1):
//   1 classify, order the operands by magnitude, exponent difference
//   2 align the smaller one (with a sticky bit), add or subtract
//   3 normalize: one leading-zero shifter, which also covers the carry out;
//     the rounding decision, from the sum's low bits
//   4 round, fix the exponent, pick special results        (combinational)
// Latency is popcount(Cuts) cycles; the caller registers the output.
// Results below the smallest normal are exact (a sum of two fp32 values that
// small is always representable), so flushing them needs no rounding care.
module ftpu_fp32_add #(
  parameter int unsigned Cuts = 32'b000
) (
  input  logic        clk_i,
  input  logic [31:0] x_i,
  input  logic [31:0] y_i,
  output logic [31:0] s_o
);
  if (Cuts == 0) begin : g_combinational
    logic unused_clk;
    assign unused_clk = clk_i;
  end

  // ---- 1: classify and order ---------------------------------------------
  // Exponent 0 is zero or (by DAZ) a subnormal.
  logic x_zero, y_zero, x_inf, y_inf, x_nan, y_nan;
  assign x_zero = (x_i[30:23] == 8'h00);
  assign y_zero = (y_i[30:23] == 8'h00);
  assign x_inf  = (x_i[30:23] == 8'hFF) && (x_i[22:0] == 23'd0);
  assign y_inf  = (y_i[30:23] == 8'hFF) && (y_i[22:0] == 23'd0);
  assign x_nan  = (x_i[30:23] == 8'hFF) && (x_i[22:0] != 23'd0);
  assign y_nan  = (y_i[30:23] == 8'hFF) && (y_i[22:0] != 23'd0);

  // Results that bypass the datapath: NaN, Inf, and two zeros. Carried as a
  // kind and a sign, not as 32 bits, through the pipeline. (Continuous
  // assignments, not one always_comb with two outputs: Verilator inlines
  // these and simulates the array ~25% faster.)
  localparam logic [1:0] SpNone = 2'd0, SpNan = 2'd1, SpInf = 2'd2, SpZero = 2'd3;
  logic [1:0] special1;
  logic       special_sign1, nan1;
  assign nan1          = x_nan || y_nan || (x_inf && y_inf && (x_i[31] != y_i[31]));
  assign special1      = nan1                ? SpNan  :
                         (x_inf || y_inf)    ? SpInf  :
                         (x_zero && y_zero)  ? SpZero : SpNone;
  // Inf keeps its sign; -0 + -0 = -0, any other pair of zeros is +0.
  assign special_sign1 = x_inf ? x_i[31] : y_inf ? y_i[31] : (x_i[31] & y_i[31]);

  // Magnitudes order the operands: big >= small. A DAZ zero needs no
  // masking here: exponent 0 orders it below every normal, and two zeros
  // are a special result.
  logic [30:0] x_mag, y_mag, big_mag, small_mag;
  logic        swap, big_sign1, subtract1;
  logic [7:0]  exp_diff;
  logic [4:0]  shift1;
  assign x_mag     = x_i[30:0];
  assign y_mag     = y_i[30:0];
  assign swap      = (y_mag > x_mag);
  assign big_mag   = swap ? y_mag : x_mag;
  assign small_mag = swap ? x_mag : y_mag;
  assign big_sign1 = swap ? y_i[31] : x_i[31];
  assign subtract1 = x_i[31] ^ y_i[31];
  assign exp_diff  = big_mag[30:23] - small_mag[30:23];
  // Beyond 27 places everything is sticky; 31 keeps the shift in one word.
  // (Bit tests, not comparisons: FPGA tools make a carry chain of those.)
  assign shift1    = (exp_diff[7:5] != 3'd0) ? 5'd31 : exp_diff[4:0];

  // Significands with the hidden bit; only the smaller one can be a zero
  // (its fraction cleared by DAZ) outside the special results.
  logic [23:0] big_sig1, small_sig1;
  logic        small_zero;
  assign small_zero = (small_mag[30:23] == 8'd0);
  assign big_sig1   = {1'b1, big_mag[22:0]};
  assign small_sig1 = small_zero ? 24'd0 : {1'b1, small_mag[22:0]};

  logic [1:0]  special2;
  logic        special_sign2, big_sign2, subtract2;
  logic [7:0]  big_exp2;
  logic [4:0]  shift2;
  logic [23:0] big_sig2, small_sig2;
  if (Cuts[0]) begin : g_cut1
    always_ff @(posedge clk_i) begin
      special2      <= special1;
      special_sign2 <= special_sign1;
      big_sign2     <= big_sign1;
      subtract2     <= subtract1;
      big_exp2      <= big_mag[30:23];
      shift2        <= shift1;
      big_sig2      <= big_sig1;
      small_sig2    <= small_sig1;
    end
  end else begin : g_pass1
    assign special2      = special1;
    assign special_sign2 = special_sign1;
    assign big_sign2     = big_sign1;
    assign subtract2     = subtract1;
    assign big_exp2      = big_mag[30:23];
    assign shift2        = shift1;
    assign big_sig2      = big_sig1;
    assign small_sig2    = small_sig1;
  end

  // ---- 2: align and add ----------------------------------------------------
  // Three bits below the significand: guard, round, sticky.
  // Each shifter level ORs the bits it drops into the sticky bit: cheaper
  // than masking the input by the shift amount. One process with local
  // variables: Verilator keeps the levels in registers instead of storing
  // each in the model, and the array's 256 adders are most of the
  // simulation's time (a demo step ~1.2x faster with this, the
  // normalizer's and the multiplier's; Yosys maps it to the same cells).
  logic [27:0] big_ext, small_aligned, sum2;
  always_comb begin : p_align
    logic [26:0] a4, a3, a2, a1, a0;
    logic        st4, st3, st2, st1, st0;
    a4  = {small_sig2, 3'd0};
    st4 = shift2[4] && (a4[15:0] != 16'd0);
    a3  = shift2[4] ? {16'd0, a4[26:16]} : a4;
    st3 = shift2[3] && (a3[7:0] != 8'd0);
    a2  = shift2[3] ? {8'd0, a3[26:8]} : a3;
    st2 = shift2[2] && (a2[3:0] != 4'd0);
    a1  = shift2[2] ? {4'd0, a2[26:4]} : a2;
    st1 = shift2[1] && (a1[1:0] != 2'd0);
    a0  = shift2[1] ? {2'd0, a1[26:2]} : a1;
    st0 = shift2[0] && a0[0];
    small_aligned = {1'b0, shift2[0] ? {1'b0, a0[26:1]} : a0};
    small_aligned[0] = small_aligned[0] | st4 | st3 | st2 | st1 | st0;
  end
  assign big_ext = {1'b0, big_sig2, 3'd0};
  // |big| >= |small| keeps the difference non-negative; the sum fits 28 bits.
  // One adder for both: big + ~small + 1 is the difference. (Two adders and
  // a mux, as "sub ? a - b : a + b" maps, cost twice the carry chain.)
  assign sum2 = big_ext + (small_aligned ^ {28{subtract2}}) + 28'(subtract2);

  logic [1:0]  special3;
  logic        special_sign3, big_sign3;
  logic [7:0]  big_exp3;
  logic [27:0] sum3;
  if (Cuts[1]) begin : g_cut2
    always_ff @(posedge clk_i) begin
      special3      <= special2;
      special_sign3 <= special_sign2;
      big_sign3     <= big_sign2;
      big_exp3      <= big_exp2;
      sum3          <= sum2;
    end
  end else begin : g_pass2
    assign special3      = special2;
    assign special_sign3 = special_sign2;
    assign big_sign3     = big_sign2;
    assign big_exp3      = big_exp2;
    assign sum3          = sum2;
  end

  // ---- 3: normalize ----------------------------------------------------------
  // Leading one of sum3[27:2] to bit 31: zeros == 0 is a carry out, 1 is
  // already normal. sum3[1:0] need no shifting: a left shift of 2 or more
  // means a cancellation (exponents at most 1 apart), which leaves them 0.
  logic [4:0]  zeros3;
  logic [31:0] norm3;
  ftpu_normalize u_normalize (
    .d_i     ({sum3[27:2], 6'd0}),
    .zeros_o (zeros3),
    .d_o     (norm3)
  );
  logic unused_norm;
  assign unused_norm = ^{norm3[31], norm3[7:0]};

  // Round to nearest, ties to even, decided from the sum itself: the round
  // bit, sticky and last bit sit at fixed places for zeros 0, 1, 2, and are
  // all 0 beyond.
  logic rnd, stk, lsb, round_up3;
  assign rnd = sum3[27] ? sum3[3] : sum3[26] ? sum3[2] : sum3[1];
  assign stk = sum3[27] ? (sum3[2:0] != 3'd0) : sum3[26] ? (sum3[1:0] != 2'd0) : sum3[0];
  assign lsb = sum3[27] ? sum3[4] : sum3[26] ? sum3[3] : sum3[2];
  assign round_up3 = rnd && (stk || lsb);

  logic [1:0]  special4;
  logic        special_sign4, big_sign4, sum_zero4, round_up4;
  logic [7:0]  big_exp4;
  logic [4:0]  zeros4;
  logic [22:0] frac4;
  if (Cuts[2]) begin : g_cut3
    always_ff @(posedge clk_i) begin
      special4      <= special3;
      special_sign4 <= special_sign3;
      big_sign4     <= big_sign3;
      big_exp4      <= big_exp3;
      sum_zero4     <= (sum3[27:2] == 26'd0);
      round_up4     <= round_up3;
      zeros4        <= zeros3;
      frac4         <= norm3[30:8];
    end
  end else begin : g_pass3
    assign special4      = special3;
    assign special_sign4 = special_sign3;
    assign big_sign4     = big_sign3;
    assign big_exp4      = big_exp3;
    assign sum_zero4     = (sum3[27:2] == 26'd0);
    assign round_up4     = round_up3;
    assign zeros4        = zeros3;
    assign frac4         = norm3[30:8];
  end

  // ---- 4: round and pack -----------------------------------------------------
  // Biased exponent before rounding, signed and wide: eb + 1 - zeros.
  logic signed [9:0] exp_out;
  assign exp_out = $signed({2'b00, big_exp4}) + 10'sd1 - $signed({5'd0, zeros4});
  // Rounding adds to exponent and fraction as one word: a carry out of the
  // fraction (all ones) bumps the exponent, and reaching 255 leaves the
  // fraction 0, which is Inf. Sums below the smallest normal are exact
  // (round_up is 0), so the flush test needs no rounding.
  logic [30:0] rounded;
  assign rounded = {exp_out[7:0], frac4} + {30'd0, round_up4};

  // exp_out lies in [-25, 255] (eb in [1, 254], zeros in [0, 26]): its sign
  // bit and its low bits decide both ends without a comparator.
  logic flush4, overflow4;
  assign flush4    = exp_out[9] || (exp_out[8:0] == 9'd0);
  assign overflow4 = !exp_out[9] && (exp_out[8] || exp_out[7:0] == 8'hFF);

  always_comb begin
    if (special4 == SpNan)
      s_o = 32'h7FC0_0000;
    else if (special4 == SpInf)
      s_o = {special_sign4, 8'hFF, 23'd0};
    else if (special4 == SpZero)
      s_o = {special_sign4, 31'd0};
    else if (sum_zero4)
      s_o = 32'd0;                             // x + (-x) = +0
    else if (flush4)
      s_o = {big_sign4, 31'd0};                // FTZ: signed zero
    else if (overflow4)
      s_o = {big_sign4, 8'hFF, 23'd0};
    else
      s_o = {big_sign4, rounded};
  end
endmodule
