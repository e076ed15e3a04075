// SPDX-License-Identifier: Apache-2.0
// ftpu_normalize: count the leading zeros of a 32-bit word and shift them out.
//
// A five-level binary search: each level tests the top half of what is left
// and shifts by 16, 8, 4, 2, 1. The shifted word comes for free, which is the
// normalization an adder needs. The mux tree is short both in LUTs and in
// the generated simulation code. A zero input reports 31 (callers exclude it).
module ftpu_normalize (
  input  logic [31:0] d_i,
  output logic [4:0]  zeros_o,
  output logic [31:0] d_o
);
  // One bit per level: a vector assigned bit by bit would look circular.
  logic        z4, z3, z2, z1, z0;
  logic [31:0] l4, l3, l2, l1;
  assign z4      = (d_i[31:16] == 16'd0);
  assign l4      = z4 ? {d_i[15:0], 16'd0} : d_i;
  assign z3      = (l4[31:24] == 8'd0);
  assign l3      = z3 ? {l4[23:0], 8'd0} : l4;
  assign z2      = (l3[31:28] == 4'd0);
  assign l2      = z2 ? {l3[27:0], 4'd0} : l3;
  assign z1      = (l2[31:30] == 2'd0);
  assign l1      = z1 ? {l2[29:0], 2'd0} : l2;
  assign z0      = ~l1[31];
  assign d_o     = z0 ? {l1[30:0], 1'b0} : l1;
  assign zeros_o = {z4, z3, z2, z1, z0};
endmodule
