// SPDX-License-Identifier: Apache-2.0
// formal/async_fifo.svh: the properties of ftpu_phy_async_fifo, proven by
// formal/async_fifo.sby (make formal, docs/phy.md "Formal proofs").
//
// Included into the module's own scope at its end when
// FTPU_FORMAL_ASYNC_FIFO is defined (the .sby's read), so it sees the
// internal pointers and the memory without hierarchical references (which
// Yosys does not read). Nothing else defines that macro: Verilator, lint
// and synthesis never see this file.
//
// Two clocks: the .sby runs with multiclock on (clk2fflogic), so wclk_i and
// rclk_i are free inputs sampled at every step of the formal global clock,
// each free to rise at any step, together or apart, at any ratio. Invariants
// are immediate assertions in always @* (checked at every global step,
// stronger than at either clock's edges); the Gray-step checks compare
// consecutive global steps (always @($global_clock)).
//
// The environment: both resets asserted together at the first step and
// released (docs: "must be asserted together"), writes and reads free.
//
// Counted from the outside: f_wcnt / f_rcnt are the writes and reads
// accepted on the interface (w_valid_i && w_ready_o at a wclk_i edge,
// r_valid_o && r_ready_i at an rclk_i edge), modulo 2^PtrW.
//
//   no overflow     a write is accepted only while fewer than Depth words
//                   are held (w_ready_o -> occupancy < Depth)
//   no underflow    a read only while a word is held (r_valid_o -> occ > 0)
//   occupancy       f_wcnt - f_rcnt <= Depth always; w_level_o never below
//                   it and never above Depth
//   Gray            each Gray pointer register changes at most one bit per
//                   step, and is the Gray code of its binary pointer
//   in order        one tracked word: an arbitrary accepted write (f_pick,
//                   free) records its data and its index f_idx; when the
//                   read index reaches f_idx and r_valid_o is high,
//                   r_data_o is that data. With the counters, the n-th read
//                   returns the n-th write.
//
// Induction strengthening: the counters equal the binary pointers, every
// synchronizer stage decodes to a pointer between the two ends (the reader
// sees the writer's pointer late, never early, and vice versa), and the
// tracked word sits in the memory at its index while held.

  function automatic logic [PtrW-1:0] f_g2b(input logic [PtrW-1:0] g);
    f_g2b[PtrW-1] = g[PtrW-1];
    for (int i = PtrW - 2; i >= 0; i--) f_g2b[i] = f_g2b[i+1] ^ g[i];
  endfunction

  // ---- environment --------------------------------------------------------
  logic f_init = 1'b1;  // the first global step
  always @($global_clock) f_init <= 1'b0;

  always @(*) begin
    assume (wrst_ni == rrst_ni);
    assume (wrst_ni == !f_init);
  end

  // ---- the interface, counted -----------------------------------------------
  logic [PtrW-1:0]  f_wcnt, f_rcnt, f_idx, f_occ;
  logic [Width-1:0] f_data;
  logic             f_picked, f_taken, f_held;
  (* anyseq *) logic f_pick;

  always_ff @(posedge wclk_i or negedge wrst_ni) begin
    if (!wrst_ni) begin
      f_wcnt   <= '0;
      f_picked <= 1'b0;
      f_idx    <= '0;
      f_data   <= '0;
    end else if (w_valid_i && w_ready_o) begin
      f_wcnt <= f_wcnt + 1'b1;
      if (f_pick && !f_picked) begin
        f_picked <= 1'b1;
        f_idx    <= f_wcnt;
        f_data   <= w_data_i;
      end
    end
  end

  always_ff @(posedge rclk_i or negedge rrst_ni) begin
    if (!rrst_ni) begin
      f_rcnt  <= '0;
      f_taken <= 1'b0;
    end else if (r_valid_o && r_ready_i) begin
      f_rcnt <= f_rcnt + 1'b1;
      if (f_held && f_rcnt == f_idx) f_taken <= 1'b1;
    end
  end

  assign f_occ  = f_wcnt - f_rcnt;
  assign f_held = f_picked && !f_taken;

  // ---- properties -------------------------------------------------------------
  // Stage s: how far the write pointer it holds is ahead of rbin_q, and
  // how far wbin_q is ahead of the read pointer it holds.
  logic [PtrW-1:0] f_w2r_d [SyncStages];
  logic [PtrW-1:0] f_r2w_d [SyncStages];
  for (genvar s = 0; s < SyncStages; s++) begin : g_f_sync
    assign f_w2r_d[s] = f_g2b(w2r_q[s*PtrW +: PtrW]) - rbin_q;
    assign f_r2w_d[s] = wbin_q - f_g2b(r2w_q[s*PtrW +: PtrW]);
    if (s > 0) begin : g_later
      // a later stage holds an older pointer
      always @(*) begin
        if (!f_init) begin
          a_w2r_s: assert (f_w2r_d[s] <= f_w2r_d[s-1]);
          a_r2w_s: assert (f_r2w_d[s] >= f_r2w_d[s-1]);
        end
      end
    end
  end

  always @(*) begin
    if (!f_init) begin
      // the interface
      a_occ:        assert (f_occ <= PtrW'(Depth));
      a_no_overflow:  assert (!w_ready_o || f_occ < PtrW'(Depth));
      a_no_underflow: assert (!r_valid_o || f_occ != '0);
      a_level:      assert (w_level_o >= f_occ && w_level_o <= PtrW'(Depth));
      if (f_held) begin
        a_held_in:  assert (f_idx - f_rcnt < f_occ);
        a_held_mem: assert (mem_q[f_idx[AddrW-1:0]] == f_data);
        if (f_rcnt == f_idx && r_valid_o) a_in_order: assert (r_data_o == f_data);
      end
      // the pointers behind it
      a_wcnt:  assert (f_wcnt == wbin_q);
      a_rcnt:  assert (f_rcnt == rbin_q);
      a_wgray: assert (wgray_q == (wbin_q ^ (wbin_q >> 1)));
      a_rgray: assert (rgray_q == (rbin_q ^ (rbin_q >> 1)));
      a_w2r_0: assert (f_w2r_d[0] <= f_occ);
      a_r2w_0: assert (f_r2w_d[0] >= f_occ);
      a_r2w_last: assert (f_r2w_d[SyncStages-1] <= PtrW'(Depth));
    end
  end

  always @($global_clock) begin
    if (!f_init && !$past(f_init)) begin
      a_wgray_step: assert ($onehot0(wgray_q ^ $past(wgray_q)));
      a_rgray_step: assert ($onehot0(rgray_q ^ $past(rgray_q)));
    end
  end
