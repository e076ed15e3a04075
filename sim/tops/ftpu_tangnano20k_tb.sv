// SPDX-License-Identifier: Apache-2.0
// ftpu_tangnano20k_tb: the Tang Nano 20K top as the simulator drives it
// (sim/board_shim.cpp): the oscillator pin is the model's clock, rst_ni
// is button S1 released (the button is active high), and LED 0, the
// device's busy signal (active low), comes out as busy_o. Only pins cross
// this wrapper.
module ftpu_tangnano20k_tb #(
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
  input  logic clk_i,
  input  logic rst_ni,
  input  logic uart_rx_i,
  output logic uart_tx_o,
  output logic busy_o
);
  logic [3:0] led_n;
  // LEDs 1-3 (receiving, sending, line error) are not pins the host sees.
  logic       unused_leds;
  assign unused_leds = ^led_n[3:1];

  ftpu_tangnano20k #(
    .N(N), .AddCuts(AddCuts), .InFlight(InFlight), .UbVectors(UbVectors),
    .WmRows(WmRows), .AccVectors(AccVectors), .BiasVectors(BiasVectors),
    .IqWords(IqWords), .ClockHz(ClockHz), .VectorUnit(VectorUnit), .InOrder(InOrder), .ActLanes(ActLanes), .ColSkew(ColSkew), .PipeRegs(PipeRegs), .LinkBytes(LinkBytes), .Baud(Baud)
  ) u_board (
    .clk_27mhz_i (clk_i),
    .uart_rx_i,
    .uart_tx_o,
    .btn_i       (!rst_ni),
    .led_no      (led_n)
  );

  assign busy_o = !led_n[0];
endmodule
