// SPDX-License-Identifier: Apache-2.0
// ftpu_ulx3s: the device on a ULX3S (ECP5, any of its sizes). The 25 MHz
// oscillator feeds the PLL, which makes the size's ClockHz (spec/ftpu.toml);
// the host link is the FT231X as a UART at Baud (3 Mbaud, the FT231X's
// fastest). LEDs 0-3: busy, receiving, sending, line error. The PWR button
// resets the device.
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
  parameter int          PipeRegs    = ftpu_pkg::ULX3S_PipeRegs,
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
  // The PLL's dividers for ClockHz (the spec's, one place): 25 MHz /
  // CLKI_DIV * CLKFB_DIV = ClockHz (to the hertz) on CLKOP, VCO ClockHz *
  // CLKOP_DIV = 600 MHz (the VCO's range is 400..800 MHz).
  function automatic logic [23:0] pll_divs(input longint hz);
    logic [23:0] r;
    longint      out;
    r = '0;
    for (int i = 8; i >= 1; i--)    // the smallest dividers that fit win
      for (int f = 32; f >= 1; f--) begin
        out = 64'd25_000_000 * f / i;
        if ((24 * i) % f == 0 && out >= hz - 1 && out <= hz + 1)
          r = {i[7:0], f[7:0], 8'((24 * i) / f)};
      end
    pll_divs = r;  // 0: none, which fails the check below
  endfunction
  localparam logic [23:0] Divs = pll_divs(ClockHz);
  if (Divs == '0) begin : g_no_pll_divs
    $error("ftpu_ulx3s: no PLL dividers give ClockHz from 25 MHz with a 600 MHz VCO");
  end
  EHXPLLL #(
    .CLKI_DIV         (int'(Divs[23:16])),
    .CLKFB_DIV        (int'(Divs[15:8])),
    .CLKOP_DIV        (int'(Divs[7:0])),
    .CLKOP_CPHASE     (int'(Divs[7:0]) - 1),
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
    .IqWords(IqWords), .ClockHz(ClockHz), .VectorUnit(VectorUnit), .InOrder(InOrder), .ActLanes(ActLanes), .ColSkew(ColSkew), .PipeRegs(PipeRegs), .LinkBytes(LinkBytes), .Baud(Baud)
  ) u_board (
    .clk_i     (clk),
    .rst_ni    (rst_n),
    .uart_rx_i (ftdi_txd_i),
    .uart_tx_o (ftdi_rxd_o),
    .leds_o    (led_o)
  );
endmodule
