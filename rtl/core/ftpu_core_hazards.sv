// SPDX-License-Identifier: Apache-2.0
`include "ftpu_assert.svh"
// ftpu_core_hazards: may the decoded instruction dispatch while earlier
// ones still run? In-order results with overlapping units: it waits while
// an earlier instruction still running reads what it writes or writes what
// it reads or writes (address ranges compared per memory), except MATMUL
// after MATMUL, which the matrix unit orders itself (docs/matrix_unit.md).
//
// Running MATMULs are tracked in a scoreboard, a ring of InFlight + 2
// entries (queued in the matrix unit or in flight): their UB and ACC ranges
// and the ACC rows still to be written back, retired by the matrix unit's
// ACC writes in order. The activation and output units show their own
// ranges while busy. A HOST_READ into WM waits while the matrix unit is
// loading tiles, into BIAS while ACTIVATE runs; SYNC waits for every unit.
// The vector unit: a vector op (VADD..VSEED, ACC only, on ports of its
// own) runs beside the matrix unit: it dispatches when no running MATMUL
// writes an ACC row it reads or writes, and while it runs LOAD_WEIGHTS and
// MATMULs that keep off its rows dispatch (the training step's optimizer
// overlaps the next gradient's matmuls: docs/vector.md). It waits for the
// other units and they for it. A CONVERT into WM (its ACC reads on the
// unit's own port, its writes on WM's write port, which no other unit
// uses) runs beside the matrix unit too: it dispatches when no running
// MATMUL writes the ACC rows it reads and no tile is being loaded, and
// while it runs MATMULs off those rows and LOAD_WEIGHTS off the WM rows it
// writes dispatch (the training step converts the next tiles while the
// array multiplies: docs/training.md). A HOST_READ into UB may run beside
// either (with ALSO_WM, whose WM writes wait like a HOST_READ into WM,
// only beside a vector op). CONVERT into UB and COPY run alone: they wait
// for every unit, and every instruction waits while they run.
//
// InOrder (the small profile, INFO FEATURES IN_ORDER): none of that. Each
// instruction waits until the ones before it are done, except that
// LOAD_WEIGHTS and MATMUL follow MATMULs into the matrix unit as above;
// the same results, at a fraction of the area (docs/core.md, In order).
module ftpu_core_hazards #(
  parameter int  InFlight = ftpu_pkg::DEFAULT_InFlight,
  parameter int  Rows     = ftpu_pkg::DEFAULT_N,  // a tile's WM rows
  // Without the vector unit its opcodes and flags fault (ftpu_core_check):
  // its rules below are constants, which synthesis removes even when the
  // core is not flattened (the boards' estimates, docs/boards.md).
  parameter int unsigned VectorUnit = ftpu_pkg::DEFAULT_VectorUnit,
  parameter int unsigned InOrder    = ftpu_pkg::DEFAULT_InOrder,
  // 1: the range tests are registered (ftpu_core's PipeRegs); with the
  // decoder's extra cycle they are the waiting instruction's.
  parameter int unsigned PipeRegs = 0,
  localparam int SbDepth  = InFlight + 2,
  localparam int SbW      = $clog2(SbDepth)
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // the decoded instruction
  input  logic [7:0]  op_i,
  input  logic [1:0]  mem_i,         // the memory of HOST_READ / HOST_WRITE
  input  logic [15:0] n_i,
  input  logic [16:0] a_i,
  input  logic [16:0] b_i,
  input  logic [7:0]  flags_i,
  input  logic [31:0] w1_i,          // a vector op's rows: x | y << 16
  input  logic [31:0] w2_i,          //                     d | z << 16
  input  logic        matmul_go_i,   // a MATMUL dispatches: push its entry
  input  logic        vu_go_i,       // a vector unit instruction dispatches
  output logic        wait_o,
  // what runs
  input  logic        mu_busy_i,
  input  logic        mu_loading_i,  // tiles are being loaded from WM
  input  logic        mu_acc_wr_i,   // one ACC row of the oldest MATMUL written
  input  logic        act_busy_i,
  input  logic [17:0] act_acc_lo_i, act_acc_hi_i, act_ub_lo_i, act_ub_hi_i,
  input  logic        ou_busy_i,
  input  logic        ou_acc_i,      // the output unit reads ACC (else UB)
  input  logic [17:0] ou_lo_i, ou_hi_i,
  input  logic        ev_busy_i,
  input  logic        vu_busy_i,     // the vector unit runs
  output logic        units_idle_o   // every unit idle, no MATMUL to write back
);
  localparam logic [7:0] OpHostRead  = ftpu_pkg::OP_HOST_READ;
  localparam logic [7:0] OpLoad      = ftpu_pkg::OP_LOAD_WEIGHTS;
  localparam logic [7:0] OpMatmul    = ftpu_pkg::OP_MATMUL;
  localparam logic [7:0] OpActivate  = ftpu_pkg::OP_ACTIVATE;
  localparam logic [7:0] OpHostWrite = ftpu_pkg::OP_HOST_WRITE;
  localparam logic [1:0] MemUb = ftpu_pkg::MEM_UB, MemWm = ftpu_pkg::MEM_WM;
  localparam logic [1:0] MemAcc = ftpu_pkg::MEM_ACC;
  localparam logic [7:0] OpVadd = ftpu_pkg::OP_VADD, OpVseed = ftpu_pkg::OP_VSEED;
  localparam logic [7:0] OpVmac = ftpu_pkg::OP_VMAC, OpVsel = ftpu_pkg::OP_VSEL;
  localparam logic [7:0] OpConvert = ftpu_pkg::OP_CONVERT;
  localparam logic [7:0] BFixed = ftpu_pkg::VECTOR_B_FIXED, CFixed = ftpu_pkg::VECTOR_C_FIXED;

  // [alo, ahi) and [blo, bhi) intersect
  function automatic logic ov(input logic [17:0] alo, input logic [17:0] ahi,
                              input logic [17:0] blo, input logic [17:0] bhi);
    ov = alo < bhi && blo < ahi;
  endfunction

  if (InOrder != 0) begin : g_in_order
    // The small profile: no ranges, no scoreboard. One count of the ACC
    // rows that dispatched MATMULs have still to write says when the
    // matrix unit is done; the unit's own command queue bounds how many
    // MATMULs wait in it.
    logic [19:0] rows_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) rows_q <= '0;
      else rows_q <= rows_q + (matmul_go_i ? 20'(n_i) : 20'd0) - 20'(mu_acc_wr_i);
    end
    assign units_idle_o = !mu_busy_i && rows_q == '0 && !act_busy_i && !ou_busy_i &&
                          !ev_busy_i && !vu_busy_i;
    // LOAD_WEIGHTS and MATMUL queue behind MATMULs (the matrix unit keeps
    // their order) once every other unit is done; the rest wait for all.
    assign wait_o = (op_i == OpLoad || op_i == OpMatmul)
                  ? (act_busy_i || ou_busy_i || ev_busy_i || vu_busy_i) : !units_idle_o;

    logic unused_in_order;
    assign unused_in_order = ^{PipeRegs, mem_i, a_i, b_i, flags_i, w1_i, w2_i, vu_go_i, mu_loading_i,
                               act_acc_lo_i, act_acc_hi_i, act_ub_lo_i, act_ub_hi_i, ou_acc_i,
                               ou_lo_i, ou_hi_i};
    `FTPU_ASSERT(a_rows_underflow, clk_i, rst_ni, !mu_acc_wr_i || rows_q != '0)
  end else begin : g_overlap
    // The instruction's ranges: operand a, operand b, ACTIVATE's UB operand.
    logic [17:0] a_lo, a_hi, b_lo, b_hi, u_lo, u_hi;
    assign a_lo = 18'(a_i);
    assign a_hi = 18'(a_i) + 18'(n_i);
    assign b_lo = 18'(b_i);
    assign b_hi = 18'(b_i) + 18'(n_i);
    assign u_lo = 18'(b_i[15:0]);
    assign u_hi = 18'(b_i[15:0]) + 18'(n_i);

    // A vector op's ACC rows: x, y, z (VMAC, VSEL) and d; a FIXED operand is
    // one row. An operand it does not read is an empty range.
    logic        vec_op, uses_z;
    logic [17:0] x_lo, x_hi, y_lo, y_hi, z_lo, z_hi, d_lo, d_hi;
    assign vec_op = VectorUnit != 0 && op_i >= OpVadd && op_i <= OpVseed;
    assign uses_z = op_i == OpVmac || op_i == OpVsel;
    assign x_lo = 18'(w1_i[15:0]);
    assign x_hi = x_lo + 18'(n_i);
    assign y_lo = 18'(w1_i[31:16]);
    assign y_hi = y_lo + ((flags_i & BFixed) != '0 ? 18'd1 : 18'(n_i));
    assign z_lo = 18'(w2_i[31:16]);
    assign z_hi = !uses_z ? z_lo : z_lo + ((flags_i & CFixed) != '0 ? 18'd1 : 18'(n_i));
    assign d_lo = 18'(w2_i[15:0]);
    assign d_hi = d_lo + 18'(n_i);

    // A CONVERT into WM: ACC rows a.. read, WM rows b.. written.
    logic cvt_wm;
    assign cvt_wm = VectorUnit != 0 && op_i == OpConvert && flags_i[1:0] == MemWm;
    // A HOST_READ into UB that writes WM rows too.
    logic also_wm;
    assign also_wm = VectorUnit != 0 && (flags_i & ftpu_pkg::HOST_READ_ALSO_WM) != '0;

    // ---- the scoreboard ------------------------------------------------------------
    logic [SbDepth-1:0] valid_q;
    logic [17:0]        ub_lo_q [SbDepth];
    logic [17:0]        ub_hi_q [SbDepth];
    logic [17:0]        acc_lo_q [SbDepth];
    logic [17:0]        acc_hi_q [SbDepth];
    logic [15:0]        left_q [SbDepth];   // ACC rows still to be written
    logic [SbW-1:0]     hd_q, tl_q;
    logic               full, empty;
    assign full  = valid_q[tl_q];
    assign empty = valid_q == '0;

    // Does a running MATMUL touch the instruction's UB / ACC rows?
    logic sb_ub_a_now, sb_acc_a_now, sb_ub_u_now, sb_vec_now;
    always_comb begin
      sb_ub_a_now  = 1'b0;
      sb_acc_a_now = 1'b0;
      sb_ub_u_now  = 1'b0;
      sb_vec_now   = 1'b0;
      for (int e = 0; e < SbDepth; e++) begin
        if (valid_q[e]) begin
          if (ov(ub_lo_q[e], ub_hi_q[e], a_lo, a_hi))   sb_ub_a_now  = 1'b1;
          if (ov(acc_lo_q[e], acc_hi_q[e], a_lo, a_hi)) sb_acc_a_now = 1'b1;
          if (ov(ub_lo_q[e], ub_hi_q[e], u_lo, u_hi))   sb_ub_u_now  = 1'b1;
          if (ov(acc_lo_q[e], acc_hi_q[e], x_lo, x_hi) || ov(acc_lo_q[e], acc_hi_q[e], y_lo, y_hi) ||
              ov(acc_lo_q[e], acc_hi_q[e], z_lo, z_hi) || ov(acc_lo_q[e], acc_hi_q[e], d_lo, d_hi))
            sb_vec_now = 1'b1;
        end
      end
    end

    // ---- the running vector op's rows ------------------------------------------------
    // A vector op's rows are all ACC; a CONVERT into WM's are its ACC
    // source (x) and its WM destination (w).
    logic        vu_vec_q;  // the vector unit runs a vector op
    logic        vu_cvt_q;  // ... a CONVERT into WM (neither: CONVERT into UB, COPY)
    logic [17:0] vx_lo_q, vx_hi_q, vy_lo_q, vy_hi_q, vz_lo_q, vz_hi_q, vd_lo_q, vd_hi_q;
    logic [17:0] vw_lo_q, vw_hi_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        vu_vec_q <= 1'b0;
        vu_cvt_q <= 1'b0;
        {vx_lo_q, vx_hi_q, vy_lo_q, vy_hi_q, vz_lo_q, vz_hi_q, vd_lo_q, vd_hi_q} <= '0;
        {vw_lo_q, vw_hi_q} <= '0;
      end else if (VectorUnit != 0 && vu_go_i) begin
        vu_vec_q <= vec_op;
        vu_cvt_q <= cvt_wm;
        if (cvt_wm) begin
          {vx_lo_q, vx_hi_q, vw_lo_q, vw_hi_q} <= {a_lo, a_hi, b_lo, b_hi};
          {vy_lo_q, vy_hi_q, vz_lo_q, vz_hi_q, vd_lo_q, vd_hi_q} <= '0;  // empty ranges
        end else begin
          {vx_lo_q, vx_hi_q, vy_lo_q, vy_hi_q} <= {x_lo, x_hi, y_lo, y_hi};
          {vz_lo_q, vz_hi_q, vd_lo_q, vd_hi_q} <= {z_lo, z_hi, d_lo, d_hi};
          {vw_lo_q, vw_hi_q} <= '0;
        end
      end
    end
    // May the instruction run beside the vector unit? A HOST_READ into UB
    // (the unit touches ACC, and WM), LOAD_WEIGHTS off the WM rows a CONVERT
    // writes, a MATMUL off the unit's ACC rows (MATMUL reads UB and writes
    // ACC; its tiles are loaded by LOAD_WEIGHTS).
    logic vu_beside, vu_acc_b_now, vu_wm_a_now;
    assign vu_acc_b_now = ov(vx_lo_q, vx_hi_q, b_lo, b_hi) || ov(vy_lo_q, vy_hi_q, b_lo, b_hi) ||
                          ov(vz_lo_q, vz_hi_q, b_lo, b_hi) || ov(vd_lo_q, vd_hi_q, b_lo, b_hi);
    assign vu_wm_a_now  = ov(vw_lo_q, vw_hi_q, a_lo, a_lo + 18'(Rows));

    // ---- the range tests, now or registered ----------------------------------------
    // Each compares the instruction's ranges with those of what runs. These
    // change only when an instruction dispatches (ranges are set when their
    // unit starts; a scoreboard entry that retires can only end a hazard),
    // so a test from the cycle before holds for an instruction that was
    // complete then (the decoder's PipeRegs). Busy flags stay live.
    typedef struct packed {
      logic sb_ub_a, sb_acc_a, sb_ub_u, sb_vec;  // the scoreboard's MATMULs
      logic act_ub_a, act_acc_a, act_acc_b;      // the activation unit's ranges
      logic ou_a, ou_b, ou_u;                    // the output unit's range
      logic vu_acc_b, vu_wm_a;                   // the vector unit's rows
    } rng_t;
    rng_t rng_now, rng;
    // in rng_t's field order
    assign rng_now = {sb_ub_a_now, sb_acc_a_now, sb_ub_u_now, sb_vec_now,
                      ov(act_ub_lo_i, act_ub_hi_i, a_lo, a_hi),
                      ov(act_acc_lo_i, act_acc_hi_i, a_lo, a_hi),
                      ov(act_acc_lo_i, act_acc_hi_i, b_lo, b_hi),
                      ov(ou_lo_i, ou_hi_i, a_lo, a_hi), ov(ou_lo_i, ou_hi_i, b_lo, b_hi),
                      ov(ou_lo_i, ou_hi_i, u_lo, u_hi),
                      vu_acc_b_now, vu_wm_a_now};
    if (PipeRegs != 0) begin : g_rng_q
      rng_t rng_q;
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) rng_q <= '0;
        else         rng_q <= rng_now;
      end
      assign rng = rng_q;
    end else begin : g_rng_now
      assign rng = rng_now;
    end
    logic sb_ub_a, sb_acc_a, sb_ub_u, sb_vec;
    assign {sb_ub_a, sb_acc_a, sb_ub_u, sb_vec} = {rng.sb_ub_a, rng.sb_acc_a, rng.sb_ub_u, rng.sb_vec};

    always_comb begin
      unique case (op_i)
        OpHostRead: vu_beside = (vu_vec_q || (vu_cvt_q && !also_wm)) && mem_i == MemUb;
        OpLoad:     vu_beside = (vu_vec_q || vu_cvt_q) && !rng.vu_wm_a;
        OpMatmul:   vu_beside = (vu_vec_q || vu_cvt_q) && !rng.vu_acc_b;
        default:    vu_beside = 1'b0;
      endcase
    end

    function automatic logic [SbW-1:0] next(input logic [SbW-1:0] i);
      next = (i == SbW'(SbDepth - 1)) ? '0 : i + 1'b1;
    endfunction

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        valid_q <= '0;
        hd_q    <= '0;
        tl_q    <= '0;
        for (int e = 0; e < SbDepth; e++) begin
          ub_lo_q[e]  <= '0;
          ub_hi_q[e]  <= '0;
          acc_lo_q[e] <= '0;
          acc_hi_q[e] <= '0;
          left_q[e]   <= '0;
        end
      end else begin
        if (mu_acc_wr_i) begin
          left_q[hd_q] <= left_q[hd_q] - 16'd1;
          if (left_q[hd_q] == 16'd1) begin
            valid_q[hd_q] <= 1'b0;
            hd_q          <= next(hd_q);
          end
        end
        if (matmul_go_i) begin
          valid_q[tl_q]  <= 1'b1;
          ub_lo_q[tl_q]  <= a_lo;
          ub_hi_q[tl_q]  <= a_hi;
          acc_lo_q[tl_q] <= b_lo;
          acc_hi_q[tl_q] <= b_hi;
          left_q[tl_q]   <= n_i;
          tl_q           <= next(tl_q);
        end
      end
    end

    // ---- must the instruction wait? ------------------------------------------------
    assign units_idle_o = !mu_busy_i && empty && !act_busy_i && !ou_busy_i && !ev_busy_i &&
                          !vu_busy_i;

    logic act_ub_a, act_acc_a, ou_a, ou_b, ou_u;
    assign act_ub_a  = act_busy_i && rng.act_ub_a;
    assign act_acc_a = act_busy_i && rng.act_acc_a;
    assign ou_a      = ou_busy_i && rng.ou_a;
    assign ou_b      = ou_busy_i && rng.ou_b;
    assign ou_u      = ou_busy_i && rng.ou_u;

    // While the vector unit runs, only what may run beside it dispatches.
    logic wait_op;
    assign wait_o = (vu_busy_i && !vu_beside) || wait_op;
    always_comb begin
      if (vec_op)  // beside running MATMULs off its rows, after the other units
        wait_op = vu_busy_i || act_busy_i || ou_busy_i || ev_busy_i || sb_vec;
      else unique case (op_i)
        OpHostRead: begin
          unique case (mem_i)
            MemUb:   wait_op = sb_ub_a || act_ub_a || (ou_a && !ou_acc_i) ||
                               (also_wm && mu_loading_i);
            MemAcc:  wait_op = sb_acc_a || act_acc_a || (ou_a && ou_acc_i);
            MemWm:   wait_op = mu_loading_i;
            default: wait_op = act_busy_i;
          endcase
        end
        OpLoad:      wait_op = 1'b0;
        OpMatmul:    wait_op = full || act_ub_a || (act_busy_i && rng.act_acc_b) ||
                              (ou_b && ou_acc_i);
        OpActivate:  wait_op = act_busy_i || sb_acc_a || sb_ub_u || (ou_u && !ou_acc_i);
        OpHostWrite: wait_op = ou_busy_i || ev_busy_i ||
                              ((mem_i == MemAcc) ? sb_acc_a : act_ub_a);
        OpConvert:   wait_op = cvt_wm ? vu_busy_i || act_busy_i || ou_busy_i || ev_busy_i ||
                                        sb_acc_a || mu_loading_i
                                      : !units_idle_o;
        default:     wait_op = !units_idle_o;  // SYNC, COPY
      endcase
    end

    // No MATMUL pushed when full, no ACC write without its entry.
    `FTPU_ASSERT(a_sb_overflow, clk_i, rst_ni, !(matmul_go_i && full))
    `FTPU_ASSERT(a_sb_underflow, clk_i, rst_ni, !mu_acc_wr_i || valid_q[hd_q])
  end
endmodule
