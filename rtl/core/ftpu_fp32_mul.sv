// SPDX-License-Identifier: Apache-2.0
// ftpu_fp32_mul: fp32 x fp32, the vector unit's multiplier (docs/numerics.md,
// Vector operations; C reference ftpu_ref_fmul in proto/numeric.c):
//
//   DAZ inputs (exponent field 0 is zero), round to nearest even, a result
//   whose rounded value (24-bit significand, unbounded exponent) is below
//   2^-126 is a zero of its sign ("tiny after rounding"), overflow to +-Inf,
//   any NaN (or Inf x 0) the canonical 0x7FC00000.
//
// The 24x24 product is in [2^46, 2^48): one normalization step of one bit,
// so the rounding position is one of two; a carry out of the rounding
// bumps the exponent (significand all ones). Purely combinational.
module ftpu_fp32_mul (
  input  logic [31:0] x_i,
  input  logic [31:0] y_i,
  output logic [31:0] p_o
);
  logic x_zero, y_zero, x_inf, y_inf, x_nan, y_nan, sign;
  assign x_zero = (x_i[30:23] == 8'h00);
  assign y_zero = (y_i[30:23] == 8'h00);
  assign x_inf  = (x_i[30:23] == 8'hFF) && (x_i[22:0] == 23'd0);
  assign y_inf  = (y_i[30:23] == 8'hFF) && (y_i[22:0] == 23'd0);
  assign x_nan  = (x_i[30:23] == 8'hFF) && (x_i[22:0] != 23'd0);
  assign y_nan  = (y_i[30:23] == 8'hFF) && (y_i[22:0] != 23'd0);
  assign sign   = x_i[31] ^ y_i[31];

  logic [47:0] prod;
  assign prod = {24'd0, 1'b1, x_i[22:0]} * {24'd0, 1'b1, y_i[22:0]};

  // Fraction (below the leading one), round bit and sticky.
  logic        top;
  logic [22:0] frac;
  logic        rnd, stk, round_up;
  assign top      = prod[47];
  assign frac     = top ? prod[46:24] : prod[45:23];
  assign rnd      = top ? prod[23] : prod[22];
  assign stk      = top ? (prod[22:0] != 23'd0) : (prod[21:0] != 22'd0);
  assign round_up = rnd && (stk || frac[0]);

  // Biased exponent ex + ey - 127 (+1 for a product >= 2); rounding adds to
  // exponent and fraction as one word, so a carry out of an all-ones
  // fraction bumps the exponent, exactly as rounding with an unbounded
  // exponent does: the tiny test comes after it.
  logic signed [10:0] exp_pre, exp_r;
  logic [22:0]        frac_r;
  assign exp_pre = $signed({3'd0, x_i[30:23]}) + $signed({3'd0, y_i[30:23]}) - 11'sd127 +
                   $signed({10'd0, top});
  assign {exp_r, frac_r} = {exp_pre, frac} + {33'd0, round_up};

  always_comb begin
    if (x_nan || y_nan || (x_inf && y_zero) || (y_inf && x_zero))
      p_o = 32'h7FC0_0000;
    else if (x_inf || y_inf)
      p_o = {sign, 8'hFF, 23'd0};
    else if (x_zero || y_zero)
      p_o = {sign, 31'd0};
    else if (exp_r >= 11'sd255)
      p_o = {sign, 8'hFF, 23'd0};
    else if (exp_r <= 11'sd0)
      p_o = {sign, 31'd0};                       // tiny after rounding
    else
      p_o = {sign, exp_r[7:0], frac_r};
  end
endmodule
