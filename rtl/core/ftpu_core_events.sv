// SPDX-License-Identifier: Apache-2.0
`include "ftpu_assert.svh"
// ftpu_core_events: the event builder — EVENT SYNC and EVENT FAULT frames
// (docs/protocol.md) — and the core's one output stream, where they meet
// the output unit's DATA frames.
//
// A fault is sent once the output unit is idle, so DATA frames of earlier
// instructions go first; SYNC is handed over only when every unit is idle
// (ftpu_core_hazards), HOST_WRITE waits while an event is being sent, so the
// two sources never send at once. Frame words as ftpu_link_tx takes them,
// with seq and credit 0 (ftpu_top fills them in as a frame leaves).
module ftpu_core_events (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        soft_reset_i,
  // the decoder's pending fault
  input  logic        fault_i,
  input  logic [2:0]  fault_code_i,
  input  logic [31:0] fault_pc_i,
  input  logic [31:0] fault_instr_i,
  output logic        fault_sent_o,  // taken this cycle (and counted)
  // SYNC dispatches with its tag
  input  logic        sync_i,
  input  logic [31:0] sync_tag_i,
  output logic        busy_o,        // a frame is being sent
  // the output unit's DATA frames
  input  logic        ou_busy_i,
  input  logic        ou_valid_i,
  output logic        ou_ready_o,
  input  logic [31:0] ou_data_i,
  // DATA and EVENT frames out
  output logic        out_valid_o,
  input  logic        out_ready_i,
  output logic [31:0] out_data_o
);
  localparam logic [7:0]  TypeEvent = ftpu_pkg::LINK_TYPE_EVENT;
  localparam logic [31:0] EventSync = ftpu_pkg::EVENT_SYNC, EventFault = ftpu_pkg::EVENT_FAULT;

  typedef enum logic [1:0] {EvIdle, EvW1, EvW2, EvPay} state_e;
  state_e      state_q, state_d;
  logic [3:0][31:0] w_q, w_d;  // payload words
  logic [2:0]  len_q, len_d;
  logic [1:0]  i_q, i_d;  // payload word being sent

  logic ev_valid, ev_ready;
  logic [31:0] ev_data;
  assign busy_o       = state_q != EvIdle;
  assign fault_sent_o = fault_i && !ou_busy_i && !busy_o && !soft_reset_i;
  assign ev_valid     = busy_o;
  always_comb begin
    unique case (state_q)
      EvW1:    ev_data = {16'd0, 8'd0, TypeEvent};
      EvW2:    ev_data = {16'd0, 13'd0, len_q};
      default: ev_data = w_q[i_q];
    endcase
  end

  always_comb begin
    state_d = state_q;
    w_d     = w_q;
    len_d   = len_q;
    i_d     = i_q;
    unique case (state_q)
      EvIdle: begin
        i_d = '0;
        if (fault_sent_o) begin
          w_d     = {fault_instr_i, 32'(fault_code_i), fault_pc_i, EventFault};
          len_d   = 3'd4;
          state_d = EvW1;
        end else if (sync_i) begin
          w_d[0]  = EventSync;
          w_d[1]  = sync_tag_i;
          len_d   = 3'd2;
          state_d = EvW1;
        end
      end
      EvW1: if (ev_ready) state_d = EvW2;
      EvW2: if (ev_ready) state_d = EvPay;
      EvPay: begin
        if (ev_ready) begin
          i_d = i_q + 1'b1;
          if (3'(i_q) + 3'd1 == len_q) state_d = EvIdle;
        end
      end
      default: state_d = EvIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= EvIdle;
      len_q   <= '0;
      i_q     <= '0;
      w_q     <= '0;
    end else begin
      state_q <= state_d;
      len_q   <= len_d;
      i_q     <= i_d;
      w_q     <= w_d;
    end
  end

  // One stream: the output unit's frame, else the event.
  assign out_valid_o = ou_valid_i || ev_valid;
  assign out_data_o  = ou_valid_i ? ou_data_i : ev_data;
  assign ou_ready_o  = out_ready_i;
  assign ev_ready    = out_ready_i && !ou_valid_i;

  // Frames held until taken (RESET may cut a DATA frame before its first
  // word, ftpu_output_unit); never both sources at once.
  `FTPU_ASSERT_STREAM(a_out_stream, clk_i, rst_ni && !soft_reset_i, out_valid_o,
                      out_ready_i, out_data_o)
  `FTPU_ASSERT(a_out_one_source, clk_i, rst_ni, !(ou_valid_i && ev_valid))
endmodule
