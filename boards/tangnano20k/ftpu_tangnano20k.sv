// SPDX-License-Identifier: Apache-2.0
// ftpu_tangnano20k: the device on a Sipeed Tang Nano 20K (Gowin
// GW2AR-LV18QN88C8/I7). The 27 MHz oscillator clocks the device directly;
// the host link is the on-board BL616's USB-UART at Baud. LEDs 0-3 (active
// low): busy, receiving, sending, line error. Button S1 (active high)
// resets the device.
//
// The part's 20,736 LUT4 hold the 2x2 device with the hardware control
// state machine (ControlCore 0) (docs/boards.md).
module ftpu_tangnano20k #(
  // defaults: spec/ftpu.toml [device.tangnano20k]
  parameter int          N           = ftpu_pkg::TANGNANO20K_N,
  parameter int unsigned AddCuts     = ftpu_pkg::TANGNANO20K_AddCuts,
  parameter int          InFlight    = ftpu_pkg::TANGNANO20K_InFlight,
  parameter int          UbVectors   = ftpu_pkg::TANGNANO20K_UbVectors,
  parameter int          WmRows      = ftpu_pkg::TANGNANO20K_WmRows,
  parameter int          AccVectors  = ftpu_pkg::TANGNANO20K_AccVectors,
  parameter int          BiasVectors = ftpu_pkg::TANGNANO20K_BiasVectors,
  parameter int          IqWords     = ftpu_pkg::TANGNANO20K_IqWords,
  parameter int unsigned ClockHz     = ftpu_pkg::TANGNANO20K_ClockHz,
  parameter int unsigned VectorUnit  = ftpu_pkg::TANGNANO20K_VectorUnit,
  parameter int unsigned InOrder     = ftpu_pkg::TANGNANO20K_InOrder,
  parameter int          ActLanes    = ftpu_pkg::TANGNANO20K_ActLanes,
  parameter int          ColSkew     = ftpu_pkg::TANGNANO20K_ColSkew,
  parameter int          PipeRegs    = ftpu_pkg::TANGNANO20K_PipeRegs,
  parameter int          LinkBytes   = ftpu_pkg::TANGNANO20K_LinkBytes,
  parameter int unsigned Baud        = ftpu_pkg::TANGNANO20K_Baud
) (
  input  logic       clk_27mhz_i,
  input  logic       uart_rx_i,   // pin 70, from the BL616
  output logic       uart_tx_o,   // pin 69, to the BL616
  input  logic       btn_i,       // S1, active high
  output logic [3:0] led_no
);
  logic       rst_n;
  logic [3:0] leds;

  ftpu_board_reset u_reset (
    .clk_i    (clk_27mhz_i),
    .locked_i (1'b1),
    .btn_ni   (!btn_i),
    .rst_no   (rst_n)
  );

  ftpu_board_uart #(
    .N(N), .AddCuts(AddCuts), .InFlight(InFlight), .UbVectors(UbVectors),
    .WmRows(WmRows), .AccVectors(AccVectors), .BiasVectors(BiasVectors),
    .IqWords(IqWords), .ClockHz(ClockHz), .VectorUnit(VectorUnit), .InOrder(InOrder), .ActLanes(ActLanes), .ColSkew(ColSkew), .PipeRegs(PipeRegs), .LinkBytes(LinkBytes), .Baud(Baud), .ControlCore(0)
  ) u_board (
    .clk_i     (clk_27mhz_i),
    .rst_ni    (rst_n),
    .uart_rx_i,
    .uart_tx_o,
    .leds_o    (leds)
  );

  assign led_no = ~leds;
endmodule
