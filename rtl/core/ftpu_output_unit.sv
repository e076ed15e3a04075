// SPDX-License-Identifier: Apache-2.0
`include "ftpu_assert.svh"
// ftpu_output_unit: executes HOST_WRITE (docs/isa.md): sends n vectors of
// UB (N/2 words each: bf16 element 2j in bits [15:0] of word j, 2j+1 in
// [31:16]) or ACC (N fp32 words) to the host in DATA frames of as many whole
// vectors as fit in MaxPayload words — the frames model/ref_device.c sends.
//
// Output: frame words w1 = {seq 0, flags 0, type DATA}, w2 = {credit 0,
// len}, payload; ftpu_top fills in the seq and credit as the frame leaves.
// Memory reads share ports with other units (ftpu_core arbitrates): a read
// is requested until granted, its data arrive in the next cycle and fill a
// vector register that the payload words are taken from. abort_i (the
// device's RESET) ends the instruction after the frame being sent.
// WORDS (protocol 1.3): only the first words_i words of each vector go out
// (ftpu_core_check has faulted 0 or more than a vector has).
module ftpu_output_unit #(
  parameter int N          = 16,
  parameter int UbAddrW    = 12,
  parameter int AccAddrW   = 12,
  parameter int MaxPayload = ftpu_pkg::LINK_MAX_PAYLOAD,
  localparam int AddrW = (UbAddrW > AccAddrW) ? UbAddrW : AccAddrW,
  localparam int WordW = $clog2(N + 1)
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // the instruction
  input  logic              start_i,
  input  logic              acc_i,     // 1 ACC, 0 UB
  input  logic              part_i,    // WORDS: words_i words of each vector
  input  logic [WordW-1:0]  words_i,
  input  logic [AddrW-1:0]  addr_i,
  input  logic [15:0]       n_i,
  input  logic              abort_i,
  output logic              busy_o,
  output logic              acc_o,     // memory and [lo, hi) in use while busy
  output logic [17:0]       lo_o,
  output logic [17:0]       hi_o,
  // memory read, shared (data the cycle after a grant)
  output logic              rd_req_o,
  input  logic              rd_gnt_i,
  output logic [AddrW-1:0]  rd_addr_o,
  input  logic [N*16-1:0]   ub_data_i,
  input  logic [N*32-1:0]   acc_data_i,
  // DATA frames
  output logic              out_valid_o,
  input  logic              out_ready_i,
  output logic [31:0]       out_data_o
);
  localparam logic [7:0] TypeData = ftpu_pkg::LINK_TYPE_DATA;
  localparam int UbWords  = N / 2;
  localparam int AccWords = N;

  typedef enum logic [2:0] {
    StIdle,
    StW1,     // frame header word 1
    StW2,     // frame header word 2
    StRead,   // request the next vector
    StData,   // its data arrive
    StSend    // payload words of the vector
  } state_e;
  state_e state_q;

  logic              acc_q;
  logic [WordW-1:0]  wpv_q;      // words sent of each vector
  logic [AddrW-1:0]  addr_q;
  logic [15:0]       left_q;     // vectors of the instruction not yet read
  logic [15:0]       fleft_q;    // vectors of this frame not yet read
  logic [WordW-1:0]  word_q;     // payload word of the vector being sent
  logic [N*32-1:0]   vec_q;
  logic              abort_q;
  logic [17:0]       lo_q, hi_q;

  // Vectors per frame: as many as fit, a table of constants (no divider).
  function automatic logic [15:0] per_frame(input logic [WordW-1:0] w);
    per_frame = '0;
    for (int k = 1; k <= N; k++) if (w == WordW'(k)) per_frame = 16'(MaxPayload / k);
  endfunction
  logic [15:0] per_q, per_d, fvec, wpv;
  assign wpv  = 16'(wpv_q);
  assign fvec = left_q < per_q ? left_q : per_q;

  // The frame's length, registered in StW1 for StW2: the product (a DSP
  // on ECP5) would otherwise reach the link's word mux and CRC.
  logic [15:0] flen_q, flen_d;  // at most MaxPayload

  logic last_word;
  assign last_word = 16'(word_q) == wpv - 16'd1;

  // Next state and registers.
  state_e            state_d;
  logic              acc_d, abort_d;
  logic [WordW-1:0]  wpv_d;
  logic [AddrW-1:0]  addr_d;
  logic [15:0]       left_d, fleft_d;
  logic [WordW-1:0]  word_d;
  logic [N*32-1:0]   vec_d;
  logic [17:0]       lo_d, hi_d;
  always_comb begin
    state_d = state_q;
    flen_d  = flen_q;
    acc_d   = acc_q;
    wpv_d   = wpv_q;
    per_d   = per_q;
    addr_d  = addr_q;
    left_d  = left_q;
    fleft_d = fleft_q;
    word_d  = word_q;
    vec_d   = vec_q;
    abort_d = abort_q;
    lo_d    = lo_q;
    hi_d    = hi_q;
    if (abort_i && state_q != StIdle) abort_d = 1'b1;
    unique case (state_q)
      StIdle: begin
        abort_d = 1'b0;
        if (start_i) begin
          acc_d   = acc_i;
          wpv_d   = part_i ? words_i : WordW'(acc_i ? AccWords : UbWords);
          per_d   = per_frame(wpv_d);
          addr_d  = addr_i;
          left_d  = n_i;
          lo_d    = 18'(addr_i);
          hi_d    = 18'(addr_i) + 18'(n_i);
          state_d = StW1;
        end
      end
      StW1: begin
        flen_d = fvec * wpv;
        if (abort_q || abort_i) state_d = StIdle;
        else if (out_ready_i) state_d = StW2;
      end
      StW2: begin
        if (out_ready_i) begin
          fleft_d = fvec;
          state_d = StRead;
        end
      end
      StRead: begin
        if (rd_gnt_i) begin
          addr_d  = addr_q + 1'b1;
          left_d  = left_q - 16'd1;
          fleft_d = fleft_q - 16'd1;
          state_d = StData;
        end
      end
      StData: begin
        vec_d   = acc_q ? acc_data_i : {{(N*16){1'b0}}, ub_data_i};
        word_d  = '0;
        state_d = StSend;
      end
      StSend: begin
        if (out_ready_i) begin
          vec_d  = vec_q >> 32;
          word_d = word_q + 1'b1;
          if (last_word) begin
            if (fleft_q != 16'd0)     state_d = StRead;
            else if (left_q != 16'd0) state_d = StW1;
            else                      state_d = StIdle;
          end
        end
      end
      default: state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      acc_q   <= 1'b0;
      wpv_q   <= '0;
      per_q   <= '0;
      flen_q  <= '0;
      addr_q  <= '0;
      left_q  <= '0;
      fleft_q <= '0;
      word_q  <= '0;
      vec_q   <= '0;
      abort_q <= 1'b0;
      lo_q    <= '0;
      hi_q    <= '0;
    end else begin
      state_q <= state_d;
      acc_q   <= acc_d;
      wpv_q   <= wpv_d;
      per_q   <= per_d;
      flen_q  <= flen_d;
      addr_q  <= addr_d;
      left_q  <= left_d;
      fleft_q <= fleft_d;
      word_q  <= word_d;
      vec_q   <= vec_d;
      abort_q <= abort_d;
      lo_q    <= lo_d;
      hi_q    <= hi_d;
    end
  end

  assign busy_o      = state_q != StIdle;
  assign acc_o       = acc_q;
  assign lo_o        = lo_q;
  assign hi_o        = hi_q;
  assign rd_req_o    = state_q == StRead;
  assign rd_addr_o   = addr_q;
  assign out_valid_o = (state_q == StW1 && !abort_q && !abort_i) ||
                       state_q == StW2 || state_q == StSend;
  always_comb begin
    unique case (state_q)
      StW1:    out_data_o = {16'd0, 8'd0, TypeData};
      StW2:    out_data_o = {16'd0, flen_q};
      default: out_data_o = vec_q[31:0];
    endcase
  end

  // DATA frames: valid and data held until taken, except that abort_i may
  // withdraw a frame before its first word.
  `FTPU_ASSERT_STREAM(a_out_stream, clk_i, rst_ni && !abort_i, out_valid_o, out_ready_i,
                      out_data_o)
  // A read is granted only when requested.
  `FTPU_ASSERT(a_rd_grant, clk_i, rst_ni, !rd_gnt_i || rd_req_o)
endmodule
