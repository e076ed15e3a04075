// SPDX-License-Identifier: Apache-2.0
// formal/link_rx.svh: the properties of ftpu_link_rx, proven by
// formal/link_rx.sby (make formal; docs/protocol.md, "Formal proofs").
//
// Included into the module's own scope at its end when FTPU_FORMAL_LINK_RX
// is defined (the .sby's read), so it sees the internal state without
// hierarchical references (which Yosys does not read). Nothing else
// defines that macro: Verilator, lint and synthesis never see this file.
//
// Status: the prove task (make formal) proves all but the CRC group below
// (FTPU_FORMAL_NO_CRC); the bmc task checks them too, but z3 does not get
// far in minutes (docs/protocol.md, "Formal proofs of the RTL receiver").
//
// The CRC. A proof over a whole frame's CRC would ask the solver to invert
// CRC-32; instead the harness keeps its own CRC, computed from the input
// bytes with the bit-serial definition of docs/protocol.md §2 (a register
// shifted one bit at a time, not ftpu_crc32_byte), and the properties say:
//   a header is admitted (accept) only if the last 16 input bytes are SYNC,
//     W1, W2 and the CRC-32 of those 12 bytes, with len <= MaxPayload;
//   a frame is committed (frame_ok) only on the last byte of its PCRC, and
//     only if those 4 bytes are the CRC-32 of the header's 12 bytes and the
//     len payload words that followed it;
// and, so the receiver is not simply refusing everything, a BAD_HEADER_CRC
// is reported only for a SYNC whose HCRC really differs, a BAD_PAYLOAD_CRC
// only for a PCRC that really differs. The induction invariants then carry
// the rolling header CRC (roll_q equals the CRC of window bytes 0..11, from
// scratch) and the payload CRC (crc_q equals the harness's shadow CRC); the
// window holds the last fill_q input bytes. These are one-step identities
// over GF(2), which the solver checks without inverting anything.
//
// Buffers. The receive buffer: a word is written only over a free slot
// (never over a committed word not yet read, nor the one on out_data_o),
// credit_o <= Depth, and committed + unread + the rest of the frame being
// received always fit. The mailbox: written only while free and only below
// MaxControl + 2 words; read only while held, only its frame's words.
//
// Back to the hunt. A header that fails (BAD_HEADER_CRC, BAD_LENGTH) keeps
// the hunt going with its window full (only its first byte is lost); after
// a good header the receiver is back in StHunt after exactly the 4·len + 4
// bytes that follow it (a harness counter), so never later than
// 4·MaxPayload + 4 bytes.
//
// Handshakes: out_* and ctl_* keep valid and data while not taken (a flush
// may withdraw them: docs say it empties both readers), err_* likewise.
//
// The environment: reset in the first cycle only, then any bytes, any
// ready, any flush.
`include "ftpu_assert.svh"

  function automatic logic [31:0] f_crc_bits(input logic [31:0] crc, input logic [7:0] b);
    f_crc_bits = crc;
    for (int i = 0; i < 8; i++)
      f_crc_bits = (f_crc_bits >> 1) ^ ((f_crc_bits[0] ^ b[i]) ? 32'hEDB8_8320 : 32'h0);
  endfunction
  function automatic logic [31:0] f_crc12(input logic [31:0] crc, input logic [95:0] b);
    f_crc12 = crc;
    for (int i = 0; i < 12; i++) f_crc12 = f_crc_bits(f_crc12, b[8*i +: 8]);
  endfunction

  // ---- environment --------------------------------------------------------
  logic f_past = 1'b0;
  always @(posedge clk_i) f_past <= 1'b1;
  always @(*) assume (rst_ni == f_past);

  // ---- the input bytes, and the harness's view of a frame -------------------
  logic [127:0]     f_h_q, f_h_sh;  // the last 16 input bytes, byte 0 the oldest
  logic             f_rx;           // receiving an admitted frame (accept .. its last byte)
  logic [TodoW-1:0] f_left;         // its bytes still to come
  logic [TodoW-1:0] f_total, f_busy;  // bytes after the last good header; those taken
  logic [31:0]      f_pcrc;         // raw CRC of its header bytes 0..11 and payload so far
  logic [31:0]      f_hcrc_sh;      // CRC-32 (zlib) of bytes 0..11 of f_h_sh

  assign f_h_sh    = {in_data_i, f_h_q[127:8]};
  assign f_hcrc_sh = ~f_crc12('1, f_h_sh[95:0]);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_h_q   <= '0;
      f_rx    <= 1'b0;
      f_left  <= '0;
      f_pcrc  <= '0;
      f_total <= '0;
      f_busy  <= '0;
    end else begin
      if (in_valid_i) f_h_q <= f_h_sh;
      if (accept) begin
        f_rx   <= 1'b1;
`ifdef FTPU_FORMAL_NO_CRC
        f_left <= todo_d;  // the window is not related to the input here
`else
        f_left <= TodoW'({f_h_sh[79:64], 2'b00}) + TodoW'(4);
`endif
        f_pcrc <= ~f_hcrc_sh;
      end else if (f_rx && in_valid_i) begin
        f_left <= f_left - 1'b1;
        if (f_left > TodoW'(4)) f_pcrc <= f_crc_bits(f_pcrc, in_data_i);
        if (f_left == TodoW'(1)) f_rx <= 1'b0;
      end
      if (state_q == StHunt && state_d != StHunt) begin
        f_total <= todo_d;
        f_busy  <= '0;
      end else if (state_q != StHunt && in_valid_i) begin
        f_busy <= f_busy + 1'b1;
      end
    end
  end

  // The window's bytes that entered since the hunt (re)started: its top
  // fill_q bytes.
  logic [127:0] f_win_mask;
  assign f_win_mask = fill_q == 5'd0 ? '0 : ~128'd0 << (8 * (16 - 32'(fill_q)));
  // The bytes of this frame in word_q: its top min(received, 4) bytes.
  logic [TodoW-1:0] f_got;
  logic [31:0]      f_word_mask;
  assign f_got       = f_total - todo_q;
  assign f_word_mask = f_got >= TodoW'(4) ? '1 : ~32'd0 << (8 * (4 - 32'(f_got)));
  // Buffer words the frame being received will still write: w2 if due, then
  // one per payload word still to come (todo_q = 4k + 1 .. 4k + 4 with k
  // payload words left, plus the PCRC).
  logic [31:0] f_rem, f_buf_used;
  assign f_rem      = 32'((todo_q - 1'b1) >> 2) + 32'(len_pend_q);
  assign f_buf_used = 32'(PtrW'(wptr_q - rptr_q)) + 32'(out_valid_q);

  // ---- CRC: nothing is taken whose CRC failed -------------------------------
  // (Bounded only: the bmc task. The prove task leaves them out, below.)
`ifndef FTPU_FORMAL_NO_CRC
  `FTPU_ASSERT(a_accept_sync, clk_i, rst_ni, !accept || f_h_sh[31:0] == Sync)
  `FTPU_ASSERT(a_accept_hcrc, clk_i, rst_ni, !accept || f_h_sh[127:96] == f_hcrc_sh)
  `FTPU_ASSERT(a_accept_len, clk_i, rst_ni, !accept || 32'(f_h_sh[79:64]) <= 32'(MaxPayload))
  `FTPU_ASSERT(a_accept_idle, clk_i, rst_ni, !accept || !f_rx)
  `FTPU_ASSERT(a_commit_pcrc, clk_i, rst_ni,
               !frame_ok || (f_rx && in_valid_i && f_left == TodoW'(1) && f_h_sh[127:96] == ~f_pcrc))
  `FTPU_ASSERT(a_bad_pcrc, clk_i, rst_ni,
               !rollback || (f_rx && f_left == TodoW'(1) && f_h_sh[127:96] != ~f_pcrc))
  `FTPU_ASSERT(a_bad_hcrc, clk_i, rst_ni, !(ev_valid && ev_code == ErrBadHeaderCrc) ||
               (f_h_sh[31:0] == Sync && f_h_sh[127:96] != f_hcrc_sh))
  // invariants behind them
  `FTPU_ASSERT(i_roll, clk_i, rst_ni, roll_q == f_crc12('0, win_q[95:0]))
  `FTPU_ASSERT(i_win, clk_i, rst_ni, state_q != StHunt || ((win_q ^ f_h_q) & f_win_mask) == '0)
  `FTPU_ASSERT(i_rx_crc, clk_i, rst_ni, !f_rx || crc_q == f_pcrc)
  `FTPU_ASSERT(i_rx_word, clk_i, rst_ni, !f_rx || ((word_q ^ f_h_q[127:96]) & f_word_mask) == '0)
`endif
  `FTPU_ASSERT(i_fill, clk_i, rst_ni, fill_q <= 5'd16 && (state_q == StHunt || fill_q == 5'd0))
  `FTPU_ASSERT(i_state, clk_i, rst_ni, state_q == StHunt || state_q == StPayload || state_q == StSkip)
  `FTPU_ASSERT(i_rx, clk_i, rst_ni, f_rx == (state_q == StPayload))
  `FTPU_ASSERT(i_rx_left, clk_i, rst_ni, !f_rx || todo_q == f_left)
  `FTPU_ASSERT(i_len_pend, clk_i, rst_ni, !len_pend_q || (f_rx && todo_q == f_total))

  // ---- back to the hunt -------------------------------------------------------
  `FTPU_ASSERT(a_bad_candidate, clk_i, rst_ni, !(candidate && !(hcrc_ok && len_ok)) ||
               (state_d == StHunt && fill_d >= 5'd15))
  `FTPU_ASSERT(a_hunt_bound, clk_i, rst_ni, state_q == StHunt ||
               (f_busy + todo_q == f_total && todo_q != '0 &&
                32'(f_total) <= 32'(4 * MaxPayload + 4)))

  // ---- receive buffer ---------------------------------------------------------
  `FTPU_ASSERT(a_buf_write, clk_i, rst_ni, !fifo_we || 32'(PtrW'(wptr_q - rptr_q)) < 32'(Depth))
  `FTPU_ASSERT(a_buf_read, clk_i, rst_ni, !rd_issue || commit_q != rptr_q)
  `FTPU_ASSERT(a_credit, clk_i, rst_ni,
               32'(PtrW'(commit_q - rptr_q)) + 32'(out_valid_q) <= 32'(Depth) &&
               32'(credit_o) <= 32'(Depth))
  `FTPU_ASSERT(i_buf_idle, clk_i, rst_ni, (f_rx && !ctl_q) || wptr_q == commit_q)
  `FTPU_ASSERT(i_buf_rx, clk_i, rst_ni, !(f_rx && !ctl_q) ||
               (f_buf_used + f_rem <= 32'(Depth) &&
                PtrW'(commit_q - rptr_q) <= PtrW'(wptr_q - rptr_q)))

  // ---- mailbox ----------------------------------------------------------------
  `FTPU_ASSERT(a_ctl_write, clk_i, rst_ni, !ctl_we || (!ctl_held_q &&
               32'(ctl_waddr) <= 32'(MaxControl + 1)))
  `FTPU_ASSERT(a_ctl_read, clk_i, rst_ni, !ctl_rd_issue || (ctl_held_q && ctl_rptr_q < ctl_end_q))
  `FTPU_ASSERT(i_ctl_rx, clk_i, rst_ni, !(f_rx && ctl_q) ||
               (!ctl_held_q && 32'(ctl_wptr_q) + f_rem <= 32'(MaxControl + 2)))
  `FTPU_ASSERT(i_ctl_end, clk_i, rst_ni, 32'(ctl_end_q) <= 32'(MaxControl + 2) &&
               (!ctl_held_q || ctl_rptr_q <= ctl_end_q))

  // ---- handshakes ---------------------------------------------------------------
  `FTPU_ASSERT(a_out_stream, clk_i, rst_ni, !$past(rst_ni && out_valid_o && !out_ready_i && !flush_i) ||
               (out_valid_o && out_data_o == $past(out_data_o)))
  `FTPU_ASSERT(a_ctl_stream, clk_i, rst_ni, !$past(rst_ni && ctl_valid_o && !ctl_ready_i && !flush_i) ||
               (ctl_valid_o && ctl_data_o == $past(ctl_data_o)))
  `FTPU_ASSERT_STREAM(a_err_stream, clk_i, rst_ni, err_valid_o, err_ready_i,
                      {err_code_o, err_seq_o, err_type_o})
