// SPDX-License-Identifier: Apache-2.0
// ftpu_link_loop: ftpu_link_rx and ftpu_link_tx side by side for the link
// tests (test harness only).
//
// With loop_i low both are driven from the ports. With loop_i high the
// receiver's two readers, the receive buffer and the CONTROL mailbox, feed
// the transmitter one whole frame at a time (when both have one, the other
// reader than last time goes first), every frame re-typed to RetypeTo (w2
// and the payload unchanged): a device that echoes each request as a
// response. rx_out_* and rx_ctl_* then only observe that hand-over
// (rx_out_ready_i, rx_ctl_ready_i and tx_in_* are ignored). Change loop_i
// only between frames, with both sides idle.
module ftpu_link_loop #(
  parameter int         Bytes    = 1,  // bytes a cycle each way: 1 or 4
  parameter int         Depth    = 8192,
  parameter logic [7:0] RetypeTo = ftpu_pkg::LINK_TYPE_RESPONSE
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  input  logic                       loop_i,
  // receiver
  input  logic                       rx_in_valid_i,
  output logic                       rx_in_ready_o,
  input  logic [8*Bytes-1:0]         rx_in_data_i,
  input  logic [$clog2(Bytes+1)-1:0] rx_in_count_i,
  output logic                       rx_out_valid_o,
  input  logic                       rx_out_ready_i,
  output logic [31:0]                rx_out_data_o,
  output logic [$clog2(Depth+1)-1:0] rx_credit_o,
  output logic                       rx_ctl_valid_o,
  input  logic                       rx_ctl_ready_i,
  output logic [31:0]                rx_ctl_data_o,
  output logic [15:0]                ack_seq_o,
  input  logic                       flush_i,
  output logic                       err_valid_o,
  input  logic                       err_ready_i,
  output logic [2:0]                 err_code_o,
  output logic [15:0]                err_seq_o,
  output logic [7:0]                 err_type_o,
  output logic [31:0]                frames_ok_o,
  output logic [31:0]                bytes_skipped_o,
  output logic [5*32-1:0]            err_count_o,
  output logic [31:0]                err_lost_o,
  // transmitter
  input  logic                       tx_in_valid_i,
  output logic                       tx_in_ready_o,
  input  logic [31:0]                tx_in_data_i,
  output logic                       tx_out_valid_o,
  input  logic                       tx_out_ready_i,
  output logic [8*Bytes-1:0]         tx_out_data_o,
  output logic                       tx_idle_o
);
  logic        rx_out_valid, rx_out_ready, tx_in_valid, tx_in_ready;
  logic        rx_ctl_valid, rx_ctl_ready;
  logic [31:0] rx_out_data, rx_ctl_data, tx_in_data;

  ftpu_link_rx #(.Bytes(Bytes), .Depth(Depth)) u_rx (
    .clk_i,
    .rst_ni,
    .in_valid_i     (rx_in_valid_i),
    .in_ready_o     (rx_in_ready_o),
    .in_data_i      (rx_in_data_i),
    .in_count_i     (rx_in_count_i),
    .out_valid_o    (rx_out_valid),
    .out_ready_i    (rx_out_ready),
    .out_data_o     (rx_out_data),
    .credit_o       (rx_credit_o),
    .ctl_valid_o    (rx_ctl_valid),
    .ctl_ready_i    (rx_ctl_ready),
    .ctl_data_o     (rx_ctl_data),
    .ack_seq_o,
    .flush_i,
    .err_valid_o,
    .err_ready_i,
    .err_code_o,
    .err_seq_o,
    .err_type_o,
    .frames_ok_o,
    .bytes_skipped_o,
    .err_count_o,
    .err_lost_o
  );

  ftpu_link_tx #(.Bytes(Bytes)) u_tx (
    .clk_i,
    .rst_ni,
    .in_valid_i (tx_in_valid),
    .in_ready_o (tx_in_ready),
    .in_data_i  (tx_in_data),
    .out_valid_o(tx_out_valid_o),
    .out_ready_i(tx_out_ready_i),
    .out_data_o (tx_out_data_o),
    .idle_o     (tx_idle_o)
  );

  // Where the next looped word falls in its frame.
  typedef enum logic [1:0] {
    StW1,   // a descriptor: re-typed
    StW2,   // a length word
    StPay   // payload words, left_q of them
  } state_e;
  state_e      state_q, state_d;
  logic [15:0] left_q, left_d;
  logic        hop;
  // The reader being looped (1: the mailbox). At a descriptor the one
  // preferred (sel_q) goes if it has a word, else the other if it has one;
  // sel_q follows the choice, so a word offered and not taken stays
  // offered, and turns to the other reader after each frame.
  logic        sel_q, sel_d, sel;
  logic        src_valid;
  logic [31:0] src_data;

  assign sel       = state_q != StW1                        ? sel_q :
                     (sel_q ? rx_ctl_valid : rx_out_valid)  ? sel_q :
                     (sel_q ? rx_out_valid : rx_ctl_valid)  ? !sel_q : sel_q;
  assign src_valid = sel ? rx_ctl_valid : rx_out_valid;
  assign src_data  = sel ? rx_ctl_data : rx_out_data;
  assign hop = loop_i && src_valid && tx_in_ready;

  always_comb begin
    state_d = state_q;
    left_d  = left_q;
    sel_d   = sel;
    unique case (state_q)
      // A descriptor: re-typed.
      StW1: if (hop) state_d = StW2;
      // A length word.
      StW2: if (hop) begin
        left_d  = src_data[15:0];
        state_d = src_data[15:0] == 16'd0 ? StW1 : StPay;
        if (src_data[15:0] == 16'd0) sel_d = !sel_q;
      end
      // Payload words.
      StPay: if (hop) begin
        left_d = left_q - 1'b1;
        if (left_q == 16'd1) begin
          state_d = StW1;
          sel_d   = !sel_q;
        end
      end
      default: state_d = StW1;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StW1;
      left_q  <= '0;
      sel_q   <= 1'b0;
    end else begin
      state_q <= state_d;
      left_q  <= left_d;
      sel_q   <= sel_d;
    end
  end

  assign rx_out_valid_o = rx_out_valid;
  assign rx_out_data_o  = rx_out_data;
  assign rx_ctl_valid_o = rx_ctl_valid;
  assign rx_ctl_data_o  = rx_ctl_data;
  assign rx_out_ready   = loop_i ? tx_in_ready && !sel : rx_out_ready_i;
  assign rx_ctl_ready   = loop_i ? tx_in_ready && sel : rx_ctl_ready_i;
  assign tx_in_valid    = loop_i ? src_valid : tx_in_valid_i;
  assign tx_in_data     = !loop_i ? tx_in_data_i :
                          state_q == StW1 ? {src_data[31:8], RetypeTo} : src_data;
  assign tx_in_ready_o  = tx_in_ready;
endmodule
