// SPDX-License-Identifier: Apache-2.0
// ftpu_board_leds: what a board's LEDs show — the device busy (an
// instruction executing), bytes arriving, bytes leaving (each pulse
// stretched to about 1/16 s so that a single frame is visible), and a
// sticky line error (framing error or overrun on a serial link; cleared by
// reset).
module ftpu_board_leds #(
  parameter int unsigned ClockHz = 24000000
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       busy_i,
  input  logic       rx_i,       // a byte received this cycle
  input  logic       tx_i,       // a byte sent this cycle
  input  logic       line_err_i,
  output logic [3:0] led_o       // {line error, tx, rx, busy}, active high
);
  localparam int StretchW = $clog2(ClockHz / 16 + 1);
  logic [StretchW-1:0] rx_q, tx_q;
  logic                err_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rx_q  <= '0;
      tx_q  <= '0;
      err_q <= 1'b0;
    end else begin
      rx_q  <= rx_i ? '1 : rx_q - StretchW'(rx_q != '0);
      tx_q  <= tx_i ? '1 : tx_q - StretchW'(tx_q != '0);
      err_q <= err_q | line_err_i;
    end
  end

  assign led_o = {err_q, tx_q != '0, rx_q != '0, busy_i};
endmodule
