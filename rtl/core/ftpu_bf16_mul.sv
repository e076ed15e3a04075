// SPDX-License-Identifier: Apache-2.0
// ftpu_bf16_mul: bfloat16 x bfloat16 -> fp32, exact (docs/numerics.md).
//
// The 8x8-bit significand product has at most 16 significant bits, so it is
// exact in fp32 whenever its exponent is in range: no rounding logic at all.
// Subnormal inputs count as signed zeros (DAZ); a product below the smallest
// normal becomes a signed zero (FTZ), one beyond the fp32 range +-Inf; every
// NaN result is the canonical 0x7FC00000. Purely combinational.
//
// One process with local variables: the simulated array evaluates 256 of
// these every cycle, and Verilator keeps locals in registers where it
// stores every continuously assigned signal in the model.
module ftpu_bf16_mul (
  input  logic [15:0] a_i,
  input  logic [15:0] b_i,
  output logic [31:0] p_o
);
  always_comb begin : p_mul
    logic       a_sign, b_sign, p_sign;
    logic [7:0] a_exp, b_exp;
    logic [6:0] a_frac, b_frac;
    logic       a_zero, b_zero, a_inf, b_inf, a_nan, b_nan;
    logic [15:0] sig;
    logic        carry;
    logic [9:0]  exp_sum;        // a_exp + b_exp, without the carry
    logic        underflow, overflow;
    logic [7:0]  p_exp;
    logic [22:0] p_frac;

    {a_sign, a_exp, a_frac} = a_i;
    {b_sign, b_exp, b_frac} = b_i;
    p_sign = a_sign ^ b_sign;

    // Operand classes; exponent 0 is zero or (by DAZ) a subnormal.
    a_zero = (a_exp == 8'h00);
    b_zero = (b_exp == 8'h00);
    a_inf  = (a_exp == 8'hFF) && (a_frac == 7'd0);
    b_inf  = (b_exp == 8'hFF) && (b_frac == 7'd0);
    a_nan  = (a_exp == 8'hFF) && (a_frac != 7'd0);
    b_nan  = (b_exp == 8'hFF) && (b_frac != 7'd0);

    // 1.f x 1.f lies in [1, 4): bit 15 says whether it reached 2.
    sig   = {1'b1, a_frac} * {1'b1, b_frac};
    carry = sig[15];

    // Biased result exponent plus 127, kept wide enough for both range
    // ends: exp_sum + carry - 127 is the result's biased exponent. The
    // carry comes last, out of the multiplier (a DSP on the FPGAs), so it
    // only chooses between the two outcomes, computed beside the product.
    exp_sum   = {2'b00, a_exp} + {2'b00, b_exp};
    underflow = carry ? (exp_sum <= 10'd126) : (exp_sum <= 10'd127);  // biased exponent <= 0
    overflow  = carry ? (exp_sum >= 10'd381) : (exp_sum >= 10'd382);  // biased exponent >= 255
    p_exp     = carry ? 8'(exp_sum - 10'd126) : 8'(exp_sum - 10'd127);
    p_frac    = carry ? {sig[14:0], 8'd0} : {sig[13:0], 9'd0};

    if (a_nan || b_nan || (a_inf && b_zero) || (b_inf && a_zero))
      p_o = 32'h7FC0_0000;
    else if (a_inf || b_inf || overflow)
      p_o = {p_sign, 8'hFF, 23'd0};
    else if (a_zero || b_zero || underflow)
      p_o = {p_sign, 31'd0};
    else
      p_o = {p_sign, p_exp, p_frac};
  end
endmodule
