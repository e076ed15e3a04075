// SPDX-License-Identifier: Apache-2.0
// ftpu_matrix_unit: the device's matrix unit. Owns an ftpu_systolic_array
// and executes LOAD_WEIGHTS and MATMUL (docs/isa.md), already decoded and
// range-checked upstream, against the weight memory (WM), the unified buffer
// (UB) and the accumulators (ACC). docs/matrix_unit.md has the schedule.
//
// Commands (cmd_valid_i / cmd_ready_o, fields held while valid), with the
// result of executing them one after another:
//   cmd_op_i = OpLoadWeights: WM rows [cmd_wm_addr_i, +Rows) go to the
//     array's free weight buffer (the one MATMUL does not use).
//   cmd_op_i = OpMatmul: with cmd_swap_i the most recently loaded tile
//     becomes current first; then for i in 0..cmd_n_i-1 (cmd_n_i >= 1):
//     ACC[acc+i] = (cmd_accumulate_i ? ACC[acc+i] : +0) + UB[ub+i] * tile,
//     the ACC value entering at the column tops (the k order is sequential).
//
// Memory ports: a request in cycle c, its data in cycle c+1 (block RAM with
// an output register, read-first when read and written in one cycle). The
// memories are assumed always ready; the core top arbitrates later.
//
// Execution: one loader (a row of WM per cycle into the array's weight
// port) and one streamer (a UB vector, and with ACCUMULATE an ACC vector,
// per cycle into the array) run side by side; commands dispatch in order,
// one per cycle, a LOAD_WEIGHTS as soon as the loader issues the previous
// load's last row, a MATMUL as soon as the streamer issues the previous
// MATMUL's last vector. So the k-outer, n-inner pairs (LOAD_WEIGHTS,
// MATMUL SWAP [ACCUMULATE]) of a tiled GEMM run at the array's stall-free
// schedule (docs/array.md): one fold every max(n, Rows) cycles.
//
// Hazards, all resolved in hardware:
// - Weight buffers: a LOAD_WEIGHTS writes the buffer the last dispatched
//   MATMUL does not use; every earlier user of that buffer has then issued
//   all its vectors (one streamer, in order), and the load's first row is
//   presented at least one cycle after the dispatch, so the rule of
//   docs/array.md holds for RowDelay 1. A MATMUL dispatches after its
//   LOAD_WEIGHTS, so its vectors follow the load's first row (RowDelay 1:
//   from the same cycle on, which suffices). A second LOAD_WEIGHTS before
//   a SWAP refills the same free buffer after the first one's last row.
// - ACC: each dispatched MATMUL holds an in-flight entry (InFlight of them)
//   with the ACC rows it has not yet written back, [wptr, end). Results
//   leave the array in order, so the oldest entry names the row of each
//   result. An accumulating MATMUL issues row x only when no older entry
//   holds x (input_stall_o); the read then follows the write by >= 1 cycle.
//
// Only RowDelay 1 (AddCuts = 0, the simulated device) is implemented: with
// RowDelay D > 1 the loads would have to be written D cycles apart on
// overlapping phases. Other values stop elaboration with $error.
//
// Performance events, one per cycle: mac_o (a vector enters the array:
// Rows*Cols MACs), weight_stall_o (the streamer idles because the next
// command, a LOAD_WEIGHTS, waits for the weight port: tiles cannot keep
// up with MATMULs shorter than Rows vectors), input_stall_o (a MATMUL waits for ACC rows an earlier
// MATMUL has not yet written back). busy_o: a command is executing or
// results are in flight.
module ftpu_matrix_unit #(
  parameter int Rows = 16,
  parameter int Cols = 16,
  parameter int unsigned AddCuts = 32'b000,  // see ftpu_pe; only 0 supported
  parameter int UbAddrW = 12,
  parameter int AccAddrW = 12,
  parameter int WmAddrW = 14,
  parameter int InFlight = 4,               // MATMULs with results pending
  localparam int RowIdxW = (Rows > 1) ? $clog2(Rows) : 1,
  localparam int EntW = (InFlight > 1) ? $clog2(InFlight) : 1,
  localparam int AccW1 = AccAddrW + 1
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // commands
  input  logic                 cmd_valid_i,
  output logic                 cmd_ready_o,
  input  logic                 cmd_op_i,        // OpLoadWeights / OpMatmul
  input  logic [WmAddrW-1:0]   cmd_wm_addr_i,
  input  logic [UbAddrW-1:0]   cmd_ub_addr_i,
  input  logic [AccAddrW-1:0]  cmd_acc_addr_i,
  input  logic [15:0]          cmd_n_i,
  input  logic                 cmd_accumulate_i,
  input  logic                 cmd_swap_i,
  // weight memory read
  output logic                 wm_rd_o,
  output logic [WmAddrW-1:0]   wm_addr_o,
  input  logic [Cols*16-1:0]   wm_data_i,
  // unified buffer read
  output logic                 ub_rd_o,
  output logic [UbAddrW-1:0]   ub_addr_o,
  input  logic [Rows*16-1:0]   ub_data_i,
  // accumulator read (ACCUMULATE) and write
  output logic                 acc_rd_o,
  output logic [AccAddrW-1:0]  acc_rd_addr_o,
  input  logic [Cols*32-1:0]   acc_data_i,
  output logic                 acc_wr_o,
  output logic [AccAddrW-1:0]  acc_wr_addr_o,
  output logic [Cols*32-1:0]   acc_wr_data_o,
  // status and performance events
  output logic                 busy_o,
  output logic                 mac_o,
  output logic                 weight_stall_o,
  output logic                 input_stall_o
);
  localparam logic OpLoadWeights = 1'b0;
  localparam logic OpMatmul = 1'b1;

  if (Rows != Cols) begin : g_bad_shape
    $error("ftpu_matrix_unit: the device needs a square array (Rows == Cols)");
  end
  if (AddCuts != 0) begin : g_bad_cuts
    $error("ftpu_matrix_unit: only AddCuts = 0 (RowDelay 1) is implemented");
  end

  // ---- state -------------------------------------------------------------
  logic                  cur_q, cur_d;          // buffer MATMUL uses
  // loader: issues WM row reads, one per cycle while busy
  logic                  ld_busy_q, ld_busy_d;
  logic                  ld_buf_q, ld_buf_d;
  logic [RowIdxW-1:0]    ld_row_q, ld_row_d;
  logic [WmAddrW-1:0]    ld_addr_q, ld_addr_d;
  // streamer: issues UB (and ACC) reads for the current MATMUL
  logic                  st_busy_q, st_busy_d;
  logic                  st_buf_q, st_buf_d;
  logic                  st_accum_q, st_accum_d;
  logic [UbAddrW-1:0]    st_ub_q, st_ub_d;
  logic [AccAddrW-1:0]   st_acc_q, st_acc_d;
  logic [15:0]           st_left_q, st_left_d;
  logic [EntW-1:0]       st_ent_q, st_ent_d;
  // presentation stage: the memories' data arrive with these
  logic                  l_valid_q, l_valid_d;
  logic                  l_buf_q, l_buf_d;
  logic [RowIdxW-1:0]    l_row_q, l_row_d;
  logic                  p_valid_q, p_valid_d;
  logic                  p_wsel_q, p_wsel_d;
  logic                  p_accum_q, p_accum_d;
  // in-flight MATMULs: ACC rows [wptr, end) not yet written back; a ring,
  // oldest at hd, next free at tl
  logic [InFlight-1:0]       ent_valid_q, ent_valid_d;
  logic [InFlight*AccW1-1:0] ent_wptr_q, ent_wptr_d;
  logic [InFlight*AccW1-1:0] ent_end_q, ent_end_d;
  logic [EntW-1:0]           hd_q, hd_d, tl_q, tl_d;

  // ---- the array ---------------------------------------------------------
  logic               arr_out_valid;
  logic [Cols*32-1:0] arr_out_psum;

  ftpu_systolic_array #(.Rows(Rows), .Cols(Cols), .AddCuts(AddCuts)) u_array (
    .clk_i,
    .rst_ni,
    .in_valid_i  (p_valid_q),
    .in_wsel_i   (p_wsel_q),
    .in_act_i    (ub_data_i),
    .in_psum_i   (p_accum_q ? acc_data_i : '0),
    .wl_valid_i  (l_valid_q),
    .wl_buf_i    (l_buf_q),
    .wl_row_i    (l_row_q),
    .wl_data_i   (wm_data_i),
    .out_valid_o (arr_out_valid),
    .out_psum_o  (arr_out_psum)
  );

  // ---- decisions of this cycle -------------------------------------------
  logic hazard, st_issue, st_last, ld_last, ld_free, st_free;
  logic ld_accept, mm_accept;

  // Does an older in-flight MATMUL still owe ACC row st_acc_q?
  always_comb begin
    hazard = 1'b0;
    for (int e = 0; e < InFlight; e++) begin
      if (ent_valid_q[e] && !(st_busy_q && st_ent_q == EntW'(e)) &&
          {1'b0, st_acc_q} >= ent_wptr_q[e*AccW1 +: AccW1] &&
          {1'b0, st_acc_q} < ent_end_q[e*AccW1 +: AccW1]) begin
        hazard = 1'b1;
      end
    end
  end

  // A MATMUL never waits for its tile inside the streamer: its LOAD_WEIGHTS
  // dispatched at least a cycle earlier, and the loader (never stalled:
  // memories always ready) issued row 0 the cycle after that; RowDelay 1
  // lets vectors follow from the cycle of row 0 on. When the weight port
  // gets arbitrated, a wait for row 0 of a load into st_buf_q goes here.
  assign st_issue = st_busy_q && !(st_accum_q && hazard);
  assign st_last = st_issue && st_left_q == 16'd1;
  assign ld_last = ld_busy_q && ld_row_q == RowIdxW'(Rows - 1);
  assign ld_free = !ld_busy_q || ld_last;
  assign st_free = !st_busy_q || st_last;

  assign cmd_ready_o = (cmd_op_i == OpMatmul) ? (st_free && !ent_valid_q[tl_q]) : ld_free;
  assign ld_accept = cmd_valid_i && cmd_ready_o && cmd_op_i == OpLoadWeights;
  assign mm_accept = cmd_valid_i && cmd_ready_o && cmd_op_i == OpMatmul;

  // ---- next state ----------------------------------------------------------
  always_comb begin
    cur_d      = cur_q;
    ld_busy_d  = ld_busy_q;
    ld_buf_d   = ld_buf_q;
    ld_row_d   = ld_row_q;
    ld_addr_d  = ld_addr_q;
    st_busy_d  = st_busy_q;
    st_buf_d   = st_buf_q;
    st_accum_d = st_accum_q;
    st_ub_d    = st_ub_q;
    st_acc_d   = st_acc_q;
    st_left_d  = st_left_q;
    st_ent_d   = st_ent_q;

    // Loader: one row per cycle while busy.
    if (ld_busy_q) begin
      ld_row_d  = ld_row_q + 1'b1;
      ld_addr_d = ld_addr_q + 1'b1;
      if (ld_last) ld_busy_d = 1'b0;
    end
    if (ld_accept) begin
      ld_busy_d = 1'b1;
      ld_buf_d  = !cur_q;           // the buffer MATMUL does not use
      ld_row_d  = '0;
      ld_addr_d = cmd_wm_addr_i;
    end

    // Streamer: one vector per cycle unless it waits.
    if (st_issue) begin
      st_ub_d   = st_ub_q + 1'b1;
      st_acc_d  = st_acc_q + 1'b1;
      st_left_d = st_left_q - 16'd1;
      if (st_last) st_busy_d = 1'b0;
    end
    if (mm_accept) begin
      cur_d      = cmd_swap_i ? !cur_q : cur_q;
      st_busy_d  = 1'b1;
      st_buf_d   = cmd_swap_i ? !cur_q : cur_q;
      st_accum_d = cmd_accumulate_i;
      st_ub_d    = cmd_ub_addr_i;
      st_acc_d   = cmd_acc_addr_i;
      st_left_d  = cmd_n_i;
      st_ent_d   = tl_q;
    end
  end

  // Presentation stage: what the memories' data of this cycle's reads meet.
  always_comb begin
    l_valid_d = ld_busy_q;
    l_buf_d   = ld_buf_q;
    l_row_d   = ld_row_q;
    p_valid_d = st_issue;
    p_wsel_d  = st_buf_q;
    p_accum_d = st_accum_q;
  end

  // In-flight entries: results retire the oldest; a MATMUL takes the next.
  always_comb begin
    ent_valid_d = ent_valid_q;
    ent_wptr_d  = ent_wptr_q;
    ent_end_d   = ent_end_q;
    hd_d        = hd_q;
    tl_d        = tl_q;
    if (arr_out_valid) begin
      ent_wptr_d[hd_q*AccW1 +: AccW1] = ent_wptr_q[hd_q*AccW1 +: AccW1] + 1'b1;
      if (ent_wptr_q[hd_q*AccW1 +: AccW1] + 1'b1 == ent_end_q[hd_q*AccW1 +: AccW1]) begin
        ent_valid_d[hd_q] = 1'b0;
        hd_d = (hd_q == EntW'(InFlight - 1)) ? '0 : hd_q + 1'b1;
      end
    end
    if (mm_accept) begin
      ent_valid_d[tl_q] = 1'b1;
      ent_wptr_d[tl_q*AccW1 +: AccW1] = {1'b0, cmd_acc_addr_i};
      ent_end_d[tl_q*AccW1 +: AccW1] = {1'b0, cmd_acc_addr_i} + AccW1'(cmd_n_i);
      tl_d = (tl_q == EntW'(InFlight - 1)) ? '0 : tl_q + 1'b1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cur_q       <= 1'b0;
      ld_busy_q   <= 1'b0;
      ld_buf_q    <= 1'b0;
      ld_row_q    <= '0;
      ld_addr_q   <= '0;
      st_busy_q   <= 1'b0;
      st_buf_q    <= 1'b0;
      st_accum_q  <= 1'b0;
      st_ub_q     <= '0;
      st_acc_q    <= '0;
      st_left_q   <= '0;
      st_ent_q    <= '0;
      l_valid_q   <= 1'b0;
      l_buf_q     <= 1'b0;
      l_row_q     <= '0;
      p_valid_q   <= 1'b0;
      p_wsel_q    <= 1'b0;
      p_accum_q   <= 1'b0;
      ent_valid_q <= '0;
      ent_wptr_q  <= '0;
      ent_end_q   <= '0;
      hd_q        <= '0;
      tl_q        <= '0;
    end else begin
      cur_q       <= cur_d;
      ld_busy_q   <= ld_busy_d;
      ld_buf_q    <= ld_buf_d;
      ld_row_q    <= ld_row_d;
      ld_addr_q   <= ld_addr_d;
      st_busy_q   <= st_busy_d;
      st_buf_q    <= st_buf_d;
      st_accum_q  <= st_accum_d;
      st_ub_q     <= st_ub_d;
      st_acc_q    <= st_acc_d;
      st_left_q   <= st_left_d;
      st_ent_q    <= st_ent_d;
      l_valid_q   <= l_valid_d;
      l_buf_q     <= l_buf_d;
      l_row_q     <= l_row_d;
      p_valid_q   <= p_valid_d;
      p_wsel_q    <= p_wsel_d;
      p_accum_q   <= p_accum_d;
      ent_valid_q <= ent_valid_d;
      ent_wptr_q  <= ent_wptr_d;
      ent_end_q   <= ent_end_d;
      hd_q        <= hd_d;
      tl_q        <= tl_d;
    end
  end

  // ---- outputs -------------------------------------------------------------
  assign wm_rd_o       = ld_busy_q;
  assign wm_addr_o     = ld_addr_q;
  assign ub_rd_o       = st_issue;
  assign ub_addr_o     = st_ub_q;
  assign acc_rd_o      = st_issue && st_accum_q;
  assign acc_rd_addr_o = st_acc_q;
  assign acc_wr_o      = arr_out_valid;
  assign acc_wr_addr_o = ent_wptr_q[hd_q*AccW1 +: AccAddrW];
  assign acc_wr_data_o = arr_out_psum;

  assign busy_o         = ld_busy_q || st_busy_q || l_valid_q || (|ent_valid_q);
  assign mac_o          = p_valid_q;
  assign weight_stall_o = !st_busy_q && cmd_valid_i && cmd_op_i == OpLoadWeights && !ld_free;
  assign input_stall_o  = st_busy_q && st_accum_q && hazard;
endmodule
