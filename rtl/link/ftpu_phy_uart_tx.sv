// SPDX-License-Identifier: Apache-2.0
// ftpu_phy_uart_tx: the sending half of ftpu_phy_uart — bytes in through a
// valid/ready handshake, 8N1 serial out (start bit, 8 data bits least
// significant first, one stop bit).
//
// Bit timing as ftpu_phy_uart_rx: a phase accumulator of Inc / Mod
// (ClockHz / Baud reduced by their gcd) ends each bit on the clock where it
// passes Mod, so bits last floor or ceil of ClockHz / Baud clocks and the
// rate is exact on average (a receiver sees up to one clock of jitter on a
// bit edge). A one-byte holding register takes the next byte while the
// current one goes out, and the next start bit follows the stop bit at
// once: back-to-back bytes go out at the full Baud / 10 bytes per second.
// The accumulator restarts at 0 only when a byte starts from idle.
//
// tx_o is a register: idle (and in reset) high.
module ftpu_phy_uart_tx #(
  parameter int unsigned ClockHz = 12000000,
  parameter int unsigned Baud    = 3000000
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       valid_i,
  output logic       ready_o,
  input  logic [7:0] data_i,
  output logic       tx_o,
  output logic       busy_o    // a byte is going out or waiting
);
  // Euclid with a fixed bound, as in ftpu_phy_uart_rx.
  function automatic int unsigned gcd(input int unsigned a, input int unsigned b);
    int unsigned x, y, t;
    x = a;
    y = b;
    for (int i = 0; i < 48; i++) begin
      if (y != 0) begin
        t = x % y;
        x = y;
        y = t;
      end
    end
    gcd = x;
  endfunction

  localparam int unsigned G   = gcd(ClockHz, Baud);
  localparam int unsigned Inc = Baud / G;     // per clock
  localparam int unsigned Mod = ClockHz / G;  // per bit
  localparam int AccW = $clog2(Mod + Inc + 1);

  if (ClockHz < 4 * Baud) begin : g_rate_check
    $error("ftpu_phy_uart_tx: at least 4 clocks per bit (ClockHz >= 4 * Baud)");
  end

  logic            hold_valid_q;  // hold_q waits for the shifter
  logic [7:0]      hold_q;
  logic            send_q;        // a frame is on the line
  logic [8:0]      sh_q;          // bits after the current one: data, stop
  logic [3:0]      bit_q;         // current bit: 0 start .. 9 stop
  logic            tx_q;
  logic [AccW-1:0] acc_q, acc_sum;
  logic            tick, load;

  assign ready_o = !hold_valid_q;
  assign acc_sum = acc_q + AccW'(Inc);
  assign tick    = send_q && acc_sum >= AccW'(Mod);
  // The held byte starts when the line is idle or the stop bit ends.
  assign load    = hold_valid_q && (!send_q || (tick && bit_q == 4'd9));
  assign tx_o    = tx_q;
  assign busy_o  = send_q || hold_valid_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      hold_valid_q <= 1'b0;
      hold_q       <= '0;
      send_q       <= 1'b0;
      sh_q         <= '1;
      bit_q        <= '0;
      tx_q         <= 1'b1;
      acc_q        <= '0;
    end else begin
      if (valid_i && ready_o) begin
        hold_valid_q <= 1'b1;
        hold_q       <= data_i;
      end else if (load) begin
        hold_valid_q <= 1'b0;
      end
      if (send_q) acc_q <= tick ? acc_sum - AccW'(Mod) : acc_sum;
      else        acc_q <= '0;
      if (load) begin
        send_q <= 1'b1;
        sh_q   <= {1'b1, hold_q};
        bit_q  <= 4'd0;
        tx_q   <= 1'b0;
      end else if (tick) begin
        if (bit_q == 4'd9) begin
          send_q <= 1'b0;
        end else begin
          sh_q  <= {1'b1, sh_q[8:1]};
          bit_q <= bit_q + 4'd1;
          tx_q  <= sh_q[0];
        end
      end
    end
  end
endmodule
