// SPDX-License-Identifier: Apache-2.0
// ftpu_phy_uart: the device's byte stream over a serial line, 8N1 at Baud
// from a clock of ClockHz (at least 4 clocks per bit; 3 Mbaud from 12 MHz
// is the iCEBreaker's FT2232H channel B). Receiver and transmitter are
// ftpu_phy_uart_rx and ftpu_phy_uart_tx (bit timing, sampling, tolerance
// and glitch rejection are described there: +-2.5% baud error at 4 clocks
// per bit, +-4.4% at 16).
//
//   uart_rx_i -> ftpu_phy_uart_rx -> FIFO (FifoDepth) -> out_*  (device in_*)
//   uart_tx_o <- ftpu_phy_uart_tx <- in_*                       (device out_*)
//
// A serial line cannot be back-pressured: received bytes wait in a small
// FIFO, and a byte that completes while the FIFO is full (and its oldest
// byte is not leaving in that cycle) is dropped,
// pulses overrun_o and counts in overruns_o. The link protocol's credits
// normally make this impossible — the host never sends more than the
// device can buffer (docs/protocol.md §6), and ftpu_link_rx takes a byte
// every cycle — so an overrun means a reader stalled for FifoDepth bytes,
// and the frame it hit fails its CRC like any other line error. A byte
// with a low stop bit (framing error, or a break) is dropped too, pulses
// frame_err_o (and break_o for a break) and counts in frame_errs_o.
// Counters wrap at 2^CntW: read them as differences.
//
// The transmitter holds one byte besides the one on the line, so a device
// that keeps in_valid_i high sends back to back at Baud / 10 bytes per
// second; in_ready_o is a register.
module ftpu_phy_uart #(
  parameter int unsigned ClockHz   = 12000000,
  parameter int unsigned Baud      = 3000000,
  parameter int          FifoDepth = 8,   // a power of two, >= 2
  parameter int          CntW      = 16
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  // pins
  input  logic            uart_rx_i,
  output logic            uart_tx_o,
  // received bytes, to the device's in_* port
  output logic            out_valid_o,
  input  logic            out_ready_i,
  output logic [7:0]      out_data_o,
  // bytes to send, from the device's out_* port
  input  logic            in_valid_i,
  output logic            in_ready_o,
  input  logic [7:0]      in_data_i,
  // receive errors: pulses, and wrapping counts
  output logic            frame_err_o,
  output logic            break_o,
  output logic            overrun_o,
  output logic [CntW-1:0] frame_errs_o,
  output logic [CntW-1:0] overruns_o
);
  localparam int AddrW = $clog2(FifoDepth);

  if (FifoDepth != 2 ** AddrW || FifoDepth < 2) begin : g_depth_check
    $error("ftpu_phy_uart: FifoDepth must be a power of two, at least 2");
  end

  // ---- receiver and its FIFO ----------------------------------------------------
  logic       rx_valid, rx_busy;
  logic [7:0] rx_data;

  ftpu_phy_uart_rx #(.ClockHz(ClockHz), .Baud(Baud)) u_rx (
    .clk_i,
    .rst_ni,
    .rx_i       (uart_rx_i),
    .valid_o    (rx_valid),
    .data_o     (rx_data),
    .frame_err_o,
    .break_o,
    .busy_o     (rx_busy)
  );

  logic [7:0]     mem_q [FifoDepth];
  logic [AddrW:0] wptr_q, rptr_q;  // one bit more than the address
  logic           full, push;

  // A full FIFO still takes a byte in the cycle its oldest one leaves.
  assign full        = (wptr_q ^ rptr_q) == {1'b1, {AddrW{1'b0}}};
  assign push        = rx_valid && (!full || out_ready_i);
  assign out_valid_o = wptr_q != rptr_q;
  assign out_data_o  = mem_q[rptr_q[AddrW-1:0]];
  assign overrun_o   = rx_valid && !push;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wptr_q       <= '0;
      rptr_q       <= '0;
      frame_errs_o <= '0;
      overruns_o   <= '0;
    end else begin
      if (push) wptr_q <= wptr_q + 1'b1;
      if (out_valid_o && out_ready_i) rptr_q <= rptr_q + 1'b1;
      if (frame_err_o) frame_errs_o <= frame_errs_o + 1'b1;
      if (overrun_o) overruns_o <= overruns_o + 1'b1;
    end
  end

  always_ff @(posedge clk_i) begin
    if (push) mem_q[wptr_q[AddrW-1:0]] <= rx_data;
  end

  // ---- transmitter ----------------------------------------------------------------
  logic tx_busy;

  ftpu_phy_uart_tx #(.ClockHz(ClockHz), .Baud(Baud)) u_tx (
    .clk_i,
    .rst_ni,
    .valid_i(in_valid_i),
    .ready_o(in_ready_o),
    .data_i (in_data_i),
    .tx_o   (uart_tx_o),
    .busy_o (tx_busy)
  );

  logic unused;
  assign unused = ^{rx_busy, tx_busy};
endmodule
