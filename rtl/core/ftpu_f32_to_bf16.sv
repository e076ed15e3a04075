// SPDX-License-Identifier: Apache-2.0
// ftpu_f32_to_bf16: fp32 -> bfloat16, the activation unit's output rounding
// (docs/numerics.md; C reference ftpu_f32_to_bf16 in proto/numeric.c).
//
//   NaN                 the top 16 bits with the quiet bit (bit 6) set: the
//                       sign and the top payload bits are kept
//   exponent field 0    zero or subnormal: a zero of the same sign
//   otherwise           round to nearest, ties to even, on the low 16 bits;
//                       a carry out of the fraction bumps the exponent, which
//                       is exactly right up to and including +-Inf
//
// The increment never carries out of bit 15: the largest non-NaN input,
// -Inf (0xFF800000), has low bits zero. Purely combinational.
module ftpu_f32_to_bf16 (
  input  logic [31:0] x_i,
  output logic [15:0] y_o
);
  logic is_nan, is_zero, round_up;
  assign is_nan   = (x_i[30:23] == 8'hFF) && (x_i[22:0] != 23'd0);
  assign is_zero  = (x_i[30:23] == 8'h00);
  // Above half an ulp, or exactly half with an odd last kept bit.
  assign round_up = x_i[15] && ((x_i[14:0] != 15'd0) || x_i[16]);

  always_comb begin
    if (is_nan)
      y_o = x_i[31:16] | 16'h0040;
    else if (is_zero)
      y_o = {x_i[31], 15'd0};
    else
      y_o = x_i[31:16] + {15'd0, round_up};
  end
endmodule
