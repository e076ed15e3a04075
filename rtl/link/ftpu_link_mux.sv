// SPDX-License-Identifier: Apache-2.0
// ftpu_link_mux: the device's frame sources onto the one transmitter.
//
// Each source offers whole frames as words (w1, w2, len payload words, the
// format ftpu_link_tx takes). The mux picks a source between frames —
// fixed priority: RESPONSE (0), ERROR (1), program output DATA/EVENT (2) —
// and passes that frame through to its end. As a frame's header words pass,
// it fills in the fields only the link knows at that moment (docs/
// protocol.md §5, §6): the credit in w2[31:16] (free receive-buffer words,
// saturated) for every frame, and the acknowledged seq in w1[31:16] for
// every frame but a RESPONSE, which echoes its request's seq.
module ftpu_link_mux (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [15:0] credit_i,
  input  logic [15:0] ack_seq_i,
  input  logic [2:0]  in_valid_i,
  output logic [2:0]  in_ready_o,
  input  logic [95:0] in_data_i,    // source s at [32*s +: 32]
  output logic        out_valid_o,
  input  logic        out_ready_i,
  output logic [31:0] out_data_o,
  output logic        busy_o        // inside a frame
);
  typedef enum logic [1:0] {StPick, StW2, StPay} state_e;
  state_e      state_q;
  logic [1:0]  sel_q, pick;
  logic [15:0] left_q;

  always_comb begin
    if (in_valid_i[0])      pick = 2'd0;
    else if (in_valid_i[1]) pick = 2'd1;
    else                    pick = 2'd2;
  end

  logic [1:0]  sel;
  logic [31:0] word;
  assign sel  = state_q == StPick ? pick : sel_q;
  assign word = in_data_i[32*sel +: 32];

  always_comb begin
    out_valid_o = in_valid_i[sel] && (state_q != StPay || left_q != 16'd0);
    unique case (state_q)
      StPick:  out_data_o = sel == 2'd0 ? word : {ack_seq_i, word[15:0]};
      StW2:    out_data_o = {credit_i, word[15:0]};
      default: out_data_o = word;
    endcase
    in_ready_o = '0;
    in_ready_o[sel] = out_ready_i && (state_q != StPay || left_q != 16'd0);
  end

  logic fire;
  assign fire = out_valid_o && out_ready_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StPick;
      sel_q   <= '0;
      left_q  <= '0;
    end else if (fire) begin
      unique case (state_q)
        StPick: begin
          sel_q   <= pick;
          state_q <= StW2;
        end
        StW2: begin
          left_q  <= word[15:0];
          state_q <= word[15:0] == 16'd0 ? StPick : StPay;
        end
        default: begin
          left_q <= left_q - 16'd1;
          if (left_q == 16'd1) state_q <= StPick;
        end
      endcase
    end
  end

  assign busy_o = state_q != StPick;
endmodule
