// SPDX-License-Identifier: Apache-2.0
// ftpu_phy_uart_rx: the receiving half of ftpu_phy_uart — 8N1 serial in,
// one byte per valid_o pulse out. No buffering and no back-pressure (a
// serial line has none); ftpu_phy_uart puts a FIFO behind it.
//
// Bit timing without an integer divisor: the bit period is ClockHz / Baud
// clocks, reduced by their gcd to Mod / Inc, and a phase accumulator adds
// Inc each clock and ticks when it passes Mod (in doubled units, so half a
// period is exact). Ticks come every floor or ceil of ClockHz / Baud clocks
// and never drift: 3 Mbaud from 12 MHz (4 clocks per bit), 13.5 MHz (4.5)
// or 48 MHz (16) are all exact on average. At least 4 clocks per bit.
//
// Sampling: rx_i passes a 2-FF synchronizer (reset to idle, 1). In StIdle
// the first low sample starts a frame; the accumulator is preset so that
// bit i is sampled (i + 1/2) bit periods after that sample, minus one clock
// — which centres the sample in the bit, since the edge itself lies 0..1
// clock before the first low sample. The ticks' own rounding adds 0..1
// clock, so each sample lies within one clock of the bit's centre. With T
// = ClockHz / Baud, a sender whose rate is off by e still has all ten
// samples inside their bits for -(T/2 - 1)/(10 T) < e < (T/2 - 1)/(9 T)
// (the stop bit, 9.5 bits after the edge, is the one that limits): +-2.5%
// at 4 clocks per bit, +-2.8% at 4.5, +-4.4% at 16. An integer T has no
// tick rounding and tolerates more (at 4 clocks per bit, +-4.8% in
// tests/rtl/test_phy_uart.c's stream).
//
// Noise: a start bit must be low at its centre tick and one clock after it,
// which is at least half a bit after the falling edge, so a low glitch on
// the idle line shorter than half a bit never starts a frame (the receiver
// goes back to StIdle, nothing is reported). A glitch inside a frame is
// seen only if it covers a sample.
//
// Framing: a low stop bit drops the byte and pulses frame_err_o; if all
// data bits were also low it is a break and break_o pulses too. Either way
// the receiver then waits for the line to return high before it looks for
// the next start bit, so a break of any length is one error.
module ftpu_phy_uart_rx #(
  parameter int unsigned ClockHz = 12000000,
  parameter int unsigned Baud    = 3000000
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       rx_i,         // the serial line, asynchronous
  output logic       valid_o,      // a good byte in data_o, one cycle
  output logic [7:0] data_o,
  output logic       frame_err_o,  // a byte with a low stop bit dropped
  output logic       break_o,      // ... and all its bits low
  output logic       busy_o        // inside a frame
);
  // Euclid with a fixed bound (Yosys evaluates constant functions with
  // for loops, not while loops; 48 steps cover 32-bit arguments).
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

  localparam int unsigned G    = gcd(ClockHz, Baud);
  localparam int unsigned Inc2 = 2 * (Baud / G);     // per clock
  localparam int unsigned Mod2 = 2 * (ClockHz / G);  // per bit
  // Preset: the first tick (the start bit's centre) comes half a bit less
  // one clock after the first low sample.
  localparam int unsigned Preset = Mod2 / 2 + Inc2;
  localparam int AccW = $clog2(Mod2 + Inc2 + 1);

  if (ClockHz < 4 * Baud) begin : g_rate_check
    $error("ftpu_phy_uart_rx: at least 4 clocks per bit (ClockHz >= 4 * Baud)");
  end

  typedef enum logic [2:0] {
    StIdle,   // line high: wait for a start bit
    StStart,  // wait for the start bit's centre
    StCheck,  // the start bit must still be low one clock later
    StData,   // sample the 8 data bits, least significant first
    StStop,   // sample the stop bit
    StWait    // after a framing error: wait for the line to go high
  } state_e;
  state_e state_q, state_d;

  logic            sync1_q, line_q;  // the synchronizer; line_q is usable
  logic [AccW-1:0] acc_q, acc_d, acc_sum;
  logic            tick;
  logic [7:0]      sh_q, sh_d;
  logic [2:0]      cnt_q, cnt_d;

  assign acc_sum = acc_q + AccW'(Inc2);
  assign tick    = acc_sum >= AccW'(Mod2);

  always_comb begin
    state_d     = state_q;
    acc_d       = tick ? acc_sum - AccW'(Mod2) : acc_sum;
    sh_d        = sh_q;
    cnt_d       = cnt_q;
    valid_o     = 1'b0;
    frame_err_o = 1'b0;
    break_o     = 1'b0;
    unique case (state_q)
      // Idle line: the first low sample starts a frame.
      StIdle: begin
        acc_d = AccW'(Preset);
        if (!line_q) state_d = StStart;
      end
      // Start bit: high at its centre was a glitch.
      StStart: begin
        if (tick) state_d = line_q ? StIdle : StCheck;
      end
      // Start bit, one clock after its centre.
      StCheck: begin
        cnt_d   = 3'd0;
        state_d = line_q ? StIdle : StData;
      end
      // Data bits at their centres.
      StData: begin
        if (tick) begin
          sh_d  = {line_q, sh_q[7:1]};
          cnt_d = cnt_q + 3'd1;
          if (cnt_q == 3'd7) state_d = StStop;
        end
      end
      // Stop bit: high delivers the byte; low is a framing error.
      StStop: begin
        if (tick) begin
          if (line_q) begin
            valid_o = 1'b1;
            state_d = StIdle;
          end else begin
            frame_err_o = 1'b1;
            break_o     = sh_q == 8'h00;
            state_d     = StWait;
          end
        end
      end
      // Framing error or break: resume once the line is high again.
      StWait: begin
        if (line_q) state_d = StIdle;
      end
      default: state_d = StIdle;
    endcase
  end

  assign data_o = sh_q;
  assign busy_o = state_q != StIdle;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sync1_q <= 1'b1;
      line_q  <= 1'b1;
      state_q <= StIdle;
      acc_q   <= '0;
      sh_q    <= '0;
      cnt_q   <= '0;
    end else begin
      sync1_q <= rx_i;
      line_q  <= sync1_q;
      state_q <= state_d;
      acc_q   <= acc_d;
      sh_q    <= sh_d;
      cnt_q   <= cnt_d;
    end
  end
endmodule
