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
  // One process with local variables: the simulation keeps the levels in
  // registers.
  always_comb begin : p_levels
    logic [31:0] l;
    logic        z4, z3, z2, z1, z0;
    l  = d_i;
    z4 = (l[31:16] == 16'd0);
    l  = l << {z4, 4'd0};
    z3 = (l[31:24] == 8'd0);
    l  = l << {z3, 3'd0};
    z2 = (l[31:28] == 4'd0);
    l  = l << {z2, 2'd0};
    z1 = (l[31:30] == 2'd0);
    l  = l << {z1, 1'b0};
    z0 = ~l[31];
    d_o     = l << z0;
    zeros_o = {z4, z3, z2, z1, z0};
  end
endmodule
