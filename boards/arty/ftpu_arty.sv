// SPDX-License-Identifier: Apache-2.0
// ftpu_arty: the device on a Digilent Arty A7-100T (xc7a100t). The device
// runs from the 100 MHz oscillator directly; the host link is the
// FT2232HQ's channel B as a UART at Baud (12 Mbaud, the FT2232H's fastest:
// 8.3 clocks per bit). LEDs LD4-LD7: busy, receiving, sending, line error.
// The RESET button resets the device.
module ftpu_arty #(
  // defaults: spec/ftpu.toml [device.arty]
  parameter int          N           = ftpu_pkg::ARTY_N,
  parameter int unsigned AddCuts     = ftpu_pkg::ARTY_AddCuts,
  parameter int          InFlight    = ftpu_pkg::ARTY_InFlight,
  parameter int          UbVectors   = ftpu_pkg::ARTY_UbVectors,
  parameter int          WmRows      = ftpu_pkg::ARTY_WmRows,
  parameter int          AccVectors  = ftpu_pkg::ARTY_AccVectors,
  parameter int          BiasVectors = ftpu_pkg::ARTY_BiasVectors,
  parameter int          IqWords     = ftpu_pkg::ARTY_IqWords,
  parameter int unsigned ClockHz     = ftpu_pkg::ARTY_ClockHz,
  parameter int unsigned VectorUnit  = ftpu_pkg::ARTY_VectorUnit,
  parameter int unsigned InOrder     = ftpu_pkg::ARTY_InOrder,
  parameter int          ActLanes    = ftpu_pkg::ARTY_ActLanes,
  parameter int          ColSkew     = ftpu_pkg::ARTY_ColSkew,
  parameter int          PipeRegs    = ftpu_pkg::ARTY_PipeRegs,
  parameter int          LinkBytes   = ftpu_pkg::ARTY_LinkBytes,
  parameter int unsigned Baud        = ftpu_pkg::ARTY_Baud
) (
  input  logic       clk_100mhz_i,
  input  logic       uart_rx_i,
  output logic       uart_tx_o,
  input  logic       rst_ni,
  output logic [3:0] led_o
);
  logic rst_n;

  ftpu_board_reset u_reset (
    .clk_i    (clk_100mhz_i),
    .locked_i (1'b1),
    .btn_ni   (rst_ni),
    .rst_no   (rst_n)
  );

  ftpu_board_uart #(
    .N(N), .AddCuts(AddCuts), .InFlight(InFlight), .UbVectors(UbVectors),
    .WmRows(WmRows), .AccVectors(AccVectors), .BiasVectors(BiasVectors),
    .IqWords(IqWords), .ClockHz(ClockHz), .VectorUnit(VectorUnit), .InOrder(InOrder), .ActLanes(ActLanes), .ColSkew(ColSkew), .PipeRegs(PipeRegs), .LinkBytes(LinkBytes), .Baud(Baud)
  ) u_board (
    .clk_i     (clk_100mhz_i),
    .rst_ni    (rst_n),
    .uart_rx_i,
    .uart_tx_o,
    .leds_o    (led_o)
  );
endmodule
