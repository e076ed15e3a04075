// SPDX-License-Identifier: Apache-2.0
// ftpu_link_rx: the link receiver. Bytes in, checked frames out as words:
// CONTROL frames through a one-frame mailbox, the other types through a
// receive buffer; the same frames and errors as ftpu_link_rx_push() in
// proto/link.c for the same bytes, with the admission of
// docs/protocol.md §6.
//
// Input, Bytes = 1: one byte per cycle, always ready (in_ready_o is 1):
// nothing in here ever stalls the link (the UART and FT245 PHYs). Bytes = 4
// (the simulated device's word port): up to four bytes a cycle, in_count_i
// of them from byte 0 on, into an 8-byte staging register; the hunt takes
// one byte a cycle from it, a frame's payload and PCRC a word a cycle (a
// frame is whole words from its SYNC on, wherever it starts), so in_ready_o
// is low while the staging register cannot take four more. A frame's
// first payload word waits the cycle its w2 is written (one write port).
// There is no timeout (ftpu_link_rx_timeout() has no counterpart here): a
// frame cut short takes the bytes that come next as its own and fails its
// PCRC, and the hunt resumes after it.
//
// Hunting. The last 16 hunt bytes sit in a shift register, win_q, and every
// byte that enters it is checked as the last byte of a header whose SYNC
// starts 15 bytes earlier: SYNC at the window start, HCRC equal to the CRC of
// window bytes 0..11, len at most MaxPayload. That CRC is a rolling CRC:
// CRC-32 without its init and final inversions is linear, so the raw CRC of
// bytes 0..11 follows the window with one byte step for the byte entering
// the 12-byte span and a constant 8-to-32-bit map cancelling the byte that
// leaves it (RollOut*, below); the inversions add the constant Crc12Zeros.
// So every candidate SYNC position, including the 15 inside a header that
// failed, is checked exactly once, in stream order, as its 16th byte comes
// in: a failed candidate loses only its first byte (it leaves the window
// with the next byte) and the search goes on inside the rest, without
// re-reading anything. Bytes that leave a full window count as skipped.
// fill_q counts the window's bytes since the hunt (re)started, so bytes of
// the previous frame never form a candidate.
//
// A good header, then:
//   type outside [TypeFirst, TypeLast]     UNKNOWN_TYPE, skip len words + PCRC
//   type CtlType, len > MaxControl or the
//     mailbox still holds a frame          OVERFLOW, skip the same way
//   other types, len + 2 > credit_o        OVERFLOW, skip the same way
//   otherwise                              receive the frame
// (a sender that exceeds its credit is at fault: the receiver never waits
// for space.) A bad HCRC is BAD_HEADER_CRC (seq and type unknown, 16'hFFFF
// and 8'hFF); a good HCRC with len > MaxPayload is BAD_LENGTH; both give up
// only the candidate's first byte, as above.
//
// A received frame is written as w1 ({seq, flags, type}), w2 ({credit,
// len}) and its len payload words, and becomes visible to its reader only
// when its PCRC (the CRC-32 of w0..w2 and the payload, i.e. the HCRC carried
// on over the payload bytes) checks; on a bad PCRC the writes are rolled
// back and BAD_PAYLOAD_CRC is reported.
//
// Receive buffer (out_*, the PROGRAM frames): a FIFO of Depth 32-bit words
// (Depth a power of two) in one memory with one write and one read port. A
// frame is written after the committed words; a good PCRC moves commit_q to
// the write pointer. A frame takes len + 2 words. credit_o = Depth - unread
// words, where unread words are the committed words not yet taken,
// including the one shown on out_data_o; words of a frame still arriving
// are not counted (they cannot exceed credit_o). CONTROL frames never touch
// it: credit_o is the PROGRAM credit.
//
// Mailbox (ctl_*, the CONTROL frames): one frame of up to MaxControl
// payload words in its own small memory, streamed out as w1, w2, payload
// like the receive buffer. It is held from its good PCRC until its last
// word has been taken; a bad PCRC leaves it free.
//
// Acknowledged seq (ack_seq_o, docs/protocol.md §5): the seq of the last
// frame finished with a good header, as ftpu_link_rx_ack(): set at a
// BAD_LENGTH, UNKNOWN_TYPE or OVERFLOW header and at the PCRC check of a
// received frame, good or bad. 0 after reset (link.c's -1).
//
// Flush (flush_i, a one-cycle pulse: the device's CONTROL RESET): discards
// the committed, unread words of the receive buffer and the held mailbox
// frame. A frame being received continues normally, and one whose PCRC
// checks in that very cycle is kept.
//
// Errors: one report register (err_*_o). An error that finds it still full
// (err_valid_o && !err_ready_i) is not reported but counted in err_lost_o;
// err_count_o counts every error by code either way. At most one error
// arises per hunted byte or payload step.
//
// Counters: free-running, wrapping at 2^CntW (read them as differences):
// frames_ok_o (frames committed, to either reader), bytes_skipped_o (hunt
// bytes that started no good header), err_count_o (code c in bits
// [(c-1)*CntW +: CntW]), err_lost_o.
module ftpu_link_rx #(
  parameter int         Bytes      = 1,     // bytes in per cycle: 1 or 4
  parameter int         Depth      = 8192,
  parameter int         MaxPayload = ftpu_pkg::LINK_MAX_PAYLOAD,
  parameter logic [7:0] TypeFirst  = ftpu_pkg::LINK_TYPE_CONTROL,
  parameter logic [7:0] TypeLast   = ftpu_pkg::LINK_TYPE_PROGRAM,
  parameter logic [7:0] CtlType    = ftpu_pkg::LINK_TYPE_CONTROL,
  parameter int         MaxControl = ftpu_pkg::LINK_MAX_CONTROL,
  parameter int         CntW       = 32,
  localparam int        CountW     = $clog2(Bytes + 1)
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  // bytes from the link
  input  logic                         in_valid_i,
  output logic                         in_ready_o,
  input  logic [8*Bytes-1:0]           in_data_i,   // byte 0 first
  input  logic [CountW-1:0]            in_count_i,  // bytes valid (Bytes > 1)
  // receive buffer: w1, w2, payload of each good frame not of CtlType
  output logic                         out_valid_o,
  input  logic                         out_ready_i,
  output logic [31:0]                  out_data_o,
  output logic [$clog2(Depth+1)-1:0]   credit_o,
  // mailbox: w1, w2, payload of the good CtlType frame it holds
  output logic                         ctl_valid_o,
  input  logic                         ctl_ready_i,
  output logic [31:0]                  ctl_data_o,
  // the acknowledged seq; a pulse that empties both readers' frames
  output logic [15:0]                  ack_seq_o,
  input  logic                         flush_i,
  // error reports
  output logic                         err_valid_o,
  input  logic                         err_ready_i,
  output logic [2:0]                   err_code_o,
  output logic [15:0]                  err_seq_o,
  output logic [7:0]                   err_type_o,
  // statistics
  output logic [CntW-1:0]              frames_ok_o,
  output logic [CntW-1:0]              bytes_skipped_o,
  output logic [5*CntW-1:0]            err_count_o,  // codes 1..5
  output logic [CntW-1:0]              err_lost_o
);
  localparam int AddrW = $clog2(Depth);
  localparam int PtrW = AddrW + 1;  // one more bit tells full from empty
  localparam int CreditW = $clog2(Depth + 1);
  localparam int TodoW = $clog2(4 * MaxPayload + 5);
  localparam int CtlPtrW = $clog2(MaxControl + 3);  // 0 ..= MaxControl + 2 words
  localparam int CtlWords = 2 ** CtlPtrW;
  // The frame format (proto/link.h, docs/protocol.md).
  localparam logic [31:0] Sync = ftpu_pkg::LINK_SYNC;
  localparam logic [2:0]  ErrBadHeaderCrc  = ftpu_pkg::LINK_ERR_BAD_HEADER_CRC;
  localparam logic [2:0]  ErrBadPayloadCrc = ftpu_pkg::LINK_ERR_BAD_PAYLOAD_CRC;
  localparam logic [2:0]  ErrBadLength     = ftpu_pkg::LINK_ERR_BAD_LENGTH;
  localparam logic [2:0]  ErrUnknownType   = ftpu_pkg::LINK_ERR_UNKNOWN_TYPE;
  localparam logic [2:0]  ErrOverflow      = ftpu_pkg::LINK_ERR_OVERFLOW;
  localparam int          NumErr           = 5;
  localparam logic [15:0] SeqUnknown  = ftpu_pkg::LINK_SEQ_UNKNOWN;  // of an unreadable header
  localparam logic [7:0]  TypeUnknown = ftpu_pkg::LINK_TYPE_UNKNOWN;
  // zlib crc32 of 12 zero bytes: the inversions' share of a 12-byte CRC.
  localparam logic [31:0] Crc12Zeros = 32'h7BD5_C66F;
  // Raw CRC of byte 1 << j followed by 12 zero bytes: what a byte still adds
  // to the raw CRC when it leaves the 12-byte span.
  localparam logic [31:0] RollOut0 = 32'hDD96_D985;
  localparam logic [31:0] RollOut1 = 32'h605C_B54B;
  localparam logic [31:0] RollOut2 = 32'hC0B9_6A96;
  localparam logic [31:0] RollOut3 = 32'h5A03_D36D;
  localparam logic [31:0] RollOut4 = 32'hB407_A6DA;
  localparam logic [31:0] RollOut5 = 32'hB37E_4BF5;
  localparam logic [31:0] RollOut6 = 32'hBD8D_91AB;
  localparam logic [31:0] RollOut7 = 32'hA06A_2517;

  if (Depth != 2 ** AddrW) begin : g_depth_check
    $error("ftpu_link_rx: Depth must be a power of two");
  end
  if (Bytes != 1 && Bytes != 4) begin : g_bytes_check
    $error("ftpu_link_rx: Bytes must be 1 or 4");
  end

  typedef enum logic [1:0] {
    StHunt,     // search for a header
    StPayload,  // store payload words, check the PCRC
    StSkip      // discard the payload and PCRC of a refused frame
  } state_e;
  state_e state_q, state_d;

  // ---- the head of the byte stream ----------------------------------------
  // head: the next four bytes (byte 0 at [7:0]); hstep: the hunt takes the
  // next byte; pstep: a payload (or skipped) step of Bytes bytes is taken.
  logic [31:0] head;
  logic        hstep, pstep;
  logic        len_pend_q;  // w2 is written the cycle after w1 (declared early)

  if (Bytes == 1) begin : g_byte_in
    assign head       = {24'h0, in_data_i};
    assign hstep      = in_valid_i && state_q == StHunt;
    assign pstep      = in_valid_i && state_q != StHunt;
    assign in_ready_o = 1'b1;
    logic unused_count;
    assign unused_count = ^in_count_i;
  end else begin : g_word_in
    logic [63:0] stage_q, stage_rest, in_masked;  // byte i at [8i +: 8]
    logic [3:0]  n_q, n_rest;                     // bytes held, 0..8
    logic [3:0]  take;
    logic        in_fire;
    assign head  = stage_q[31:0];
    assign hstep = state_q == StHunt && n_q != 4'd0;
    assign pstep = state_q != StHunt && n_q >= 4'd4 && !len_pend_q;
    assign take  = hstep ? 4'd1 : pstep ? 4'd4 : 4'd0;
    assign stage_rest = stage_q >> (8 * take);
    assign n_rest     = n_q - take;
    assign in_ready_o = n_rest <= 4'd4;
    assign in_fire    = in_valid_i && in_ready_o;
    assign in_masked  = 64'(in_data_i) & ((64'd1 << (8 * in_count_i)) - 64'd1);
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        stage_q <= '0;
        n_q     <= '0;
      end else begin
        stage_q <= in_fire ? stage_rest | (in_masked << (8 * n_rest)) : stage_rest;
        n_q     <= in_fire ? n_rest + 4'(in_count_i) : n_rest;
      end
    end
  end

  // ---- hunt window ------------------------------------------------------
  logic [127:0] win_q, win_sh;    // byte i at [8i +: 8], byte 0 the oldest
  logic [31:0]  roll_q, roll_sh;  // raw CRC (init 0) of win_q bytes 0..11
  logic [31:0]  roll_step, roll_out;
  logic [4:0]   fill_q, fill_d;   // hunt bytes in win_q, up to 16
  logic         hunt_shift;

  assign hunt_shift = hstep;
  assign win_sh = {head[7:0], win_q[127:8]};

  ftpu_crc32_byte u_roll (
    .crc_i (roll_q),
    .data_i(win_q[103:96]),
    .crc_o (roll_step)
  );
  assign roll_out = ({32{win_q[0]}} & RollOut0) ^ ({32{win_q[1]}} & RollOut1) ^
                    ({32{win_q[2]}} & RollOut2) ^ ({32{win_q[3]}} & RollOut3) ^
                    ({32{win_q[4]}} & RollOut4) ^ ({32{win_q[5]}} & RollOut5) ^
                    ({32{win_q[6]}} & RollOut6) ^ ({32{win_q[7]}} & RollOut7);
  assign roll_sh = roll_step ^ roll_out;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      win_q  <= '0;  // roll_q = 0 is the raw CRC of these zeros
      roll_q <= '0;
    end else if (hunt_shift) begin
      win_q  <= win_sh;
      roll_q <= roll_sh;
    end
  end

  // The header that ends with this byte, if the window holds one.
  logic [31:0] hdr_w1, hdr_w2;
  logic [15:0] hdr_len;
  logic [7:0]  hdr_type;
  logic        candidate, hcrc_ok, len_ok, type_ok, fits, hdr_ctl, ctl_fits, room;
  logic        ctl_held_q;  // the mailbox holds a frame (declared early)
  assign hdr_w1   = win_sh[63:32];
  assign hdr_w2   = win_sh[95:64];
  assign hdr_len  = hdr_w2[15:0];
  assign hdr_type = hdr_w1[7:0];
  assign candidate = hunt_shift && fill_q >= 5'd15 && win_sh[31:0] == Sync;
  assign hcrc_ok  = (roll_sh ^ Crc12Zeros) == win_sh[127:96];
  assign len_ok   = 32'(hdr_len) <= 32'(MaxPayload);
  assign type_ok  = hdr_type >= TypeFirst && hdr_type <= TypeLast;
  assign fits     = 32'(hdr_len) + 32'd2 <= 32'(credit_o);
  assign hdr_ctl  = hdr_type == CtlType;
  assign ctl_fits = 32'(hdr_len) <= 32'(MaxControl) && !ctl_held_q;
  assign room     = hdr_ctl ? ctl_fits : fits;

  // ---- frame reception ------------------------------------------------------
  logic [TodoW-1:0] todo_q, todo_d;  // payload + PCRC bytes still to come
  logic [31:0]      crc_q, crc_d;    // raw CRC of w0..w2 and the payload so far
  logic [31:0]      crc_step;
  logic [31:0]      word_q, word_d;  // the last 4 bytes, newest at the top
  logic [15:0]      seq_q;           // of the frame being received
  logic [7:0]       type_q;
  logic [31:0]      w2_q;
  logic             ctl_q;           // the frame goes to the mailbox
  logic             accept;          // a frame is admitted
  logic             to_ctl;          // this cycle's word write is the mailbox's
  logic             rollback;        // a bad PCRC: forget the frame's words
  logic             ack_load;        // a frame with a good header is finished
  logic [15:0]      ack_d, ack_q;

  // the PCRC register after this step's Bytes bytes
  logic [31:0] pcrc_chain [Bytes+1];
  assign pcrc_chain[0] = crc_q;
  for (genvar b = 0; b < Bytes; b++) begin : g_pcrc
    ftpu_crc32_byte u_pcrc (
      .crc_i (pcrc_chain[b]),
      .data_i(head[8*b +: 8]),
      .crc_o (pcrc_chain[b+1])
    );
  end
  assign crc_step = pcrc_chain[Bytes];

  // ---- buffer pointers (PtrW bits, wrapping) ------------------------------
  logic [PtrW-1:0]  wptr_q, wptr_d;      // next word to write
  logic [PtrW-1:0]  commit_q, commit_d;  // end of the committed words
  logic [PtrW-1:0]  rptr_q;              // next word to read from memory
  logic             out_valid_q;
  logic [31:0]      out_data_q;
  logic             we, fifo_we;
  logic [31:0]      wdata;
  logic             rd_issue;

  // ---- events ---------------------------------------------------------------
  logic        ev_valid, frame_ok, skipped;
  logic [2:0]  ev_code;
  logic [15:0] ev_seq;
  logic [7:0]  ev_type;

  always_comb begin
    state_d  = state_q;
    fill_d   = fill_q;
    todo_d   = todo_q;
    crc_d    = crc_q;
    word_d   = word_q;
    accept   = 1'b0;
    we       = 1'b0;
    wdata    = w2_q;
    rollback = 1'b0;
    ack_load = 1'b0;
    ack_d    = seq_q;
    ev_valid = 1'b0;
    ev_code  = '0;
    ev_seq   = SeqUnknown;
    ev_type  = TypeUnknown;
    frame_ok = 1'b0;
    skipped  = 1'b0;
    // w2 of the frame admitted last cycle; no payload word is due before
    // four more bytes.
    if (len_pend_q) we = 1'b1;
    unique case (state_q)
      // Search for a header: one window check per byte.
      StHunt: begin
        if (hstep) begin
          skipped = fill_q == 5'd16;
          fill_d  = skipped ? fill_q : fill_q + 1'b1;
        end
        if (candidate && !hcrc_ok) begin
          ev_valid = 1'b1;
          ev_code  = ErrBadHeaderCrc;
        end else if (candidate) begin
          ev_seq  = hdr_w1[31:16];
          ev_type = hdr_type;
          ack_d   = hdr_w1[31:16];
          if (!len_ok) begin
            ev_valid = 1'b1;
            ev_code  = ErrBadLength;
            ack_load = 1'b1;
          end else begin
            // A good header: its 16 bytes are taken, whatever follows.
            fill_d = '0;
            todo_d = TodoW'({hdr_len, 2'b00}) + TodoW'(4);
            // PCRC continues the CRC of w0..w2: start from its raw register.
            crc_d  = ~win_sh[127:96];
            if (!type_ok || !room) begin
              ev_valid = 1'b1;
              ev_code  = !type_ok ? ErrUnknownType : ErrOverflow;
              ack_load = 1'b1;
              state_d  = StSkip;
            end else begin
              accept  = 1'b1;
              state_d = StPayload;
              we      = 1'b1;
              wdata   = hdr_w1;
            end
          end
        end
      end
      // Store payload words, check the PCRC, then commit or roll back
      // (a byte or a word a step; todo_q stays a multiple of Bytes).
      StPayload: begin
        if (pstep) begin
          todo_d = todo_q - TodoW'(Bytes);
          word_d = Bytes == 1 ? {head[7:0], word_q[31:8]} : head;
          if (todo_q > TodoW'(4)) begin
            crc_d = crc_step;
            if (todo_q[1:0] == 2'(Bytes % 4)) begin  // a word is complete
              we    = 1'b1;
              wdata = word_d;
            end
          end else if (todo_q == TodoW'(Bytes)) begin
            state_d  = StHunt;
            ack_load = 1'b1;
            if (word_d == ~crc_q) begin
              frame_ok = 1'b1;
            end else begin
              rollback = 1'b1;
              ev_valid = 1'b1;
              ev_code  = ErrBadPayloadCrc;
              ev_seq   = seq_q;
              ev_type  = type_q;
            end
          end
        end
      end
      // Discard the payload and PCRC of a refused frame.
      StSkip: begin
        if (pstep) begin
          todo_d = todo_q - TodoW'(Bytes);
          if (todo_q == TodoW'(Bytes)) state_d = StHunt;
        end
      end
      default: state_d = StHunt;
    endcase
  end

  // Where the words go: at the header (StHunt) by its type, then by ctl_q.
  // The receive buffer's pointers move only for its own frames.
  assign to_ctl   = state_q == StHunt ? hdr_ctl : ctl_q;
  assign fifo_we  = we && !to_ctl;
  assign wptr_d   = rollback && !to_ctl ? commit_q : wptr_q + PtrW'(fifo_we);
  assign commit_d = frame_ok && !to_ctl ? wptr_q : commit_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q    <= StHunt;
      fill_q     <= '0;
      todo_q     <= '0;
      crc_q      <= '1;
      word_q     <= '0;
      seq_q      <= '0;
      type_q     <= '0;
      w2_q       <= '0;
      len_pend_q <= 1'b0;
      ctl_q      <= 1'b0;
      ack_q      <= '0;
      wptr_q     <= '0;
      commit_q   <= '0;
    end else begin
      state_q    <= state_d;
      fill_q     <= fill_d;
      todo_q     <= todo_d;
      crc_q      <= crc_d;
      word_q     <= word_d;
      len_pend_q <= accept;
      wptr_q     <= wptr_d;
      commit_q   <= commit_d;
      if (ack_load) ack_q <= ack_d;
      if (accept) begin
        seq_q  <= hdr_w1[31:16];
        type_q <= hdr_type;
        w2_q   <= hdr_w2;
        ctl_q  <= hdr_ctl;
      end
    end
  end

  // ---- buffer memory and reader ---------------------------------------------
  // The output register is the memory's read register: a read is issued
  // when it is empty or being taken, so words flow at one per cycle and
  // out_data_o holds while out_valid_o && !out_ready_i. Reads only touch
  // committed words and writes only words past them, never the same one.
  // A flush moves the read pointer to the committed end and empties the
  // output register.
  logic [31:0] mem_q [Depth];

  always_ff @(posedge clk_i) begin
    if (fifo_we) mem_q[wptr_q[AddrW-1:0]] <= wdata;
  end

  assign rd_issue = !flush_i && commit_q != rptr_q && (!out_valid_q || out_ready_i);

  always_ff @(posedge clk_i) begin
    if (rd_issue) out_data_q <= mem_q[rptr_q[AddrW-1:0]];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rptr_q      <= '0;
      out_valid_q <= 1'b0;
    end else if (flush_i) begin
      rptr_q      <= commit_q;
      out_valid_q <= 1'b0;
    end else begin
      if (rd_issue) rptr_q <= rptr_q + 1'b1;
      if (rd_issue)         out_valid_q <= 1'b1;
      else if (out_ready_i) out_valid_q <= 1'b0;
    end
  end

  assign out_valid_o = out_valid_q;
  assign out_data_o  = out_data_q;
  assign credit_o    = CreditW'(Depth) - CreditW'(commit_q - rptr_q) -
                       CreditW'(out_valid_q);

  // ---- mailbox memory and reader -------------------------------------------
  // Written only while free (from w1 at address 0 on), read only while held,
  // through an output register as above. ctl_end_q: the held frame's words.
  logic [31:0]        ctl_mem_q [CtlWords];
  logic [31:0]        ctl_data_q;
  logic [CtlPtrW-1:0] ctl_waddr, ctl_wptr_q, ctl_end_q, ctl_rptr_q;
  logic               ctl_we, ctl_commit, ctl_valid_q, ctl_rd_issue, ctl_last;

  assign ctl_we     = we && to_ctl;
  assign ctl_waddr  = accept ? '0 : ctl_wptr_q;
  assign ctl_commit = frame_ok && to_ctl;

  always_ff @(posedge clk_i) begin
    if (ctl_we) ctl_mem_q[ctl_waddr] <= wdata;
  end

  assign ctl_rd_issue = ctl_held_q && !flush_i && ctl_rptr_q != ctl_end_q &&
                        (!ctl_valid_q || ctl_ready_i);
  // the held frame's last word is taken: the mailbox is free again
  assign ctl_last = ctl_valid_q && ctl_ready_i && ctl_rptr_q == ctl_end_q;

  always_ff @(posedge clk_i) begin
    if (ctl_rd_issue) ctl_data_q <= ctl_mem_q[ctl_rptr_q];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ctl_wptr_q  <= '0;
      ctl_end_q   <= '0;
      ctl_rptr_q  <= '0;
      ctl_held_q  <= 1'b0;
      ctl_valid_q <= 1'b0;
    end else begin
      ctl_wptr_q <= ctl_waddr + CtlPtrW'(ctl_we);
      if (ctl_commit) begin
        ctl_held_q <= 1'b1;
        ctl_end_q  <= ctl_wptr_q;
        ctl_rptr_q <= '0;
      end else begin
        if (flush_i || ctl_last) ctl_held_q <= 1'b0;
        if (ctl_rd_issue) ctl_rptr_q <= ctl_rptr_q + 1'b1;
      end
      if (ctl_rd_issue)                ctl_valid_q <= 1'b1;
      else if (flush_i || ctl_ready_i) ctl_valid_q <= 1'b0;
    end
  end

  assign ctl_valid_o = ctl_valid_q;
  assign ctl_data_o  = ctl_data_q;
  assign ack_seq_o   = ack_q;

  // ---- error reports and counters -------------------------------------------
  logic        err_valid_q;
  logic [2:0]  err_code_q;
  logic [15:0] err_seq_q;
  logic [7:0]  err_type_q;
  logic        err_load, err_lost;

  assign err_load = ev_valid && (!err_valid_q || err_ready_i);
  assign err_lost = ev_valid && err_valid_q && !err_ready_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      err_valid_q <= 1'b0;
      err_code_q  <= '0;
      err_seq_q   <= '0;
      err_type_q  <= '0;
    end else if (err_load) begin
      err_valid_q <= 1'b1;
      err_code_q  <= ev_code;
      err_seq_q   <= ev_seq;
      err_type_q  <= ev_type;
    end else if (err_ready_i) begin
      err_valid_q <= 1'b0;
    end
  end

  assign err_valid_o = err_valid_q;
  assign err_code_o  = err_code_q;
  assign err_seq_o   = err_seq_q;
  assign err_type_o  = err_type_q;

  logic [CntW-1:0] frames_ok_q, bytes_skipped_q, err_lost_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      frames_ok_q     <= '0;
      bytes_skipped_q <= '0;
      err_lost_q      <= '0;
    end else begin
      if (frame_ok) frames_ok_q <= frames_ok_q + 1'b1;
      if (skipped)  bytes_skipped_q <= bytes_skipped_q + 1'b1;
      if (err_lost) err_lost_q <= err_lost_q + 1'b1;
    end
  end
  assign frames_ok_o     = frames_ok_q;
  assign bytes_skipped_o = bytes_skipped_q;
  assign err_lost_o      = err_lost_q;

  for (genvar c = 1; c <= NumErr; c++) begin : g_err_count
    logic [CntW-1:0] count_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni)                           count_q <= '0;
      else if (ev_valid && ev_code == 3'(c)) count_q <= count_q + 1'b1;
    end
    assign err_count_o[(c-1)*CntW +: CntW] = count_q;
  end

`ifdef FTPU_FORMAL_LINK_RX
  // The formal properties (formal/link_rx.sby; make formal).
  `include "link_rx.svh"
`endif
endmodule
