// SPDX-License-Identifier: Apache-2.0
// ftpu_ulx3s: the device on a ULX3S (ECP5 LFE5U-85F). The 25 MHz oscillator
// feeds the PLL (33.3 MHz: the 4x4 device routes at 37.7 MHz, short of 50);
// the host link is the FT231X as a UART at Baud (3 Mbaud, the FT231X's
// fastest: 11.1 clocks per bit). LEDs 0-3: busy,
// receiving, sending, line error. The PWR button resets the device.
module ftpu_ulx3s #(
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
  parameter int          LinkBytes   = ftpu_pkg::ULX3S_LinkBytes,
  parameter int unsigned Baud        = ftpu_pkg::ULX3S_Baud
) (
  input  logic       clk_25mhz_i,
  input  logic       ftdi_txd_i,   // the FT231X's TXD: our receive line
  output logic       ftdi_rxd_o,
  input  logic       btn_ni,
  output logic [3:0] led_o
);
  logic clk, locked, rst_n;

`ifdef SYNTHESIS
  // 25 MHz / CLKI_DIV * CLKFB_DIV = 33.3 MHz on CLKOP; VCO 33.3 * CLKOP_DIV = 600 MHz.
  EHXPLLL #(
    .CLKI_DIV         (3),
    .CLKFB_DIV        (4),
    .CLKOP_DIV        (18),
    .CLKOP_CPHASE     (17),
    .CLKOP_ENABLE     ("ENABLED"),
    .FEEDBK_PATH      ("CLKOP"),
    .OUTDIVIDER_MUXA  ("DIVA")
  ) u_pll (
    .CLKI      (clk_25mhz_i),
    .CLKFB     (clk),
    .CLKOP     (clk),
    .RST       (1'b0),
    .STDBY     (1'b0),
    .PHASESEL0 (1'b0),
    .PHASESEL1 (1'b0),
    .PHASEDIR  (1'b0),
    .PHASESTEP (1'b0),
    .PHASELOADREG (1'b0),
    .PLLWAKESYNC  (1'b0),
    .ENCLKOP   (1'b0),
    .LOCK      (locked)
  );
`else
  assign clk    = clk_25mhz_i;
  assign locked = 1'b1;
`endif

  ftpu_board_reset u_reset (
    .clk_i    (clk),
    .locked_i (locked),
    .btn_ni,
    .rst_no   (rst_n)
  );

  ftpu_board_uart #(
    .N(N), .AddCuts(AddCuts), .InFlight(InFlight), .UbVectors(UbVectors),
    .WmRows(WmRows), .AccVectors(AccVectors), .BiasVectors(BiasVectors),
    .IqWords(IqWords), .ClockHz(ClockHz), .VectorUnit(VectorUnit), .InOrder(InOrder), .ActLanes(ActLanes), .ColSkew(ColSkew), .LinkBytes(LinkBytes), .Baud(Baud)
  ) u_board (
    .clk_i     (clk),
    .rst_ni    (rst_n),
    .uart_rx_i (ftdi_txd_i),
    .uart_tx_o (ftdi_rxd_o),
    .leds_o    (led_o)
  );
endmodule
