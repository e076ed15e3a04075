// SPDX-License-Identifier: Apache-2.0
// ftpu_ulx3s_tb: the ULX3S top as the simulator drives it
// (sim/board_shim.cpp): the oscillator pin is the model's clock (the PLL is
// bypassed under Verilator, so the model's cycles are the device clock's),
// rst_ni is the PWR button (active low), and LED 0, the device's busy
// signal (active high), comes out as busy_o. Only pins cross this wrapper.
// The ULX3S runs the control core (ftpu_board_uart ControlCore 1) with the
// firmware embedded in its ROM, as the bitstream does.
module ftpu_ulx3s_tb #(
  // defaults: spec/ftpu.toml [device.ulx3s]
  parameter int          N           = ftpu_pkg::ULX3S_N,
  parameter int unsigned AddCuts     = ftpu_pkg::ULX3S_AddCuts,
  parameter int          InFlight    = ftpu_pkg::ULX3S_InFlight,
  parameter int          UbVectors   = ftpu_pkg::ULX3S_UbVectors,
  parameter int          WmRows      = ftpu_pkg::ULX3S_WmRows,
  parameter int          AccVectors  = ftpu_pkg::ULX3S_AccVectors,
  parameter int          BiasVectors = ftpu_pkg::ULX3S_BiasVectors,
  parameter int          IqWords     = ftpu_pkg::ULX3S_IqWords,
  parameter int unsigned ClockHz     = ftpu_pkg::ULX3S_ClockHz,
  parameter int unsigned VectorUnit  = ftpu_pkg::ULX3S_VectorUnit,
  parameter int unsigned InOrder     = ftpu_pkg::ULX3S_InOrder,
  parameter int          ActLanes    = ftpu_pkg::ULX3S_ActLanes,
  parameter int          ColSkew     = ftpu_pkg::ULX3S_ColSkew,
  parameter int          PipeRegs    = ftpu_pkg::ULX3S_PipeRegs,
  parameter int          LinkBytes   = ftpu_pkg::ULX3S_LinkBytes,
  parameter int unsigned Baud        = ftpu_pkg::ULX3S_Baud
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic uart_rx_i,
  output logic uart_tx_o,
  output logic busy_o
);
  logic [3:0] led;
  // LEDs 1-3 (receiving, sending, line error) are not pins the host sees.
  logic       unused_leds;
  assign unused_leds = ^led[3:1];

  ftpu_ulx3s #(
    .N(N), .AddCuts(AddCuts), .InFlight(InFlight), .UbVectors(UbVectors),
    .WmRows(WmRows), .AccVectors(AccVectors), .BiasVectors(BiasVectors),
    .IqWords(IqWords), .ClockHz(ClockHz), .VectorUnit(VectorUnit), .InOrder(InOrder), .ActLanes(ActLanes), .ColSkew(ColSkew), .PipeRegs(PipeRegs), .LinkBytes(LinkBytes), .Baud(Baud)
  ) u_board (
    .clk_25mhz_i (clk_i),
    .ftdi_txd_i  (uart_rx_i),
    .ftdi_rxd_o  (uart_tx_o),
    .btn_ni      (rst_ni),
    .led_o       (led)
  );

  assign busy_o = led[0];
endmodule
