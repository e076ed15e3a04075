// SPDX-License-Identifier: Apache-2.0
// ftpu_icebreaker_tb: the iCEBreaker top as the simulator drives it
// (sim/board_shim.cpp): the oscillator pin is the model's clock (the PLL is
// bypassed under Verilator), the button is rst_ni, and the red LED, the
// device's busy signal, comes out as busy_o. Only pins cross this wrapper.
module ftpu_icebreaker_tb #(
  // defaults: spec/ftpu.toml [device.icebreaker] (the hardware's part)
  parameter int          N       = ftpu_pkg::ICEBREAKER_N,
  parameter int unsigned AddCuts = ftpu_pkg::ICEBREAKER_AddCuts,
  parameter int          ColSkew = ftpu_pkg::ICEBREAKER_ColSkew,
  parameter int unsigned ClockHz = ftpu_pkg::ICEBREAKER_ClockHz,
  parameter int unsigned Baud    = ftpu_pkg::ICEBREAKER_Baud
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
    .N(N), .AddCuts(AddCuts), .ColSkew(ColSkew), .ClockHz(ClockHz), .Baud(Baud)
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
