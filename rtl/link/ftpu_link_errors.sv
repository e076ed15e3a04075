// SPDX-License-Identifier: Apache-2.0
// ftpu_link_errors: turns the receiver's error reports into ERROR frames
// (docs/protocol.md §7.6): payload {code, seq, type}, seq and type as the
// receiver reports them (0xFFFF and 0xFF when unreadable).
//
// Reports wait in a FIFO of Depth entries while frames go out; the receiver
// holds one more in its report register and counts what it cannot hand
// over (ftpu_link_rx err_lost_o). An ERROR frame is 32 bytes on the link,
// and a receiver error needs at least 16 bytes of input, so only a burst of
// errors on a link as fast as the device's output can lose reports.
// Output: frame words w1 = {seq 0, flags 0, type ERROR}, w2 = {credit 0,
// len 3}, code, seq, type; ftpu_top fills in seq and credit.
module ftpu_link_errors #(
  parameter int Depth = 4
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        err_valid_i,
  output logic        err_ready_o,
  input  logic [2:0]  err_code_i,
  input  logic [15:0] err_seq_i,
  input  logic [7:0]  err_type_i,
  output logic        out_valid_o,
  input  logic        out_ready_i,
  output logic [31:0] out_data_o,
  output logic        busy_o
);
  localparam logic [7:0] TypeError = ftpu_pkg::LINK_TYPE_ERROR;
  localparam int PtrW = $clog2(Depth) + 1;

  logic [26:0]     fifo_q [Depth];
  logic [PtrW-1:0] wr_q, rd_q;
  logic            empty, full;
  assign empty = wr_q == rd_q;
  assign full  = wr_q[PtrW-2:0] == rd_q[PtrW-2:0] && wr_q[PtrW-1] != rd_q[PtrW-1];
  assign err_ready_o = !full;

  logic [2:0] word_q;  // 0 w1, 1 w2, 2..4 payload
  logic [26:0] head;
  assign head = fifo_q[rd_q[PtrW-2:0]];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_q   <= '0;
      rd_q   <= '0;
      word_q <= '0;
    end else begin
      if (err_valid_i && !full) begin
        fifo_q[wr_q[PtrW-2:0]] <= {err_code_i, err_seq_i, err_type_i};
        wr_q <= wr_q + 1'b1;
      end
      if (!empty && out_ready_i) begin
        if (word_q == 3'd4) begin
          word_q <= '0;
          rd_q   <= rd_q + 1'b1;
        end else begin
          word_q <= word_q + 1'b1;
        end
      end
    end
  end

  assign out_valid_o = !empty;
  assign busy_o = !empty;
  always_comb begin
    unique case (word_q)
      3'd0:    out_data_o = {16'd0, 8'd0, TypeError};
      3'd1:    out_data_o = {16'd0, 16'd3};
      3'd2:    out_data_o = 32'(head[26:24]);
      3'd3:    out_data_o = 32'(head[23:8]);
      default: out_data_o = 32'(head[7:0]);
    endcase
  end
endmodule
