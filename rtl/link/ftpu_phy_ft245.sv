// SPDX-License-Identifier: Apache-2.0
// ftpu_phy_ft245: the device's byte stream over an FTDI FT232H / FT2232H
// (channel A) in 245 synchronous FIFO mode: 8 bits each way at up to 60
// MB/s on the pins (~40 MB/s over USB 2.0), half duplex on one data bus.
//
// Clocks: the chip's 60 MHz CLKOUT (ft_clk_i) clocks the pin side; it runs
// only once the host has put the chip into synchronous FIFO mode. The byte
// ports run on clk_i. Two ftpu_phy_async_fifo (Gray-coded pointers) cross
// between them: RxDepth bytes chip -> device, TxDepth bytes device -> chip.
// Resets: rst_ni and ft_rst_ni are asserted together (asynchronously — the
// pin side resets even while CLKOUT is stopped) and each released in step
// with its own clock (a reset synchronizer in the board top).
//
// Pin protocol (FT2232H datasheet, 245 synchronous FIFO timing; the chip
// samples RD#, WR#, OE#, D on the rising CLKOUT edge and changes RXF#,
// TXE#, D after it). All outputs here are registers; RXF#, TXE# and D are
// used in the cycle they arrive (about 9 ns of the 16.7 ns period left
// after the chip's 7.15 ns clock-to-output), because only then does the
// PHY know at the edge whether the byte in flight moved:
//
//   read:  a byte moves at an edge where RD# and RXF# are both low.
//          OE# goes low one cycle before RD# (the chip then drives D).
//          RD# is driven low for the next cycle only if RXF# was low at
//          this edge and the receive FIFO has room for that byte even if
//          this edge delivers one too (w_level <= RxDepth - 2): the byte
//          in flight always has a place, and RXF# going high at any edge
//          simply means no byte moved at that edge.
//
//     cycle   1   2   3   4   5   6   7
//     RXF#    L   L   L   L   H   L   L     chip
//     OE#     H   L   L   L   L   L   L     PHY
//     RD#     H   H   L   L   L   H   L     PHY
//     D       -   B0  B0  B1  xx  B2  B2    B0, B1, B2 move at the ends
//                                           of cycles 3, 4 and 7
//
//   write: a byte moves at an edge where WR# and TXE# are both low. The
//          PHY drives D whenever it is in the write state (never while OE#
//          is low, and only one idle cycle after OE# went high, so the
//          chip has released the bus); WR# is driven low for the next
//          cycle only if TXE# was low at this edge and a byte is ready. A
//          byte not taken (TXE# went high) stays on D until it is.
//
//     cycle   1   2   3   4   5   6   7   8
//     TXE#    L   L   L   H   H   L   L   L    chip
//     WR#     H   L   L   L   H   H   L   L    PHY
//     D       -   B0  B1  B2  B2  B2  B2  B3   B0, B1, B2, B3 move at the
//                                              ends of cycles 2, 3, 7, 8
//
// Direction: one direction at a time. When both have work, the PHY turns
// round after Burst bytes (or as soon as its direction has nothing to
// move); turning costs an idle cycle (bus released) and, towards reading,
// the OE# cycle.
//
// SIWU# (send immediate): FlushIdle cycles after the last byte written, if
// no more are waiting, SIWU# is strobed low for one cycle so the chip sends
// its partial USB packet at once rather than at the latency timer
// (FlushIdle = 0: SIWU# stays high; tie it high on the board then).
module ftpu_phy_ft245 #(
  parameter int RxDepth   = 16,  // powers of two, >= 4
  parameter int TxDepth   = 16,
  parameter int Burst     = 64,  // bytes before turning round, >= 1
  parameter int FlushIdle = 16   // 0: no SIWU# strobes
) (
  // core clock domain
  input  logic       clk_i,
  input  logic       rst_ni,
  // received bytes, to the device's in_* port
  output logic       out_valid_o,
  input  logic       out_ready_i,
  output logic [7:0] out_data_o,
  // bytes to send, from the device's out_* port
  input  logic       in_valid_i,
  output logic       in_ready_o,
  input  logic [7:0] in_data_i,
  // the chip's side, ft_clk_i domain
  input  logic       ft_clk_i,      // CLKOUT
  input  logic       ft_rst_ni,
  input  logic       ft_rxf_ni,
  input  logic       ft_txe_ni,
  output logic       ft_rd_no,
  output logic       ft_wr_no,
  output logic       ft_oe_no,
  output logic       ft_siwu_no,
  input  logic [7:0] ft_data_i,     // D[7:0], as read from the pins
  output logic [7:0] ft_data_o,     // D[7:0], driven when ft_data_oe_o
  output logic       ft_data_oe_o
);
  localparam int RxLevelW = $clog2(RxDepth) + 1;
  localparam int TxLevelW = $clog2(TxDepth) + 1;
  localparam int CntW = $clog2(Burst + 1);
  localparam int IdleW = $clog2(FlushIdle + 1);

  // ---- clock-domain crossings -------------------------------------------------------
  logic                rx_put;      // a byte moved from the chip at this edge
  logic [RxLevelW-1:0] rx_level;
  logic                rx_w_ready;
  logic                tx_valid, tx_pop;
  logic [7:0]          tx_data;
  logic [TxLevelW-1:0] tx_level;

  ftpu_phy_async_fifo #(.Width(8), .Depth(RxDepth)) u_rx_fifo (
    .wclk_i   (ft_clk_i),
    .wrst_ni  (ft_rst_ni),
    .w_valid_i(rx_put),
    .w_ready_o(rx_w_ready),
    .w_data_i (ft_data_i),
    .w_level_o(rx_level),
    .rclk_i   (clk_i),
    .rrst_ni  (rst_ni),
    .r_valid_o(out_valid_o),
    .r_ready_i(out_ready_i),
    .r_data_o (out_data_o)
  );

  ftpu_phy_async_fifo #(.Width(8), .Depth(TxDepth)) u_tx_fifo (
    .wclk_i   (clk_i),
    .wrst_ni  (rst_ni),
    .w_valid_i(in_valid_i),
    .w_ready_o(in_ready_o),
    .w_data_i (in_data_i),
    .w_level_o(tx_level),
    .rclk_i   (ft_clk_i),
    .rrst_ni  (ft_rst_ni),
    .r_valid_o(tx_valid),
    .r_ready_i(tx_pop),
    .r_data_o (tx_data)
  );

  // ---- pin side (ft_clk_i) ------------------------------------------------------------
  typedef enum logic [1:0] {
    StIdle,  // bus released (OE# high, not driving): the turnaround cycle
    StRead,  // OE# low, RD# low while bytes may move
    StWrite  // driving D, WR# low while bytes may move
  } state_e;
  state_e state_q, state_d;

  logic            oe_n_q, oe_n_d, rd_n_q, rd_n_d, wr_n_q, wr_n_d, doe_q, doe_d;
  logic [7:0]      dout_q, dout_d;      // the next byte for the chip
  logic            dvalid_q, dvalid_d;  // dout_q holds one
  logic [CntW-1:0] cnt_q, cnt_d;        // bytes moved since the last turn
  logic            last_rd_q, last_rd_d;  // the last direction served was read
  logic            tx_put;              // the chip took dout_q at this edge
  logic            rx_room, rx_go, tx_go, burst_done;

  // What moves at this edge (the inputs as the chip drives them now).
  assign rx_put = !rd_n_q && !ft_rxf_ni;
  assign tx_put = !wr_n_q && !ft_txe_ni;
  // dout_q refills from the FIFO when empty or taken.
  assign tx_pop   = tx_valid && (!dvalid_q || tx_put);
  assign dvalid_d = tx_pop || (dvalid_q && !tx_put);
  assign dout_d   = tx_pop ? tx_data : dout_q;
  // A byte may be read next cycle / written next cycle.
  assign rx_room = 32'(rx_level) <= RxDepth - 2;
  assign rx_go   = !ft_rxf_ni && rx_room;
  assign tx_go   = !ft_txe_ni && dvalid_d;
  assign cnt_d   = state_d != state_q ? '0 :
                   cnt_q + CntW'(cnt_q != CntW'(Burst) && (rx_put || tx_put));
  assign burst_done = cnt_q == CntW'(Burst);

  always_comb begin
    state_d   = state_q;
    oe_n_d    = 1'b1;
    rd_n_d    = 1'b1;
    wr_n_d    = 1'b1;
    doe_d     = 1'b0;
    last_rd_d = last_rd_q;
    unique case (state_q)
      // Nothing driven: start reading (OE# first) or writing (D and WR#
      // together); alternate when both could go.
      StIdle: begin
        if (rx_go && (!tx_go || !last_rd_q)) begin
          state_d   = StRead;
          oe_n_d    = 1'b0;
          last_rd_d = 1'b1;
        end else if (tx_go) begin
          state_d   = StWrite;
          doe_d     = 1'b1;
          wr_n_d    = 1'b0;
          last_rd_d = 1'b0;
        end
      end
      // OE# low: RD# low for the next cycle while a byte may move; wait
      // with RD# high while there is nothing else to do; else release.
      StRead: begin
        if (rx_go && !(tx_go && burst_done)) begin
          oe_n_d = 1'b0;
          rd_n_d = 1'b0;
        end else if (!tx_go) begin
          oe_n_d = 1'b0;
        end else begin
          state_d = StIdle;
        end
      end
      // Driving D: WR# low for the next cycle while a byte may move; keep
      // the bus while a byte waits for TXE# and nothing is to be read.
      StWrite: begin
        if (tx_go && !(rx_go && burst_done)) begin
          doe_d  = 1'b1;
          wr_n_d = 1'b0;
        end else if (dvalid_d && !rx_go) begin
          doe_d = 1'b1;
        end else begin
          state_d = StIdle;
        end
      end
      default: state_d = StIdle;
    endcase
  end

  always_ff @(posedge ft_clk_i or negedge ft_rst_ni) begin
    if (!ft_rst_ni) begin
      state_q   <= StIdle;
      oe_n_q    <= 1'b1;
      rd_n_q    <= 1'b1;
      wr_n_q    <= 1'b1;
      doe_q     <= 1'b0;
      dout_q    <= '0;
      dvalid_q  <= 1'b0;
      cnt_q     <= '0;
      last_rd_q <= 1'b0;
    end else begin
      state_q   <= state_d;
      oe_n_q    <= oe_n_d;
      rd_n_q    <= rd_n_d;
      wr_n_q    <= wr_n_d;
      doe_q     <= doe_d;
      dout_q    <= dout_d;
      dvalid_q  <= dvalid_d;
      cnt_q     <= cnt_d;
      last_rd_q <= last_rd_d;
    end
  end

  assign ft_oe_no     = oe_n_q;
  assign ft_rd_no     = rd_n_q;
  assign ft_wr_no     = wr_n_q;
  assign ft_data_oe_o = doe_q;
  assign ft_data_o    = dout_q;

  // ---- SIWU#: send the chip's partial packet once writing has stopped ---------------
  if (FlushIdle > 0) begin : g_siwu
    logic             sent_q;  // bytes written since the last strobe
    logic [IdleW-1:0] idle_q;  // cycles since a byte was written or waited
    logic             siwu_n_q;

    always_ff @(posedge ft_clk_i or negedge ft_rst_ni) begin
      if (!ft_rst_ni) begin
        sent_q   <= 1'b0;
        idle_q   <= '0;
        siwu_n_q <= 1'b1;
      end else begin
        siwu_n_q <= 1'b1;
        if (tx_put || dvalid_q || tx_valid) begin
          idle_q <= '0;
          if (tx_put) sent_q <= 1'b1;
        end else if (sent_q) begin
          if (idle_q == IdleW'(FlushIdle - 1)) begin
            siwu_n_q <= 1'b0;
            sent_q   <= 1'b0;
            idle_q   <= '0;
          end else begin
            idle_q <= idle_q + 1'b1;
          end
        end
      end
    end
    assign ft_siwu_no = siwu_n_q;
  end else begin : g_no_siwu
    assign ft_siwu_no = 1'b1;
  end

  // The read decision keeps room for the byte in flight, so rx_w_ready is
  // always high when rx_put is; tx_level is not needed.
  logic unused;
  assign unused = ^{rx_w_ready, tx_level};
endmodule
