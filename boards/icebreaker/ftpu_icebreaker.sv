// SPDX-License-Identifier: Apache-2.0
// ftpu_icebreaker: the soft device on an iCEBreaker (iCE40UP5K-SG48). The
// UP5K's 5280 logic cells do not hold the hardware device (ftpu_top, about
// twice that: docs/boards.md), so the device is firmware on the control
// core with the systolic array as its peripheral (ftpu_soc,
// docs/soft_device.md): the firmware's ROM is block RAM, its RAM (and the
// device's memories) the UP5K's SPRAM.
//
// The 12 MHz oscillator feeds the PLL (21 MHz: what the core meets on the
// UP5K with a margin, docs/soft_device.md); the host link is the FT2232H's
// channel B as a UART at Baud (3 Mbaud: 7 clocks per bit). LEDs: red = busy (the firmware has work or bytes wait), green = a
// byte on the line either way. The button (BTN_N) resets the device.
//
// Under Verilator (no SYNTHESIS define) the PLL is bypassed: the model's
// clock is the device clock, ClockHz by definition, and the simulated host
// serializes at ClockHz / Baud clocks per bit (sim/board_shim.cpp).
module ftpu_icebreaker #(
  // defaults: spec/ftpu.toml [device.icebreaker]; the memories' sizes and
  // the receive buffer are the firmware's (FTPU_DEV_ICEBREAKER_*, the same
  // spec), not parameters of the hardware
  parameter int          N       = ftpu_pkg::ICEBREAKER_N,
  parameter int unsigned AddCuts = ftpu_pkg::ICEBREAKER_AddCuts,
  parameter int          ColSkew = ftpu_pkg::ICEBREAKER_ColSkew,
  parameter int unsigned ClockHz = ftpu_pkg::ICEBREAKER_ClockHz,
  parameter int unsigned Baud    = ftpu_pkg::ICEBREAKER_Baud
) (
  input  logic clk_12mhz_i,
  input  logic uart_rx_i,
  output logic uart_tx_o,
  input  logic btn_ni,
  output logic led_red_no,
  output logic led_green_no
);
  logic clk, locked, rst_n;

`ifdef SYNTHESIS
  // 12 MHz * (DIVF + 1) / 2^DIVQ = 12 * 56 / 32 = 21 MHz (VCO 672 MHz, in
  // its 533..1066 MHz; the reference 12 MHz, in 10..133 MHz).
  SB_PLL40_PAD #(
    .FEEDBACK_PATH ("SIMPLE"),
    .DIVR          (4'd0),
    .DIVF          (7'd55),
    .DIVQ          (3'd5),
    .FILTER_RANGE  (3'd1)
  ) u_pll (
    .PACKAGEPIN   (clk_12mhz_i),
    .PLLOUTGLOBAL (clk),
    .RESETB       (1'b1),
    .BYPASS       (1'b0),
    .LOCK         (locked)
  );
`else
  assign clk    = clk_12mhz_i;
  assign locked = 1'b1;
`endif

  ftpu_board_reset u_reset (
    .clk_i    (clk),
    .locked_i (locked),
    .btn_ni,
    .rst_no   (rst_n)
  );

  logic busy, rx_byte, tx_byte;
  ftpu_soc #(
    .N(N), .AddCuts(AddCuts), .ColSkew(ColSkew), .ClockHz(ClockHz), .Baud(Baud)
  ) u_soc (
    .clk_i    (clk),
    .rst_ni   (rst_n),
    .uart_rx_i,
    .uart_tx_o,
    .busy_o   (busy),
    .rx_byte_o(rx_byte),
    .tx_byte_o(tx_byte)
  );

  // One stretched activity LED for both directions (a second stretch
  // counter would cost the UP5K's scarce logic cells).
  logic [3:0] leds;  // {line error, -, activity, busy}
  /* verilator lint_off UNUSEDSIGNAL */
  logic [1:0] unused_leds;
  /* verilator lint_on UNUSEDSIGNAL */
  assign unused_leds = {leds[3], leds[2]};
  ftpu_board_leds #(.ClockHz(ClockHz)) u_leds (
    .clk_i     (clk),
    .rst_ni    (rst_n),
    .busy_i    (busy),
    .rx_i      (rx_byte || tx_byte),
    .tx_i      (1'b0),
    .line_err_i(1'b0),
    .led_o     (leds)
  );

  // The LEDs are active low. The red one is busy as is (not stretched): the
  // simulated host reads it as the device's idle.
  assign led_red_no   = !leds[0];
  assign led_green_no = !leds[1];
endmodule
