// SPDX-License-Identifier: Apache-2.0
// ftpu_activate: one lane of the activation unit's datapath
// (docs/activation.md, docs/numerics.md):
//
//   y = bf16( relu ? ReLU(acc + bias) : (acc + bias) )
//
// The bias add is the PE's fp32 adder (ftpu_fp32_add: RNE, DAZ, FTZ,
// canonical NaN 0x7FC00000); "no bias" is bias = -0, which leaves every
// value unchanged except that a NaN becomes canonical and a DAZ subnormal a
// signed zero. ReLU(x) is x when x > 0, NaN when x is NaN, +0 otherwise (so
// ReLU(-0) = +0). The conversion rounds to nearest even (ftpu_f32_to_bf16).
//
// Latency: popcount(AddCuts[2:0]) clocks from acc/bias/relu to y (relu is
// delayed alongside the adder's pipeline); with AddCuts = 0 the lane is
// combinational. ReLU and the conversion follow the adder's last,
// combinational step without a register; the caller registers y if needed.
module ftpu_activate #(
  // Pipeline registers inside the fp32 adder (a 3-bit mask, see
  // ftpu_fp32_add); the default is the PE's.
  parameter int unsigned AddCuts = 32'b111
) (
  input  logic        clk_i,
  input  logic [31:0] acc_i,
  input  logic [31:0] bias_i,
  input  logic        relu_i,
  output logic [15:0] y_o
);
  localparam int Latency = ftpu_pkg::add_latency(AddCuts);

  logic [31:0] sum;
  ftpu_fp32_add #(.Cuts(AddCuts)) u_add (
    .clk_i,
    .x_i (acc_i),
    .y_i (bias_i),
    .s_o (sum)
  );

  // relu travels with its operands through the adder's pipeline.
  logic relu;
  if (Latency == 0) begin : g_relu_wire
    assign relu = relu_i;
  end else if (Latency == 1) begin : g_relu_one
    logic relu_q;
    always_ff @(posedge clk_i) relu_q <= relu_i;
    assign relu = relu_q;
  end else begin : g_relu_chain
    logic [Latency-1:0] relu_q;
    always_ff @(posedge clk_i) relu_q <= {relu_q[Latency-2:0], relu_i};
    assign relu = relu_q[Latency-1];
  end

  // The adder's result is +-Inf, a signed zero, a normal (never subnormal)
  // or the canonical NaN 0x7FC00000, whose sign is clear: so "sign clear and
  // nonzero" is sum > 0 or NaN, exactly what ReLU passes.
  logic pass;
  logic [31:0] act;
  assign pass = !sum[31] && (sum[30:0] != 31'd0);
  assign act  = (relu && !pass) ? 32'd0 : sum;

  ftpu_f32_to_bf16 u_to_bf16 (
    .x_i (act),
    .y_o (y_o)
  );
endmodule
