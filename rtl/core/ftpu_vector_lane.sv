// SPDX-License-Identifier: Apache-2.0
// ftpu_vector_lane: one fp32 element of a VADD..VSEED instruction
// (docs/vector.md; C reference: proto/numeric.h, as model/ref_device.c's
// exec_vector applies it):
//
//   VADD  add(x, y)            VMAX  max(x, y)
//   VSUB  add(x, -y)           VSEL  canon(z > 0 ? x : y)
//   VMUL  fmul(x, y)           VSEED canon(y - (x >> half))
//   VMAC  add(fmul(x, y), z)   (two roundings)
//
// Step 1 multiplies and computes the integer results, and ends in a
// register; step 2 is the adder (AddCuts as the PE's), whose output is the
// result: Latency = 1 + popcount(AddCuts) clocks from operands to r_o,
// which the caller writes (the adder's output is not registered here).
module ftpu_vector_lane #(
  parameter int unsigned AddCuts = 0,
  localparam int Latency = 1 + ftpu_pkg::add_latency(AddCuts)
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [2:0]  op_i,    // the opcode's low bits: VADD 0 .. VSEED 6
  input  logic        half_i,  // VSEED's HALF flag
  input  logic [31:0] x_i,
  input  logic [31:0] y_i,
  input  logic [31:0] z_i,
  output logic [31:0] r_o
);
  localparam logic [2:0] LVadd = 3'(ftpu_pkg::OP_VADD), LVsub = 3'(ftpu_pkg::OP_VSUB);
  localparam logic [2:0] LVmul = 3'(ftpu_pkg::OP_VMUL), LVmac = 3'(ftpu_pkg::OP_VMAC);
  localparam logic [2:0] LVmax = 3'(ftpu_pkg::OP_VMAX), LVsel = 3'(ftpu_pkg::OP_VSEL);
  localparam logic [31:0] QNan = 32'h7FC0_0000;

  function automatic logic is_nan(input logic [30:0] v);
    is_nan = v[30:23] == 8'hFF && v[22:0] != 23'd0;
  endfunction
  // A subnormal passes as a zero of its sign, a NaN as the canonical one.
  function automatic logic [31:0] canon(input logic [31:0] v);
    if (is_nan(v[30:0]))         canon = QNan;
    else if (v[30:23] == 8'h00)  canon = {v[31], 31'd0};
    else                         canon = v;
  endfunction
  // Canonical non-NaN values ordered as unsigned integers; -0 below +0.
  function automatic logic [31:0] order_key(input logic [31:0] v);
    order_key = v[31] ? ~v : {1'b1, v[30:0]};
  endfunction

  // ---- step 1 ------------------------------------------------------------------
  logic [31:0] prod, xc, yc, vmax, vsel, vseed, direct;
  ftpu_fp32_mul u_mul (.x_i, .y_i, .p_o(prod));
  assign xc    = canon(x_i);
  assign yc    = canon(y_i);
  assign vmax  = (xc == QNan || yc == QNan) ? QNan :
                 (order_key(xc) >= order_key(yc)) ? xc : yc;
  assign vsel  = canon((!z_i[31] && z_i[30:23] != 8'h00 && !is_nan(z_i[30:0])) ? x_i : y_i);
  assign vseed = canon(y_i - (half_i ? {1'b0, x_i[31:1]} : x_i));
  always_comb begin
    unique case (op_i)
      LVmul:   direct = prod;
      LVmax:   direct = vmax;
      LVsel:   direct = vsel;
      default: direct = vseed;
    endcase
  end

  logic        use_add_q;
  logic [31:0] add_x_q, add_y_q, direct_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      use_add_q <= 1'b0;
      add_x_q   <= '0;
      add_y_q   <= '0;
      direct_q  <= '0;
    end else begin
      use_add_q <= op_i == LVadd || op_i == LVsub || op_i == LVmac;
      add_x_q   <= (op_i == LVmac) ? prod : x_i;
      add_y_q   <= (op_i == LVmac) ? z_i : (op_i == LVsub) ? {~y_i[31], y_i[30:0]} : y_i;
      direct_q  <= direct;
    end
  end

  // ---- step 2 ------------------------------------------------------------------
  logic [31:0] sum, direct_d;
  logic        use_add_d;
  ftpu_fp32_add #(.Cuts(AddCuts)) u_add (.clk_i, .x_i(add_x_q), .y_i(add_y_q), .s_o(sum));
  ftpu_delay #(.Width(33), .Depth(Latency - 1)) u_direct (
    .clk_i, .rst_ni, .d_i({use_add_q, direct_q}), .q_o({use_add_d, direct_d}));
  assign r_o = use_add_d ? sum : direct_d;
endmodule
