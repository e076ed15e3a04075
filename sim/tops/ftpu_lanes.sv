// SPDX-License-Identifier: Apache-2.0
// ftpu_lanes: Lanes copies of one numeric unit side by side, so that one
// model evaluation checks Lanes input vectors (test harness only). The adder
// is pipelined by AddCuts (see ftpu_fp32_add): results of units 1, 2 and 3
// appear popcount(AddCuts) clock edges after their inputs.
//   Unit 0: r = bf16_mul(x[15:0], y[15:0])
//   Unit 1: r = fp32_add(x, y)
//   Unit 2: r = fp32_add(x, bf16_mul(y[15:0], z[15:0]))   (one PE step)
//   Unit 3: r = {16'd0, activate(acc = x, bias = y, relu = z[0])}
//   Unit 4: r = {16'd0, f32_to_bf16(x)}                    (combinational)
//   Unit 5: r = fp32_mul(x, y), the vector unit's multiplier (combinational)
module ftpu_lanes #(
  parameter int Unit  = 0,
  parameter int Lanes = 64,
  parameter int unsigned AddCuts = 32'b111
) (
  input  logic                clk_i,
  input  logic [Lanes*32-1:0] x_i,
  input  logic [Lanes*32-1:0] y_i,
  input  logic [Lanes*32-1:0] z_i,
  output logic [Lanes*32-1:0] r_o
);
  for (genvar l = 0; l < Lanes; l++) begin : g_lane
    logic [31:0] x, y, z;
    assign x = x_i[l*32 +: 32];
    assign y = y_i[l*32 +: 32];
    assign z = z_i[l*32 +: 32];
    if (Unit == 0) begin : g_mul
      ftpu_bf16_mul u_mul (.a_i(x[15:0]), .b_i(y[15:0]), .p_o(r_o[l*32 +: 32]));
    end else if (Unit == 1) begin : g_add
      ftpu_fp32_add #(.Cuts(AddCuts)) u_add (
        .clk_i, .x_i(x), .y_i(y), .s_o(r_o[l*32 +: 32]));
    end else if (Unit == 2) begin : g_mac
      logic [31:0] prod;
      ftpu_bf16_mul u_mul (.a_i(y[15:0]), .b_i(z[15:0]), .p_o(prod));
      ftpu_fp32_add #(.Cuts(AddCuts)) u_add (
        .clk_i, .x_i(x), .y_i(prod), .s_o(r_o[l*32 +: 32]));
    end else if (Unit == 3) begin : g_act
      ftpu_activate #(.AddCuts(AddCuts)) u_act (
        .clk_i, .acc_i(x), .bias_i(y), .relu_i(z[0]), .y_o(r_o[l*32 +: 16]));
      assign r_o[l*32+16 +: 16] = 16'd0;
    end else if (Unit == 5) begin : g_fp32_mul
      ftpu_fp32_mul u_fmul (.x_i(x), .y_i(y), .p_o(r_o[l*32 +: 32]));
    end else begin : g_to_bf16
      ftpu_f32_to_bf16 u_to_bf16 (.x_i(x), .y_o(r_o[l*32 +: 16]));
      assign r_o[l*32+16 +: 16] = 16'd0;
    end
    // Each unit reads only some of the operand bits.
    logic unused;
    assign unused = ^{x, y, z, clk_i};
  end
endmodule
