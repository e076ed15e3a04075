// SPDX-License-Identifier: Apache-2.0
// ftpu_icebreaker_tb: the iCEBreaker top as the simulator drives it
// (sim/board_shim.cpp): the oscillator pin is the model's clock (the PLL is
// bypassed under Verilator), the button is rst_ni, and the red LED, the
// device's busy signal, comes out as busy_o. Only pins cross this wrapper.
module ftpu_icebreaker_tb #(
  parameter int          N           = 2,
  parameter int unsigned AddCuts     = 7,
  parameter int          InFlight    = 8,
  parameter int          UbVectors   = 512,
  parameter int          WmRows      = 512,
  parameter int          AccVectors  = 256,
  parameter int          BiasVectors = 16,
  parameter int          IqWords     = 1024,
  parameter int unsigned ClockHz     = 24000000,
  parameter int unsigned Baud        = 3000000
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic uart_rx_i,
  output logic uart_tx_o,
  output logic busy_o
);
  logic led_red_n;
  /* verilator lint_off UNUSEDSIGNAL */
  logic led_green_n;
  /* verilator lint_on UNUSEDSIGNAL */

  ftpu_icebreaker #(
    .N(N), .AddCuts(AddCuts), .InFlight(InFlight), .UbVectors(UbVectors),
    .WmRows(WmRows), .AccVectors(AccVectors), .BiasVectors(BiasVectors),
    .IqWords(IqWords), .ClockHz(ClockHz), .Baud(Baud)
  ) u_board (
    .clk_12mhz_i  (clk_i),
    .uart_rx_i,
    .uart_tx_o,
    .btn_ni       (rst_ni),
    .led_red_no   (led_red_n),
    .led_green_no (led_green_n)
  );

  assign busy_o = !led_red_n;
endmodule
