// SPDX-License-Identifier: Apache-2.0
// ftpu_fp32_add: fp32 + fp32, round to nearest even, DAZ inputs, FTZ result,
// canonical NaN (docs/numerics.md). Purely combinational; the PE registers it.
//
// Classic guard/round/sticky datapath: order the operands by magnitude,
// align the smaller one with a sticky bit, add or subtract, normalize with
// one leading-zero shifter (which also covers the carry case), round.
// Results below the smallest normal are exact (a sum of two fp32 values that
// small is always representable), so flushing them needs no rounding care.
module ftpu_fp32_add (
  input  logic [31:0] x_i,
  input  logic [31:0] y_i,
  output logic [31:0] s_o
);
  // Operand classes; exponent 0 is zero or (by DAZ) a subnormal.
  logic x_zero, y_zero, x_inf, y_inf, x_nan, y_nan;
  assign x_zero = (x_i[30:23] == 8'h00);
  assign y_zero = (y_i[30:23] == 8'h00);
  assign x_inf  = (x_i[30:23] == 8'hFF) && (x_i[22:0] == 23'd0);
  assign y_inf  = (y_i[30:23] == 8'hFF) && (y_i[22:0] == 23'd0);
  assign x_nan  = (x_i[30:23] == 8'hFF) && (x_i[22:0] != 23'd0);
  assign y_nan  = (y_i[30:23] == 8'hFF) && (y_i[22:0] != 23'd0);

  // Magnitudes (a DAZ zero has magnitude 0) order the operands: big >= small.
  logic [30:0] x_mag, y_mag, big_mag, small_mag;
  logic        swap, big_sign, small_sign;
  assign x_mag      = x_zero ? 31'd0 : x_i[30:0];
  assign y_mag      = y_zero ? 31'd0 : y_i[30:0];
  assign swap       = (y_mag > x_mag);
  assign big_mag    = swap ? y_mag : x_mag;
  assign small_mag  = swap ? x_mag : y_mag;
  assign big_sign   = swap ? y_i[31] : x_i[31];
  assign small_sign = swap ? x_i[31] : y_i[31];

  // Significands with the hidden bit and three bits below: guard, round, sticky.
  logic [7:0]  big_exp, small_exp, exp_diff;
  logic [4:0]  shift;
  logic [31:0] big_ext, small_ext, small_shifted, small_aligned;
  logic        sticky;
  assign big_exp   = big_mag[30:23];
  assign small_exp = small_mag[30:23];
  assign big_ext   = {5'd0, (big_exp != 8'd0), big_mag[22:0], 3'd0};
  assign small_ext = {5'd0, (small_exp != 8'd0), small_mag[22:0], 3'd0};
  assign exp_diff  = big_exp - small_exp;
  // Beyond 27 places everything is sticky; 31 keeps the shift in one word.
  assign shift         = (exp_diff > 8'd31) ? 5'd31 : exp_diff[4:0];
  assign small_shifted = small_ext >> shift;
  assign sticky        = (small_ext & ~(32'hFFFF_FFFF << shift)) != 32'd0;
  assign small_aligned = {small_shifted[31:1], small_shifted[0] | sticky};

  // |big| >= |small| keeps the difference non-negative; the sum fits 28 bits.
  logic        subtract;
  logic [31:0] sum;
  assign subtract = big_sign ^ small_sign;
  assign sum      = subtract ? big_ext - small_aligned : big_ext + small_aligned;

  // Leading one to bit 31: zeros == 0 is a carry out, 1 is already normal.
  logic [4:0]  zeros;
  logic [31:0] norm;
  ftpu_normalize u_normalize (
    .d_i     ({sum[27:0], 4'd0}),
    .zeros_o (zeros),
    .d_o     (norm)
  );

  // Round to nearest, ties to even, on the 24 bits below the leading one.
  logic        round_up;
  logic [24:0] rounded;
  assign round_up = norm[7] && ((norm[6:0] != 7'd0) || norm[8]);
  assign rounded  = {1'b0, norm[31:8]} + {24'd0, round_up};
  // rounded[23] is the hidden bit; after a carry (rounded[24]) the fraction
  // bits are all zero, so rounded[22:0] is the fraction either way.
  logic unused_hidden;
  assign unused_hidden = rounded[23];

  // Biased exponent, signed and wide: eb + 1 - zeros, +1 if rounding carried.
  logic signed [9:0] exp_out;
  assign exp_out = $signed({2'b00, big_exp}) + 10'sd1 - $signed({5'd0, zeros})
                 + $signed({9'd0, rounded[24]});

  always_comb begin
    if (x_nan || y_nan || (x_inf && y_inf && (x_i[31] != y_i[31])))
      s_o = 32'h7FC0_0000;
    else if (x_inf)
      s_o = {x_i[31], 8'hFF, 23'd0};
    else if (y_inf)
      s_o = {y_i[31], 8'hFF, 23'd0};
    else if (x_zero && y_zero)
      s_o = {x_i[31] & y_i[31], 31'd0};        // -0 + -0 = -0, else +0
    else if (sum == 32'd0)
      s_o = 32'd0;                             // x + (-x) = +0
    else if (exp_out <= 10'sd0)
      s_o = {big_sign, 31'd0};                 // FTZ: signed zero
    else if (exp_out >= 10'sd255)
      s_o = {big_sign, 8'hFF, 23'd0};
    else
      s_o = {big_sign, exp_out[7:0], rounded[22:0]};
  end
endmodule
