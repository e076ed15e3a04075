// SPDX-License-Identifier: Apache-2.0
// ftpu_phy_uart_tb: ftpu_phy_uart for its tests (test harness only). The
// byte ports are the PHY's; with loop_i high the received bytes go
// straight back out (out_* feeds in_*: a device that echoes), and the
// outer byte ports are idle (out_valid_o low, in_ready_o low).
module ftpu_phy_uart_tb #(
  parameter int unsigned ClockHz   = 12000000,
  parameter int unsigned Baud      = 3000000,
  parameter int          FifoDepth = 8
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        loop_i,
  input  logic        uart_rx_i,
  output logic        uart_tx_o,
  output logic        out_valid_o,
  input  logic        out_ready_i,
  output logic [7:0]  out_data_o,
  input  logic        in_valid_i,
  output logic        in_ready_o,
  input  logic [7:0]  in_data_i,
  output logic        frame_err_o,
  output logic        break_o,
  output logic        overrun_o,
  output logic [15:0] frame_errs_o,
  output logic [15:0] overruns_o
);
  logic       out_valid, out_ready, in_valid, in_ready;
  logic [7:0] out_data, in_data;

  ftpu_phy_uart #(.ClockHz(ClockHz), .Baud(Baud), .FifoDepth(FifoDepth), .CntW(16)) u_phy (
    .clk_i,
    .rst_ni,
    .uart_rx_i,
    .uart_tx_o,
    .out_valid_o(out_valid),
    .out_ready_i(out_ready),
    .out_data_o (out_data),
    .in_valid_i (in_valid),
    .in_ready_o (in_ready),
    .in_data_i  (in_data),
    .frame_err_o,
    .break_o,
    .overrun_o,
    .frame_errs_o,
    .overruns_o
  );

  assign out_ready   = loop_i ? in_ready : out_ready_i;
  assign in_valid    = loop_i ? out_valid : in_valid_i;
  assign in_data     = loop_i ? out_data : in_data_i;
  assign out_valid_o = !loop_i && out_valid;
  assign out_data_o  = out_data;
  assign in_ready_o  = !loop_i && in_ready;
endmodule
