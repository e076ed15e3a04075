// SPDX-License-Identifier: Apache-2.0
`include "ftpu_assert.svh"
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
// one per cycle. A LOAD_WEIGHTS dispatches into the loader's one pending
// slot (free, or its load starting this cycle); a MATMUL dispatches as soon
// as the streamer issues the previous MATMUL's last vector. So the k-outer,
// n-inner pairs (LOAD_WEIGHTS, MATMUL SWAP [ACCUMULATE]) of a tiled GEMM
// run at the array's stall-free schedule (docs/array.md): one fold every
// max(n, Rows) cycles.
//
// Loader, for RowDelay D = 1 + popcount(AddCuts) (docs/array.md): a load
// that starts (issues row 0) in cycle A issues row r in cycle A + r*D, so
// every row takes effect for exactly the vectors issued from A on. Loads
// overlap, one per phase of the cycle count mod D: D slots, slot p issuing
// in the cycles with phase p, and the pending load starts in the first
// cycle (after its dispatch) whose slot is free. The weight port still
// moves one row per cycle. (D = 1: one slot, loads back to back.)
//
// Hazards, all resolved in hardware:
// - Weight buffers. The rule (docs/array.md): a row-r write issued in cycle
//   T is seen by exactly the vectors issued at T - r*D or later. For a load
//   starting at A (rows at A + r*D) into buffer b that means: (1) every
//   vector of an earlier MATMUL on b issues before A, and (2) every vector
//   of a later MATMUL on b issues at A or later. Two loads into one buffer
//   may overlap: their row-r writes stay in the order of their A.
//   (1) holds by construction: a LOAD_WEIGHTS writes b = the buffer the last
//   dispatched MATMUL does not use; that MATMUL is the streamer's current
//   one, and every earlier MATMUL (on b or not) issued its last vector no
//   later than the current one's dispatch, which precedes the load's
//   dispatch, which precedes A. (2): a MATMUL on b dispatched after the load
//   issues no vector while the load is pending (wwait); the start cycle A
//   itself is allowed for D > 1. For D = 1 the streamer waits one cycle
//   more (vectors from A + 1 on), which keeps the unit's original schedule
//   and cycle counts for RowDelay 1 (docs/matrix_unit.md).
// - ACC: each dispatched MATMUL holds an in-flight entry (InFlight of them)
//   with the ACC rows it has not yet written back, [wptr, end). Results
//   leave the array in order, so the oldest entry names the row of each
//   result. An accumulating MATMUL issues row x only when no older entry
//   holds x (input_stall_o); the read then follows the write by >= 1 cycle.
//   Stall-free GEMMs need about (Latency + 3) / max(n, Rows) + 1 entries.
//   With PipeRegs the test is made a cycle ahead, for each row the next
//   cycle can bring (this row again, the next row, a new MATMUL's first),
//   with this cycle's write-back counted, and the decision picks one: the
//   same answer in the same cycle, but from a register, because the issue
//   decision fans out to registers across the die.
//
// Performance events, one per cycle: mac_o (a vector enters the array:
// Rows*Cols MACs), weight_stall_o (the streamer idles or waits because of
// the weights: the next command, a LOAD_WEIGHTS, waits for the pending slot,
// or the current MATMUL waits for its tile's load to start; tiles cannot
// keep up with MATMULs shorter than Rows vectors), input_stall_o (a MATMUL
// waits for ACC rows an earlier MATMUL has not yet written back). busy_o: a
// command is executing or results are in flight.
module ftpu_matrix_unit #(
  parameter int Rows = 16,
  parameter int Cols = 16,
  parameter int unsigned AddCuts = 32'b000,  // see ftpu_pe
  parameter int ColSkew = 1,                // see ftpu_systolic_array
  parameter int UbAddrW = 12,
  parameter int AccAddrW = 12,
  parameter int WmAddrW = 14,
  parameter int InFlight = 4,               // MATMULs with results pending
  parameter int PipeRegs = 0,               // 1: the ACC hazard from a register
  localparam int RowIdxW = (Rows > 1) ? $clog2(Rows) : 1,
  localparam int EntW = (InFlight > 1) ? $clog2(InFlight) : 1,
  localparam int AccW1 = AccAddrW + 1,
  localparam int RowDelay = ftpu_pkg::row_delay(AddCuts),
  localparam int PhW = (RowDelay > 1) ? $clog2(RowDelay) : 1
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
  // the streamer skips this cycle (its UB/ACC reads go to another unit)
  input  logic                 hold_i,
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
  output logic                 loading_o,       // a LOAD_WEIGHTS still reads WM
  output logic                 mac_o,
  output logic                 weight_stall_o,
  output logic                 input_stall_o
);
  localparam logic OpLoadWeights = 1'b0;
  localparam logic OpMatmul = 1'b1;

  if (Rows != Cols) begin : g_bad_shape
    $error("ftpu_matrix_unit: the device needs a square array (Rows == Cols)");
  end
  if (AddCuts > 7) begin : g_bad_cuts
    $error("ftpu_matrix_unit: AddCuts is a 3-bit mask (ftpu_fp32_add)");
  end

  // Lag: vectors of a MATMUL on a loading buffer issue from A + Lag on.
  localparam logic Lag = (RowDelay == 1);

  // ---- state -------------------------------------------------------------
  logic                  cur_q, cur_d;          // buffer MATMUL uses
  logic [PhW-1:0]        ph_q, ph_d;            // cycle count mod RowDelay
  // loader: a pending load (dispatched, not started) and one slot per phase
  // (a started load: its next row and WM address)
  logic                      pd_q, pd_d;
  logic                      pd_buf_q, pd_buf_d;
  logic [WmAddrW-1:0]        pd_addr_q, pd_addr_d;
  logic [RowDelay-1:0]         sl_busy_q, sl_busy_d;
  logic [RowDelay-1:0]         sl_buf_q, sl_buf_d;
  logic [RowDelay*RowIdxW-1:0] sl_row_q, sl_row_d;
  logic [RowDelay*WmAddrW-1:0] sl_addr_q, sl_addr_d;
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

  ftpu_systolic_array #(
    .Rows(Rows), .Cols(Cols), .AddCuts(AddCuts), .ColSkew(ColSkew)
  ) u_array (
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
  logic hazard, wwait, st_issue, st_last, st_free;
  logic sl_go, sl_last, pd_start, ld_free;
  logic [RowIdxW-1:0] sl_row;
  logic [WmAddrW-1:0] sl_addr;
  logic ld_accept, mm_accept;

  // Does an in-flight entry other than `skip` (when skip_en) still owe ACC
  // row r? With ret the oldest entry (hd) writes a row back in this cycle,
  // so its first owed row is one higher (the test for the next cycle).
  function automatic logic row_owed(input logic [AccW1-1:0] r,
                                    input logic [InFlight-1:0] valid,
                                    input logic [InFlight*AccW1-1:0] wptr,
                                    input logic [InFlight*AccW1-1:0] last,
                                    input logic skip_en, input logic [EntW-1:0] skip,
                                    input logic ret, input logic [EntW-1:0] hd);
    row_owed = 1'b0;
    for (int e = 0; e < InFlight; e++) begin
      if (valid[e] && !(skip_en && skip == EntW'(e)) &&
          ((ret && hd == EntW'(e)) ? r > wptr[e*AccW1 +: AccW1]
                                   : r >= wptr[e*AccW1 +: AccW1]) &&
          r < last[e*AccW1 +: AccW1]) begin
        row_owed = 1'b1;
      end
    end
  endfunction

  // Does an older in-flight MATMUL still owe ACC row st_acc_q? (Written
  // out, not as row_owed: Yosys maps this form smaller on ECP5.)
  logic hazard_now;
  always_comb begin
    hazard_now = 1'b0;
    for (int e = 0; e < InFlight; e++) begin
      if (ent_valid_q[e] && !(st_busy_q && st_ent_q == EntW'(e)) &&
          {1'b0, st_acc_q} >= ent_wptr_q[e*AccW1 +: AccW1] &&
          {1'b0, st_acc_q} < ent_end_q[e*AccW1 +: AccW1]) begin
        hazard_now = 1'b1;
      end
    end
  end
  if (PipeRegs != 0) begin : g_hazard_reg
    // Next cycle's test: a new MATMUL (its entry is tl, not yet valid, and
    // every valid entry is older), the next row, or this row again.
    logic hz_new, hz_step, hz_stay, hazard_q;
    assign hz_new  = row_owed({1'b0, cmd_acc_addr_i}, ent_valid_q, ent_wptr_q, ent_end_q,
                              1'b0, st_ent_q, arr_out_valid, hd_q);
    assign hz_step = row_owed({1'b0, AccAddrW'(st_acc_q + 1'b1)}, ent_valid_q, ent_wptr_q,
                              ent_end_q, 1'b1, st_ent_q, arr_out_valid, hd_q);
    assign hz_stay = row_owed({1'b0, st_acc_q}, ent_valid_q, ent_wptr_q, ent_end_q,
                              1'b1, st_ent_q, arr_out_valid, hd_q);
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) hazard_q <= 1'b0;
      else hazard_q <= mm_accept ? hz_new : st_issue ? hz_step : hz_stay;
    end
    assign hazard = hazard_q;
    `FTPU_ASSERT(a_hazard_ahead, clk_i, rst_ni,
                 !(st_busy_q && st_accum_q) || hazard_q == hazard_now)
  end else begin : g_hazard_now
    assign hazard = hazard_now;
  end

  // Loader: the slot of this cycle's phase issues its next row; if it is
  // idle, the pending load starts there (row 0).
  assign sl_go    = sl_busy_q[ph_q];
  assign sl_row   = sl_row_q[ph_q*RowIdxW +: RowIdxW];
  assign sl_addr  = sl_addr_q[ph_q*WmAddrW +: WmAddrW];
  assign sl_last  = sl_go && sl_row == RowIdxW'(Rows - 1);
  assign pd_start = pd_q && !sl_go;
  assign ld_free  = !pd_q || pd_start;

  // The current MATMUL waits while its buffer's load has not started (and
  // for D = 1 in the start cycle too: see Lag).
  assign wwait    = pd_q && pd_buf_q == st_buf_q && !(pd_start && !Lag);
  assign st_issue = st_busy_q && !wwait && !(st_accum_q && hazard) && !hold_i;
  assign st_last  = st_issue && st_left_q == 16'd1;
  assign st_free  = !st_busy_q || st_last;

  assign cmd_ready_o = (cmd_op_i == OpMatmul) ? (st_free && !ent_valid_q[tl_q]) : ld_free;
  assign ld_accept = cmd_valid_i && cmd_ready_o && cmd_op_i == OpLoadWeights;
  assign mm_accept = cmd_valid_i && cmd_ready_o && cmd_op_i == OpMatmul;

  // ---- next state ----------------------------------------------------------
  always_comb begin
    cur_d      = cur_q;
    ph_d       = (ph_q == PhW'(RowDelay - 1)) ? '0 : ph_q + 1'b1;
    pd_d       = pd_q;
    pd_buf_d   = pd_buf_q;
    pd_addr_d  = pd_addr_q;
    sl_busy_d  = sl_busy_q;
    sl_buf_d   = sl_buf_q;
    sl_row_d   = sl_row_q;
    sl_addr_d  = sl_addr_q;
    st_busy_d  = st_busy_q;
    st_buf_d   = st_buf_q;
    st_accum_d = st_accum_q;
    st_ub_d    = st_ub_q;
    st_acc_d   = st_acc_q;
    st_left_d  = st_left_q;
    st_ent_d   = st_ent_q;

    // Loader: the slot of this phase issues a row, or the pending load
    // starts in it (row 0 now, row 1 RowDelay cycles later).
    if (sl_go) begin
      sl_row_d[ph_q*RowIdxW +: RowIdxW]  = sl_row + 1'b1;
      sl_addr_d[ph_q*WmAddrW +: WmAddrW] = sl_addr + 1'b1;
      if (sl_last) sl_busy_d[ph_q] = 1'b0;
    end else if (pd_q) begin
      pd_d = 1'b0;
      sl_busy_d[ph_q] = (Rows > 1);
      sl_buf_d[ph_q]  = pd_buf_q;
      sl_row_d[ph_q*RowIdxW +: RowIdxW]  = RowIdxW'(1);
      sl_addr_d[ph_q*WmAddrW +: WmAddrW] = pd_addr_q + 1'b1;
    end
    if (ld_accept) begin
      pd_d      = 1'b1;
      pd_buf_d  = !cur_q;           // the buffer MATMUL does not use
      pd_addr_d = cmd_wm_addr_i;
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
    l_valid_d = sl_go || pd_q;
    l_buf_d   = sl_go ? sl_buf_q[ph_q] : pd_buf_q;
    l_row_d   = sl_go ? sl_row : '0;
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
      ph_q        <= '0;
      pd_q        <= 1'b0;
      pd_buf_q    <= 1'b0;
      pd_addr_q   <= '0;
      sl_busy_q   <= '0;
      sl_buf_q    <= '0;
      sl_row_q    <= '0;
      sl_addr_q   <= '0;
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
      ph_q        <= ph_d;
      pd_q        <= pd_d;
      pd_buf_q    <= pd_buf_d;
      pd_addr_q   <= pd_addr_d;
      sl_busy_q   <= sl_busy_d;
      sl_buf_q    <= sl_buf_d;
      sl_row_q    <= sl_row_d;
      sl_addr_q   <= sl_addr_d;
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
  assign wm_rd_o       = sl_go || pd_q;
  assign wm_addr_o     = sl_go ? sl_addr : pd_addr_q;
  assign ub_rd_o       = st_issue;
  assign ub_addr_o     = st_ub_q;
  assign acc_rd_o      = st_issue && st_accum_q;
  assign acc_rd_addr_o = st_acc_q;
  assign acc_wr_o      = arr_out_valid;
  assign acc_wr_addr_o = ent_wptr_q[hd_q*AccW1 +: AccAddrW];
  assign acc_wr_data_o = arr_out_psum;

  assign busy_o         = pd_q || (|sl_busy_q) || st_busy_q || l_valid_q || (|ent_valid_q);
  assign loading_o      = pd_q || (|sl_busy_q);
  assign mac_o          = p_valid_q;
  assign weight_stall_o = (st_busy_q && wwait) ||
                          (!st_busy_q && cmd_valid_i && cmd_op_i == OpLoadWeights && !ld_free);
  assign input_stall_o  = st_busy_q && !wwait && ((st_accum_q && hazard) || hold_i);
endmodule
