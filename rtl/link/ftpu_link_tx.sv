// SPDX-License-Identifier: Apache-2.0
`include "ftpu_assert.svh"
// ftpu_link_tx: the link transmitter. Frames from the core as words in,
// frame bytes out: the bytes ftpu_link_encode() (proto/link.c)
// writes for the same header and payload.
//
// Input, one frame: w1 = {seq[31:16], flags[15:8], type[7:0]}, w2 =
// {credit[31:16], len[15:0]}, then len payload words. Both header words
// are sent as given: the core chooses the type, seq and credit, and keeps
// len within the protocol's LINK_MAX_PAYLOAD (not checked here).
// Output: SYNC, w1, w2, HCRC, payload, PCRC, least significant byte first,
// with both CRCs computed on the fly as the bytes leave: HCRC is the CRC-32
// of SYNC, w1, w2; PCRC carries that CRC on over the payload bytes (so it
// is the CRC-32 of w0..w2 and the payload, and equals HCRC when len is 0).
//
// A 4-byte shifter feeds the output and is refilled with the next word in
// the cycle its last byte leaves, so a frame goes out at Bytes bytes per
// cycle when the core keeps up (Bytes = 1: a byte, the UART and FT245
// PHYs; 4: the whole word, the simulated device's port; a frame is whole
// words, so every output beat is full); in_ready_o for payload words therefore depends on
// out_ready_i (a combinational path from out_ready_i to in_ready_o, never
// from a valid to a ready). The header words are taken into registers while
// the previous frame's PCRC is still going out.
module ftpu_link_tx #(
  parameter int Bytes = 1  // bytes out per cycle: 1 or 4
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // words from the core
  input  logic        in_valid_i,
  output logic        in_ready_o,
  input  logic [31:0] in_data_i,
  // bytes to the link
  output logic        out_valid_o,
  input  logic        out_ready_i,
  output logic [8*Bytes-1:0] out_data_o,  // byte 0 first
  output logic        idle_o       // no frame taken or going out
);
  localparam logic [31:0] Sync = ftpu_pkg::LINK_SYNC;

  if (Bytes != 1 && Bytes != 4) begin : g_bytes_check
    $error("ftpu_link_tx: Bytes must be 1 or 4");
  end

  typedef enum logic [2:0] {
    StW1,    // take w1 from the core
    StW2,    // take w2 from the core
    StSync,  // send SYNC
    StHdr1,  // send w1
    StHdr2,  // send w2
    StHcrc,  // send the header CRC
    StPay,   // send payload words as the core hands them over
    StPcrc   // send the payload CRC
  } state_e;
  state_e state_q, state_d;

  logic [31:0] sh_q, sh_d;    // bytes still to send, next at [7:0]
  logic [2:0]  cnt_q, cnt_d;  // how many (0..4)
  logic        crc_en_q, crc_en_d;  // they count in the current CRC
  logic [31:0] crc_q, crc_d;  // raw CRC of this frame's bytes sent so far
  logic [31:0] crc_sent;      // ... including the one leaving now
  logic [31:0] crc_step;
  logic [31:0] w1_q, w2_q;
  logic [15:0] left_q, left_d;  // payload words still to send
  logic        fire, refill;

  assign out_valid_o = cnt_q != 3'd0;
  assign idle_o      = state_q == StW1 && cnt_q == 3'd0;
  assign out_data_o  = sh_q[8*Bytes-1:0];
  assign fire        = out_valid_o && out_ready_i;
  // The shifter is empty next cycle unless refilled now.
  assign refill      = cnt_q == 3'd0 || (cnt_q == 3'(Bytes) && out_ready_i);

  // the CRC register after the Bytes bytes leaving now
  logic [31:0] crc_chain [Bytes+1];
  assign crc_chain[0] = crc_q;
  for (genvar b = 0; b < Bytes; b++) begin : g_crc
    ftpu_crc32_byte u_crc (
      .crc_i (crc_chain[b]),
      .data_i(sh_q[8*b +: 8]),
      .crc_o (crc_chain[b+1])
    );
  end
  assign crc_step = crc_chain[Bytes];
  assign crc_sent = (fire && crc_en_q) ? crc_step : crc_q;

  always_comb begin
    state_d    = state_q;
    sh_d       = fire ? sh_q >> (8 * Bytes) : sh_q;
    cnt_d      = cnt_q - (fire ? 3'(Bytes) : 3'd0);
    crc_en_d   = crc_en_q;
    crc_d      = crc_sent;
    left_d     = left_q;
    in_ready_o = 1'b0;
    unique case (state_q)
      // Take w1 from the core.
      StW1: begin
        in_ready_o = 1'b1;
        if (in_valid_i) state_d = StW2;
      end
      // Take w2 from the core.
      StW2: begin
        in_ready_o = 1'b1;
        if (in_valid_i) begin
          left_d  = in_data_i[15:0];
          state_d = StSync;
        end
      end
      // Send SYNC: the header CRC starts here.
      StSync: begin
        if (refill) begin
          sh_d     = Sync;
          cnt_d    = 3'd4;
          crc_en_d = 1'b1;
          crc_d    = '1;
          state_d  = StHdr1;
        end
      end
      // Send w1.
      StHdr1: begin
        if (refill) begin
          sh_d    = w1_q;
          cnt_d   = 3'd4;
          state_d = StHdr2;
        end
      end
      // Send w2.
      StHdr2: begin
        if (refill) begin
          sh_d    = w2_q;
          cnt_d   = 3'd4;
          state_d = StHcrc;
        end
      end
      // Send the header CRC; the payload CRC goes on from it.
      StHcrc: begin
        if (refill) begin
          sh_d     = ~crc_sent;
          cnt_d    = 3'd4;
          crc_en_d = 1'b0;
          state_d  = left_q == 16'd0 ? StPcrc : StPay;
        end
      end
      // Send payload words as the core hands them over.
      StPay: begin
        in_ready_o = refill;
        if (refill && in_valid_i) begin
          sh_d     = in_data_i;
          cnt_d    = 3'd4;
          crc_en_d = 1'b1;
          left_d   = left_q - 1'b1;
          if (left_q == 16'd1) state_d = StPcrc;
        end
      end
      // Send the payload CRC (the HCRC again for an empty payload).
      StPcrc: begin
        if (refill) begin
          sh_d     = ~crc_sent;
          cnt_d    = 3'd4;
          crc_en_d = 1'b0;
          state_d  = StW1;
        end
      end
      default: state_d = StW1;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q  <= StW1;
      sh_q     <= '0;
      cnt_q    <= '0;
      crc_en_q <= 1'b0;
      crc_q    <= '1;
      left_q   <= '0;
      w1_q     <= '0;
      w2_q     <= '0;
    end else begin
      state_q  <= state_d;
      sh_q     <= sh_d;
      cnt_q    <= cnt_d;
      crc_en_q <= crc_en_d;
      crc_q    <= crc_d;
      left_q   <= left_d;
      if (state_q == StW1 && in_valid_i) w1_q <= in_data_i;
      if (state_q == StW2 && in_valid_i) w2_q <= in_data_i;
    end
  end

  // Payload words: once offered, valid and data held until taken. (Header
  // words may change before they are taken: ftpu_link_mux re-picks its
  // source and fills in the live credit.)
  `FTPU_ASSERT_STREAM(a_in_payload, clk_i, rst_ni, in_valid_i && state_q == StPay,
                      in_ready_o, in_data_i)
endmodule
