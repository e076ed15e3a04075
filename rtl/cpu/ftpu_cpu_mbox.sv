// SPDX-License-Identifier: Apache-2.0
// ftpu_cpu_mbox: the CONTROL mailbox as the control core sees it (MMIO
// 0x4000_0400, docs/firmware.md). The link receiver already holds one
// CONTROL frame (docs/protocol.md §6); this block lets the firmware pop its
// words and push the RESPONSE's words to the transmitter, one register
// access per word, with no buffer of its own.
//
//   +0x00 MBOX_STATUS  R  bit 0 RX_VALID: MBOX_RX has a word;
//                         bit 1 TX_FULL: the last TX word is not taken yet
//   +0x04 MBOX_RX      R  the next CONTROL frame word (w1, w2, payload) and
//                         pops it; 0 without popping when there is none
//   +0x08 MBOX_TX      W  a RESPONSE word (w1, then the payload)
//   +0x0C MBOX_TX_W2   W  the RESPONSE's w2: {credit_i now, wdata[15:0]}
//   +0x10 MBOX_CREDIT  R  credit_i: free receive-buffer words, saturated
//
// A TX or TX_W2 write while TX_FULL waits (tx_ready_o low) until the
// transmitter has taken the previous word; firmware that must not stall
// polls TX_FULL first.
//
// Register port (from ftpu_cpu): req_i marks an access that may act in this
// cycle (one cycle for reads, until tx_ready_o for TX writes); read data is
// valid on rdata_o in the next cycle.
//
// Link side: ctl_* is the receiver's CONTROL mailbox stream, rsp_* the
// RESPONSE words to the transmitter (held while rsp_valid_o && !rsp_ready_i).
module ftpu_cpu_mbox (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        req_i,
  input  logic        we_i,
  input  logic [4:2]  addr_i,
  input  logic [31:0] wdata_i,
  output logic [31:0] rdata_o,
  output logic        tx_ready_o,  // a TX write can be taken in this cycle
  input  logic        ctl_valid_i,
  output logic        ctl_ready_o,
  input  logic [31:0] ctl_data_i,
  output logic        rsp_valid_o,
  input  logic        rsp_ready_i,
  output logic [31:0] rsp_data_o,
  input  logic [15:0] credit_i
);
  localparam logic [2:0] RegStatus = 3'd0, RegRx = 3'd1, RegTx = 3'd2, RegTxW2 = 3'd3;
  localparam logic [2:0] RegCredit = 3'd4;

  logic [31:0] rdata_q, rdata_d, tx_q, tx_d;
  logic        tx_valid_q, tx_valid_d;
  logic        tx_write;

  assign tx_ready_o = !tx_valid_q;
  assign tx_write   = req_i && we_i && (addr_i == RegTx || addr_i == RegTxW2) && !tx_valid_q;

  always_comb begin
    rdata_d     = 32'd0;
    tx_d        = tx_q;
    tx_valid_d  = tx_valid_q && !rsp_ready_i;
    ctl_ready_o = 1'b0;
    if (tx_write) begin
      tx_d       = addr_i == RegTxW2 ? {credit_i, wdata_i[15:0]} : wdata_i;
      tx_valid_d = 1'b1;
    end
    if (req_i && !we_i) begin
      unique case (addr_i)
        RegStatus: rdata_d = {30'd0, tx_valid_q, ctl_valid_i};
        RegRx: begin
          rdata_d     = ctl_valid_i ? ctl_data_i : 32'd0;
          ctl_ready_o = ctl_valid_i;
        end
        RegCredit: rdata_d = {16'd0, credit_i};
        default:   rdata_d = 32'd0;
      endcase
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rdata_q    <= 32'd0;
      tx_q       <= 32'd0;
      tx_valid_q <= 1'b0;
    end else begin
      rdata_q    <= rdata_d;
      tx_q       <= tx_d;
      tx_valid_q <= tx_valid_d;
    end
  end

  assign rdata_o     = rdata_q;
  assign rsp_valid_o = tx_valid_q;
  assign rsp_data_o  = tx_q;
endmodule
