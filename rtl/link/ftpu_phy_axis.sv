// SPDX-License-Identifier: Apache-2.0
// ftpu_phy_axis: the device's byte stream over the Xilinx XDMA IP's
// AXI4-Stream channels (streaming mode, one H2C and one C2H channel; the
// host writes /dev/xdma0_h2c_0 and reads /dev/xdma0_c2h_0).
//
//   s_axis (H2C) -> [async FIFO] -> unpack -> out_*  (device in_*)
//   m_axis (C2H) <- [async FIFO] <- pack   <- in_*   (device out_*)
//
// H2C: every beat's bytes whose tkeep bit is set go out on out_*, lowest
// lane first, one byte per clk_i cycle; any tkeep pattern is taken, a beat
// with tkeep all zero is dropped. tlast is ignored: the bytes are one
// stream (frames carry their own boundaries). A new beat is taken in the
// cycle its predecessor's last byte leaves, so a stream of full beats runs
// at one byte per cycle.
//
// C2H: bytes are packed into beats, lane 0 first. A full beat leaves when
// the next byte arrives; when the device offers no byte for FlushIdle
// cycles, the beat being filled (full or partial) leaves with tlast set and
// tkeep covering its bytes (contiguous from lane 0), so that the host's
// read() returns with what the device has sent. tlast is therefore set on
// the last beat before every pause, never inside a burst, and tkeep is all
// ones on every beat without tlast (as XDMA's C2H channel requires). The
// host must accept short reads. With Async = 0, in_ready_o depends on
// m_axis_tready_i when the beat being filled is full (a combinational path
// from a ready to a ready only).
//
// Clocks: Async = 0 runs everything on clk_i (the board clocks the device
// from axi_aclk; aclk_i and arst_ni are unused). Async = 1 puts an
// ftpu_phy_async_fifo of FifoDepth beats in each direction between aclk_i
// (the XDMA's axi_aclk, the s_axis / m_axis side) and clk_i (the byte
// side); packing and unpacking stay on clk_i. Both resets are asserted
// together (ftpu_phy_async_fifo): derive rst_ni from axi_aresetn too, so
// that a PCIe link reset resets both sides.
module ftpu_phy_axis #(
  parameter int DataW     = 64,  // 8 * a power of two
  parameter int Async     = 0,   // 1: aclk_i and clk_i unrelated
  parameter int FifoDepth = 16,  // beats per direction when Async
  parameter int FlushIdle = 8,   // >= 1
  localparam int KeepW = DataW / 8
) (
  // byte side (clk_i)
  input  logic             clk_i,
  input  logic             rst_ni,
  // received bytes, to the device's in_* port
  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [7:0]       out_data_o,
  // bytes to send, from the device's out_* port
  input  logic             in_valid_i,
  output logic             in_ready_o,
  input  logic [7:0]       in_data_i,
  // AXI side (aclk_i when Async, else clk_i)
  input  logic             aclk_i,
  input  logic             arst_ni,
  // H2C
  input  logic             s_axis_tvalid_i,
  output logic             s_axis_tready_o,
  input  logic [DataW-1:0] s_axis_tdata_i,
  input  logic [KeepW-1:0] s_axis_tkeep_i,
  input  logic             s_axis_tlast_i,
  // C2H
  output logic             m_axis_tvalid_o,
  input  logic             m_axis_tready_i,
  output logic [DataW-1:0] m_axis_tdata_o,
  output logic [KeepW-1:0] m_axis_tkeep_o,
  output logic             m_axis_tlast_o
);
  localparam int LaneW = $clog2(KeepW);
  localparam int CntW = $clog2(KeepW + 1);
  localparam int IdleW = $clog2(FlushIdle + 1);
  localparam int H2cW = DataW + KeepW;      // {tkeep, tdata}
  localparam int C2hW = DataW + KeepW + 1;  // {tlast, tkeep, tdata}

  if (KeepW < 1 || KeepW != 2 ** LaneW || DataW != 8 * KeepW) begin : g_width_check
    $error("ftpu_phy_axis: DataW must be 8 times a power of two");
  end
  if (FlushIdle < 1) begin : g_flush_check
    $error("ftpu_phy_axis: FlushIdle must be at least 1");
  end

  // ---- H2C beats, on clk_i ----------------------------------------------------------
  logic            h2c_valid, h2c_ready;
  logic [H2cW-1:0] h2c_beat;
  // ---- C2H beats, on clk_i ----------------------------------------------------------
  logic            c2h_valid, c2h_ready;
  logic [C2hW-1:0] c2h_beat;

  if (Async != 0) begin : g_async
    logic [$clog2(FifoDepth):0] h2c_level, c2h_level;

    ftpu_phy_async_fifo #(.Width(H2cW), .Depth(FifoDepth)) u_h2c_fifo (
      .wclk_i   (aclk_i),
      .wrst_ni  (arst_ni),
      .w_valid_i(s_axis_tvalid_i),
      .w_ready_o(s_axis_tready_o),
      .w_data_i ({s_axis_tkeep_i, s_axis_tdata_i}),
      .w_level_o(h2c_level),
      .rclk_i   (clk_i),
      .rrst_ni  (rst_ni),
      .r_valid_o(h2c_valid),
      .r_ready_i(h2c_ready),
      .r_data_o (h2c_beat)
    );

    ftpu_phy_async_fifo #(.Width(C2hW), .Depth(FifoDepth)) u_c2h_fifo (
      .wclk_i   (clk_i),
      .wrst_ni  (rst_ni),
      .w_valid_i(c2h_valid),
      .w_ready_o(c2h_ready),
      .w_data_i (c2h_beat),
      .w_level_o(c2h_level),
      .rclk_i   (aclk_i),
      .rrst_ni  (arst_ni),
      .r_valid_o(m_axis_tvalid_o),
      .r_ready_i(m_axis_tready_i),
      .r_data_o ({m_axis_tlast_o, m_axis_tkeep_o, m_axis_tdata_o})
    );

    logic unused_async;
    assign unused_async = ^{h2c_level, c2h_level, s_axis_tlast_i};
  end else begin : g_sync
    // The unpacker is the H2C register; the C2H beat register below is
    // the output register.
    logic            c2h_valid_q;
    logic [C2hW-1:0] c2h_beat_q;

    assign h2c_valid       = s_axis_tvalid_i;
    assign s_axis_tready_o = h2c_ready;
    assign h2c_beat        = {s_axis_tkeep_i, s_axis_tdata_i};
    assign c2h_ready       = !c2h_valid_q || m_axis_tready_i;

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        c2h_valid_q <= 1'b0;
        c2h_beat_q  <= '0;
      end else if (c2h_ready) begin
        c2h_valid_q <= c2h_valid;
        if (c2h_valid) c2h_beat_q <= c2h_beat;
      end
    end
    assign m_axis_tvalid_o = c2h_valid_q;
    assign {m_axis_tlast_o, m_axis_tkeep_o, m_axis_tdata_o} = c2h_beat_q;

    logic unused_sync;
    assign unused_sync = ^{aclk_i, arst_ni, s_axis_tlast_i};
  end

  // ---- unpack: beat -> bytes --------------------------------------------------------
  logic [DataW-1:0] ubeat_q;
  logic [KeepW-1:0] ukeep_q;   // lanes still to send
  logic [KeepW-1:0] ulow;      // the lowest of them, one-hot
  logic             utake;

  assign ulow        = ukeep_q & (~ukeep_q + 1'b1);
  assign out_valid_o = ukeep_q != '0;
  assign utake       = out_valid_o && out_ready_i;
  // The next beat comes in as the last lane of this one leaves.
  assign h2c_ready   = !out_valid_o || (utake && ukeep_q == ulow);

  always_comb begin
    out_data_o = '0;
    for (int l = 0; l < KeepW; l++) begin
      out_data_o = out_data_o | ({8{ulow[l]}} & ubeat_q[8*l +: 8]);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ubeat_q <= '0;
      ukeep_q <= '0;
    end else if (h2c_valid && h2c_ready) begin
      ubeat_q <= h2c_beat[DataW-1:0];
      ukeep_q <= h2c_beat[H2cW-1:DataW];
    end else if (utake) begin
      ukeep_q <= ukeep_q & ~ulow;
    end
  end

  // ---- pack: bytes -> beats ----------------------------------------------------------
  logic [DataW-1:0] pbeat_q, pbeat_d;  // lanes 0 .. pcnt_q - 1 filled
  logic [CntW-1:0]  pcnt_q, pcnt_d, plane;  // plane: where a byte goes
  logic [IdleW-1:0] pidle_q;           // cycles without a byte, up to FlushIdle
  logic             ptake, pfull, pflush, pmove;
  logic [KeepW-1:0] pkeep;

  assign pfull  = pcnt_q == CntW'(KeepW);
  assign pflush = pcnt_q != '0 && pidle_q == IdleW'(FlushIdle);
  // The held beat leaves when a byte arrives after a full beat (no tlast:
  // the new byte starts the next beat), or at the flush when no byte
  // arrives (tlast). A byte that arrives at the flush of a partial beat
  // joins it instead (the device is not idle after all). A byte is
  // refused only when a full beat cannot leave.
  assign in_ready_o = !pfull || c2h_ready;
  assign ptake      = in_valid_i && in_ready_o;
  assign c2h_valid  = ptake ? pfull : pflush;
  assign pmove      = c2h_valid && c2h_ready;
  assign c2h_beat   = {!ptake, pkeep, pbeat_q};
  assign plane      = pmove ? '0 : pcnt_q;

  always_comb begin
    for (int l = 0; l < KeepW; l++) pkeep[l] = 32'(pcnt_q) > l;
  end

  always_comb begin
    pbeat_d = pbeat_q;
    pcnt_d  = pmove ? '0 : pcnt_q;
    if (ptake) begin
      for (int l = 0; l < KeepW; l++) begin
        if (32'(plane) == l) pbeat_d[8*l +: 8] = in_data_i;
      end
      pcnt_d = plane + 1'b1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pbeat_q <= '0;
      pcnt_q  <= '0;
      pidle_q <= '0;
    end else begin
      pbeat_q <= pbeat_d;
      pcnt_q  <= pcnt_d;
      if (ptake || pcnt_q == '0) pidle_q <= '0;
      else if (pidle_q != IdleW'(FlushIdle)) pidle_q <= pidle_q + 1'b1;
    end
  end
endmodule
