// SPDX-License-Identifier: Apache-2.0
// ftpu_phy_async_fifo: a first-word-fall-through FIFO between two unrelated
// clocks, for the PHY adapters whose pins run on a clock of their own (the
// FT245's 60 MHz CLKOUT, the XDMA's axi_aclk) while the device runs on
// clk_i. Reusable for any width.
//
// The classic dual-clock FIFO: each side keeps a binary pointer (one bit
// wider than the address, so full and empty differ) and its Gray-coded
// copy in a register; the Gray copy crosses to the other side through
// SyncStages flip-flops. A Gray pointer changes one bit per step, so a
// synchronizer caught mid-change yields either the old or the new value,
// both of which are safe: the writer may see the FIFO fuller, the reader
// emptier, than it is — never the other way. The memory has one write port
// (wclk_i) and an asynchronous read (r_data_o = mem[read pointer]): LUT RAM
// on Xilinx and ECP5, flip-flops on iCE40; keep Depth small there. An entry
// is written at least SyncStages + 1 read clocks before the reader can see
// it, so the read is stable.
//
// Timing: a word written at a wclk_i edge is visible (r_valid_o) after one
// wclk_i edge and SyncStages rclk_i edges; space freed by a read reaches
// the writer likewise. Full throughput (one word per clock on both sides)
// needs Depth >= 2 * (SyncStages + 2) or so to cover that round trip.
//
// w_level_o: words in the FIFO as the writer sees them (never fewer than
// are really there), for writers that must know free space ahead of time
// (ftpu_phy_ft245 reads a byte from the chip before it is offered here).
//
// Resets: wrst_ni and rrst_ni (asynchronous assertion) must be asserted
// together — resetting one side alone corrupts the pointers — and each
// released synchronously to its own clock. A side whose clock is stopped
// is still reset by its asynchronous reset.
module ftpu_phy_async_fifo #(
  parameter int Width      = 8,
  parameter int Depth      = 16,  // a power of two, >= 4
  parameter int SyncStages = 2,
  localparam int AddrW = $clog2(Depth),
  localparam int PtrW  = AddrW + 1
) (
  // write side
  input  logic             wclk_i,
  input  logic             wrst_ni,
  input  logic             w_valid_i,
  output logic             w_ready_o,    // not full
  input  logic [Width-1:0] w_data_i,
  output logic [PtrW-1:0]  w_level_o,    // words held, as the writer sees
  // read side
  input  logic             rclk_i,
  input  logic             rrst_ni,
  output logic             r_valid_o,    // not empty
  input  logic             r_ready_i,
  output logic [Width-1:0] r_data_o
);
  if (Depth != 2 ** AddrW || Depth < 4) begin : g_depth_check
    $error("ftpu_phy_async_fifo: Depth must be a power of two, at least 4");
  end
  if (SyncStages < 2) begin : g_sync_check
    $error("ftpu_phy_async_fifo: SyncStages must be at least 2");
  end

  logic [Width-1:0] mem_q [Depth];

  // ---- write side -------------------------------------------------------------
  logic [PtrW-1:0] wbin_q, wbin_d, wgray_q, wq_rgray, wq_rbin;
  logic            w_fire;

  assign w_fire = w_valid_i && w_ready_o;
  assign wbin_d = wbin_q + PtrW'(w_fire);
  // Full: the write pointer is one lap (Depth) ahead of the read pointer,
  // which in Gray code is the read pointer with its top two bits inverted.
  assign w_ready_o = wgray_q != {~wq_rgray[PtrW-1:PtrW-2], wq_rgray[PtrW-3:0]};

  always_comb begin
    wq_rbin[PtrW-1] = wq_rgray[PtrW-1];
    for (int i = PtrW - 2; i >= 0; i--) wq_rbin[i] = wq_rbin[i+1] ^ wq_rgray[i];
  end
  assign w_level_o = wbin_q - wq_rbin;

  always_ff @(posedge wclk_i or negedge wrst_ni) begin
    if (!wrst_ni) begin
      wbin_q  <= '0;
      wgray_q <= '0;
    end else begin
      wbin_q  <= wbin_d;
      wgray_q <= wbin_d ^ (wbin_d >> 1);
    end
  end

  always_ff @(posedge wclk_i) begin
    if (w_fire) mem_q[wbin_q[AddrW-1:0]] <= w_data_i;
  end

  // ---- read side --------------------------------------------------------------
  logic [PtrW-1:0] rbin_q, rbin_d, rgray_q, rq_wgray;

  assign r_valid_o = rgray_q != rq_wgray;
  assign rbin_d    = rbin_q + PtrW'(r_valid_o && r_ready_i);
  assign r_data_o  = mem_q[rbin_q[AddrW-1:0]];

  always_ff @(posedge rclk_i or negedge rrst_ni) begin
    if (!rrst_ni) begin
      rbin_q  <= '0;
      rgray_q <= '0;
    end else begin
      rbin_q  <= rbin_d;
      rgray_q <= rbin_d ^ (rbin_d >> 1);
    end
  end

  // ---- pointer synchronizers ----------------------------------------------------
  // Stage s at [s*PtrW +: PtrW]: stage 0 the first flip-flops, the last
  // stage the one to use.
  localparam int SyncW = SyncStages * PtrW;
  logic [SyncW-1:0] w2r_q;  // write pointer into rclk_i
  logic [SyncW-1:0] r2w_q;  // read pointer into wclk_i

  logic [PtrW-1:0] w2r_in, r2w_in;  // what the first stages catch

  always_ff @(posedge rclk_i or negedge rrst_ni) begin
    if (!rrst_ni) w2r_q <= '0;
    else          w2r_q <= {w2r_q[SyncW-PtrW-1:0], w2r_in};
  end
  assign rq_wgray = w2r_q[SyncW-1 -: PtrW];

  always_ff @(posedge wclk_i or negedge wrst_ni) begin
    if (!wrst_ni) r2w_q <= '0;
    else          r2w_q <= {r2w_q[SyncW-PtrW-1:0], r2w_in};
  end
  assign wq_rgray = r2w_q[SyncW-1 -: PtrW];

`ifdef FTPU_CDC_JITTER
  // Simulation only (the Verilated test models define FTPU_CDC_JITTER): a
  // first stage that samples a pointer which changed at the other clock's
  // last edge, when that edge came after this clock's previous one, may
  // catch each changed bit at its old or its new value — the flip-flop
  // that samples a changing input. A Gray pointer then arrives as the old
  // or the new pointer, both safe; a pointer with several bits changing at
  // once (binary) would arrive as a third value, and the tests would see
  // bytes lost or invented.
  logic [PtrW-1:0] wgray_prev_q, rgray_prev_q, w2r_seen_q, r2w_seen_q;
  logic [PtrW-1:0] w2r_pick_q, r2w_pick_q;  // random: take the old value

  always_ff @(posedge wclk_i or negedge wrst_ni) begin
    if (!wrst_ni) begin
      wgray_prev_q <= '0;
      r2w_seen_q   <= '0;
    end else begin
      wgray_prev_q <= wgray_q;
      r2w_seen_q   <= rgray_q;
    end
  end
  always_ff @(posedge rclk_i or negedge rrst_ni) begin
    if (!rrst_ni) begin
      rgray_prev_q <= '0;
      w2r_seen_q   <= '0;
    end else begin
      rgray_prev_q <= rgray_q;
      w2r_seen_q   <= wgray_q;
    end
  end
  always_ff @(posedge rclk_i) w2r_pick_q <= PtrW'($urandom);
  always_ff @(posedge wclk_i) r2w_pick_q <= PtrW'($urandom);

  assign w2r_in = wgray_q ^ (w2r_pick_q & (wgray_q ^ wgray_prev_q) &
                             {PtrW{wgray_q != w2r_seen_q}});
  assign r2w_in = rgray_q ^ (r2w_pick_q & (rgray_q ^ rgray_prev_q) &
                             {PtrW{rgray_q != r2w_seen_q}});
`else
  assign w2r_in = wgray_q;
  assign r2w_in = rgray_q;
`endif

`ifdef FTPU_FORMAL_ASYNC_FIFO
  // The formal properties (formal/async_fifo.sby; make formal).
  `include "async_fifo.svh"
`endif
endmodule
