// SPDX-License-Identifier: Apache-2.0
// ftpu_pe: one processing element of the weight-stationary systolic array.
//
// Holds two weights (the tile in use and the one being loaded); each
// activation carries the select bit of the weight it multiplies, so tiles
// switch per datum with no bubble. The exact bf16 product is registered,
// then added to the partial sum from above in RowDelay cycles:
//
//   cycle t:              act_q (from the left) -> prod_q = act_q * w[sel_q]
//   cycle t+1:            prod_q and psum_i (from the PE above) enter the adder
//   cycle t+1+RowDelay:   psum_q = psum_i + prod_q
//
// where RowDelay = 1 + popcount(AddCuts). The PE below needs this sum one
// cycle after its own act_q, so its activation must arrive RowDelay cycles
// after ours: the array's input skew is RowDelay cycles per row.
//
// Without ActReg, act_q and sel_q are the inputs themselves: the array then
// registers each row's activation once for all its columns (ColSkew 0),
// which on the small FPGAs saves a flip-flop and the LUT it occupies per bit.
module ftpu_pe #(
  // Pipeline registers inside the fp32 adder (ftpu_fp32_add, a 3-bit
  // mask); the default cuts it into four steps so that the iCE40UP5K meets
  // its clock target (docs/synth.md).
  parameter int unsigned AddCuts = 32'b111,
  parameter bit          ActReg  = 1'b1
) (
  input  logic        clk_i,
  // activation from the left, passed on to the right one cycle later (the
  // same cycle without ActReg)
  input  logic [15:0] act_i,
  input  logic        sel_i,
  output logic [15:0] act_o,
  output logic        sel_o,
  // partial sum from above, passed down
  input  logic [31:0] psum_i,
  output logic [31:0] psum_o,
  // weight write into buffer w_buf_i (decoded per PE by the array)
  input  logic        w_en_i,
  input  logic        w_buf_i,
  input  logic [15:0] w_data_i
);
  logic [15:0] act_q, w0_q, w1_q;
  logic        sel_q;
  logic [31:0] prod_d, prod_q, psum_d, psum_q;

  if (ActReg) begin : g_act_reg
    always_ff @(posedge clk_i) begin
      act_q <= act_i;
      sel_q <= sel_i;
    end
  end else begin : g_act_wire
    assign act_q = act_i;
    assign sel_q = sel_i;
  end

  always_ff @(posedge clk_i) begin
    if (w_en_i && !w_buf_i) w0_q <= w_data_i;
    if (w_en_i &&  w_buf_i) w1_q <= w_data_i;
  end

  ftpu_bf16_mul u_mul (
    .a_i (act_q),
    .b_i (sel_q ? w1_q : w0_q),
    .p_o (prod_d)
  );

  ftpu_fp32_add #(.Cuts(AddCuts)) u_add (
    .clk_i,
    .x_i (psum_i),
    .y_i (prod_q),
    .s_o (psum_d)
  );

  always_ff @(posedge clk_i) begin
    prod_q <= prod_d;
    psum_q <= psum_d;
  end

  assign act_o  = act_q;
  assign sel_o  = sel_q;
  assign psum_o = psum_q;
endmodule
