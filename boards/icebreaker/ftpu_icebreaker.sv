// SPDX-License-Identifier: Apache-2.0
// ftpu_icebreaker: the device on an iCEBreaker (iCE40UP5K-SG48). The 12 MHz
// oscillator feeds the PLL (24 MHz, icepll -i 12 -o 24); the host link is
// the FT2232H's channel B as a UART at Baud (3 Mbaud: 8 clocks per bit).
// LEDs: red = busy (an instruction executing), green = a byte on the line
// either way. The button (BTN_N) resets the device.
//
// Under Verilator (no SYNTHESIS define) the PLL is bypassed: the model's
// clock is the device clock, ClockHz by definition, and the simulated host
// serializes at ClockHz / Baud clocks per bit (sim/board_shim.cpp).
//
// docs/boards.md: this configuration does not fit the UP5K (a 2x2 array is
// about twice its logic cells); the top is kept building and simulated so
// that it is ready for a smaller data path.
module ftpu_icebreaker #(
  // defaults: spec/ftpu.toml [device.icebreaker]
  parameter int          N           = ftpu_pkg::ICEBREAKER_N,
  parameter int unsigned AddCuts     = ftpu_pkg::ICEBREAKER_AddCuts,
  parameter int          InFlight    = ftpu_pkg::ICEBREAKER_InFlight,
  parameter int          UbVectors   = ftpu_pkg::ICEBREAKER_UbVectors,
  parameter int          WmRows      = ftpu_pkg::ICEBREAKER_WmRows,
  parameter int          AccVectors  = ftpu_pkg::ICEBREAKER_AccVectors,
  parameter int          BiasVectors = ftpu_pkg::ICEBREAKER_BiasVectors,
  parameter int          IqWords     = ftpu_pkg::ICEBREAKER_IqWords,
  parameter int unsigned ClockHz     = ftpu_pkg::ICEBREAKER_ClockHz,
  parameter int unsigned VectorUnit  = ftpu_pkg::ICEBREAKER_VectorUnit,
  parameter int unsigned InOrder     = ftpu_pkg::ICEBREAKER_InOrder,
  parameter int          ActLanes    = ftpu_pkg::ICEBREAKER_ActLanes,
  parameter int          ColSkew     = ftpu_pkg::ICEBREAKER_ColSkew,
  parameter int          PipeRegs    = ftpu_pkg::ICEBREAKER_PipeRegs,
  parameter int          LinkBytes   = ftpu_pkg::ICEBREAKER_LinkBytes,
  parameter int unsigned Baud        = ftpu_pkg::ICEBREAKER_Baud
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
  // 12 MHz * (DIVF + 1) / 2^DIVQ = 12 * 64 / 32 = 24 MHz (VCO 768 MHz).
  SB_PLL40_PAD #(
    .FEEDBACK_PATH ("SIMPLE"),
    .DIVR          (4'd0),
    .DIVF          (7'd63),
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

  logic [3:0] leds;  // {line error, tx, rx, busy}: the error has no LED here
  /* verilator lint_off UNUSEDSIGNAL */
  logic       unused_err;
  /* verilator lint_on UNUSEDSIGNAL */
  assign unused_err = leds[3];
  ftpu_board_uart #(
    .N(N), .AddCuts(AddCuts), .InFlight(InFlight), .UbVectors(UbVectors),
    .WmRows(WmRows), .AccVectors(AccVectors), .BiasVectors(BiasVectors),
    .IqWords(IqWords), .ClockHz(ClockHz), .VectorUnit(VectorUnit), .InOrder(InOrder), .ActLanes(ActLanes), .ColSkew(ColSkew), .PipeRegs(PipeRegs), .LinkBytes(LinkBytes), .Baud(Baud),
    // The control core's ROM and RAM alone would take 48 of the UP5K's 30
    // block RAMs: the hardware state machine answers CONTROL frames here.
    .ControlCore(0), .RomInit("")
  ) u_board (
    .clk_i     (clk),
    .rst_ni    (rst_n),
    .uart_rx_i,
    .uart_tx_o,
    .leds_o    (leds)
  );

  // The LEDs are active low. The red one is the device's busy signal as is
  // (not stretched): the simulated host reads it as the device's idle.
  assign led_red_no   = !leds[0];
  assign led_green_no = !(leds[1] || leds[2]);
endmodule
