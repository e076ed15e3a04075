// SPDX-License-Identifier: Apache-2.0
`include "ftpu_assert.svh"
// ftpu_core: the device's data path behind the link — the instruction
// decoder, the four memories and the units of docs/isa.md.
//
// Input: PROGRAM frames as words, as ftpu_link_rx delivers them (w1 =
// {seq, flags, type}, w2 = {credit, len}, then len payload words). Output:
// DATA and EVENT frames as words in the format ftpu_link_tx takes, with
// seq and credit 0 (ftpu_top fills them in as a frame leaves).
//
// Decoder. It follows model/ref_device.c (the executable specification)
// word by word: START/END framing, instructions and their inline data split
// anywhere across frames, faults with the same code, pc and instruction
// word, in the same order. A complete instruction is checked (opcode,
// flags, n, every address range, the weight-tile state) and then dispatched
// in order to its unit: HOST_READ to the decoder's own inline-data path
// (words assembled into a vector, written when complete), LOAD_WEIGHTS and
// MATMUL to ftpu_matrix_unit, ACTIVATE to ftpu_activate_unit, HOST_WRITE
// to ftpu_output_unit, SYNC to the event builder once every unit is idle.
// An instruction retires (counted, pc + 1) at dispatch; HOST_READ when its
// last data word is in.
//
// In-order results with overlapping units: an instruction dispatches only
// when no earlier instruction still running reads what it writes or writes
// what it reads or writes (address ranges compared per memory), except
// MATMUL after MATMUL, which the matrix unit orders itself (docs/
// matrix_unit.md). Running MATMULs are tracked in a scoreboard (ranges and
// ACC rows still to be written back, retired by the matrix unit's ACC
// writes); the activation and output units show their ranges while busy;
// a HOST_READ into WM waits while the matrix unit is loading tiles, into
// BIAS while ACTIVATE runs. Nothing dispatches while the last vector of a
// HOST_READ waits for its write.
//
// Memories: one write and one read port each, one cycle read latency,
// read-first. Shared ports have fixed priorities: the matrix unit (which
// has no back-pressure) first, then the activation unit, then the output
// unit and the decoder's inline data, which wait.
//
// Faults: the event builder sends EVENT FAULT once the output unit is idle
// (so DATA frames of earlier instructions go first); the decoder then
// discards the program's words up to END. Nothing is dispatched from a
// faulted instruction, so nothing outside the checked ranges is written.
//
// soft_reset_i (CONTROL RESET): the decoder drops its program state, its
// pending instruction, fault and inline vector; running units finish (the
// output unit after its current frame); reset_done_o is then high.
module ftpu_core #(
  parameter int          N           = ftpu_pkg::DEFAULT_N,
  parameter int unsigned AddCuts     = ftpu_pkg::DEFAULT_AddCuts,
  parameter int          UbVectors   = ftpu_pkg::DEFAULT_UbVectors,
  parameter int          WmRows      = ftpu_pkg::DEFAULT_WmRows,
  parameter int          AccVectors  = ftpu_pkg::DEFAULT_AccVectors,
  parameter int          BiasVectors = ftpu_pkg::DEFAULT_BiasVectors,
  parameter int          InFlight    = ftpu_pkg::DEFAULT_InFlight,
  parameter int          MaxPayload  = ftpu_pkg::LINK_MAX_PAYLOAD,
  localparam int UbAw   = $clog2(UbVectors),
  localparam int WmAw   = $clog2(WmRows),
  localparam int AccAw  = $clog2(AccVectors),
  localparam int BiasAw = (BiasVectors > 1) ? $clog2(BiasVectors) : 1
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        soft_reset_i,
  output logic        reset_done_o,
  // PROGRAM frames
  input  logic        in_valid_i,
  output logic        in_ready_o,
  input  logic [31:0] in_data_i,
  // DATA and EVENT frames
  output logic        out_valid_o,
  input  logic        out_ready_i,
  output logic [31:0] out_data_o,
  // state for STATUS: enum ftpu_link_dev_state
  output logic [1:0]  state_o,
  output logic        busy_o,      // an instruction is executing somewhere
  output logic        frame_idle_o, // between frames, nothing pending
  // per-cycle events for the performance counters (docs/protocol.md §7.2)
  output logic        ev_mac_o,
  output logic        ev_weight_stall_o,
  output logic        ev_input_stall_o,
  output logic        ev_output_stall_o,
  output logic        ev_instr_o,
  // fault record
  output logic        fault_valid_o,
  output logic [31:0] fault_pc_o,
  output logic [31:0] fault_code_o,
  output logic [31:0] fault_instr_o
);
  // ---- the instruction set, events and states: spec/ftpu.toml (ftpu_pkg) ----
  localparam logic [7:0] OpHostRead  = ftpu_pkg::OP_HOST_READ;
  localparam logic [7:0] OpLoad      = ftpu_pkg::OP_LOAD_WEIGHTS;
  localparam logic [7:0] OpMatmul    = ftpu_pkg::OP_MATMUL;
  localparam logic [7:0] OpActivate  = ftpu_pkg::OP_ACTIVATE;
  localparam logic [7:0] OpHostWrite = ftpu_pkg::OP_HOST_WRITE;
  localparam logic [7:0] OpSync      = ftpu_pkg::OP_SYNC;
  localparam logic [1:0] MemUb = ftpu_pkg::MEM_UB, MemWm = ftpu_pkg::MEM_WM;
  localparam logic [1:0] MemAcc = ftpu_pkg::MEM_ACC, MemBias = ftpu_pkg::MEM_BIAS;
  localparam logic [2:0] FaultOpcode = ftpu_pkg::FAULT_OPCODE, FaultCount = ftpu_pkg::FAULT_COUNT;
  localparam logic [2:0] FaultRange = ftpu_pkg::FAULT_RANGE, FaultNoTile = ftpu_pkg::FAULT_NO_TILE;
  localparam logic [2:0] FaultTruncated = ftpu_pkg::FAULT_TRUNCATED;
  localparam logic [2:0] FaultMemory = ftpu_pkg::FAULT_MEMORY, FaultFraming = ftpu_pkg::FAULT_FRAMING;
  localparam logic [7:0] TypeEvent = ftpu_pkg::LINK_TYPE_EVENT;
  localparam logic [31:0] EventSync = ftpu_pkg::EVENT_SYNC, EventFault = ftpu_pkg::EVENT_FAULT;
  localparam logic [1:0] StateIdle = ftpu_pkg::STATE_IDLE, StateRunning = ftpu_pkg::STATE_RUNNING;
  localparam logic [1:0] StateFaulted = ftpu_pkg::STATE_FAULTED;
  localparam int SbDepth = InFlight + 2;  // MATMULs queued or in flight
  localparam int SbW = $clog2(SbDepth);
  localparam int WordW = $clog2(N + 1);

  if (N < 2 || N % 2 != 0) begin : g_bad_n
    $error("ftpu_core: N must be even and at least 2");
  end

  // ---- decoder state ------------------------------------------------------
  typedef enum logic [1:0] {FW1, FW2, FPay} fstate_e;
  fstate_e     fs_q;
  logic [1:0]  fflags_q;     // PROGRAM flags (END, START) of the frame being decoded
  logic [15:0] fleft_q;      // its payload words still to come
  logic        fend_q;       // all its words taken: end-of-frame pending
  logic        fdrop_q;      // the frame is outside a program
  logic        ffirst_q;     // ... and its first word is still to come
  logic        in_prog_q, discard_q;
  logic [1:0]  have_q;       // words of the instruction so far
  logic [31:0] iw0_q, iw1_q, iw2_q;
  logic        exec_q;       // a complete instruction waits for dispatch
  logic [31:0] pc_q;
  logic        cur_valid_q, next_valid_q;  // weight tiles (as ref_device.c)
  // HOST_READ inline data
  logic             hr_q;
  logic [1:0]       hr_mem_q;
  logic [16:0]      hr_addr_q;
  logic [15:0]      hr_left_q;   // vectors still to come, this one included
  logic [WordW-1:0] hr_word_q;
  logic [N*32-1:0]  stg_q;       // the vector being assembled
  logic             stg_full_q;  // complete, waiting for its write
  logic [1:0]       stg_mem_q;
  logic [16:0]      stg_addr_q;
  // a fault waiting for the event builder
  logic        flt_q;
  logic [2:0]  flt_code_q;
  logic [31:0] flt_pc_q, flt_instr_q;

  // ---- the instruction in iw*_q ----------------------------------------------
  logic [7:0]  op, fl;
  logic [15:0] n;
  logic [31:0] a, b;
  assign op = iw0_q[7:0];
  assign fl = iw0_q[15:8];
  assign n  = iw0_q[31:16];
  assign a  = iw1_q;
  assign b  = iw2_q;

  // [base, base + cnt) within size, without overflow
  function automatic logic in_range(input logic [31:0] base, input logic [31:0] cnt,
                                    input logic [31:0] size);
    in_range = base < size && cnt <= size - base;
  endfunction
  // [alo, ahi) and [blo, bhi) intersect
  function automatic logic ov(input logic [17:0] alo, input logic [17:0] ahi,
                              input logic [17:0] blo, input logic [17:0] bhi);
    ov = alo < bhi && blo < ahi;
  endfunction

  logic [31:0] mem_size;
  always_comb begin
    unique case (fl[1:0])
      MemUb:   mem_size = 32'(UbVectors);
      MemWm:   mem_size = 32'(WmRows);
      MemAcc:  mem_size = 32'(AccVectors);
      default: mem_size = 32'(BiasVectors);
    endcase
  end

  // The fault of the instruction, in ref_device.c's order (0: none).
  logic [2:0] fault;
  always_comb begin
    fault = '0;
    if (n == 16'd0 && op >= OpHostRead && op <= OpHostWrite) begin
      fault = FaultCount;
    end else begin
      unique case (op)
        OpHostRead: begin
          if (fl[7:2] != '0)                       fault = FaultOpcode;
          else if (!in_range(a, 32'(n), mem_size)) fault = FaultRange;
        end
        OpLoad: begin
          if (fl != '0)                                           fault = FaultOpcode;
          else if (n != 16'd1)                                    fault = FaultCount;
          else if (!in_range(a, 32'(N), 32'(WmRows)))             fault = FaultRange;
        end
        OpMatmul: begin
          if (fl[7:2] != '0) fault = FaultOpcode;
          else if (!in_range(a, 32'(n), 32'(UbVectors)) ||
                   !in_range(b, 32'(n), 32'(AccVectors)))   fault = FaultRange;
          else if (fl[1] ? !next_valid_q : !cur_valid_q)   fault = FaultNoTile;
        end
        OpActivate: begin
          if (fl[7:2] != '0) fault = FaultOpcode;
          else if (!in_range(a, 32'(n), 32'(AccVectors)) ||
                   !in_range(32'(b[15:0]), 32'(n), 32'(UbVectors)) ||
                   (fl[1] && 32'(b[31:16]) >= 32'(BiasVectors)))  fault = FaultRange;
        end
        OpHostWrite: begin
          if (fl[7:2] != '0)                          fault = FaultOpcode;
          else if (fl[1:0] != MemUb && fl[1:0] != MemAcc) fault = FaultMemory;
          else if (!in_range(a, 32'(n), mem_size))    fault = FaultRange;
        end
        OpSync:   if (fl != '0) fault = FaultOpcode;
        default:  fault = FaultOpcode;
      endcase
    end
  end

  // ---- units ----------------------------------------------------------------------
  // matrix unit
  logic              mu_cmd_valid, mu_cmd_ready;
  logic              mu_wm_rd, mu_ub_rd, mu_acc_rd, mu_acc_wr;
  logic [WmAw-1:0]   mu_wm_addr;
  logic [UbAw-1:0]   mu_ub_addr;
  logic [AccAw-1:0]  mu_acc_rd_addr, mu_acc_wr_addr;
  logic [N*32-1:0]   mu_acc_wr_data;
  logic              mu_busy, mu_mac, mu_wstall, mu_istall, mu_loading, mu_hold;
  // memories' read data
  logic [N*16-1:0]   wm_q, ub_q;
  logic [N*32-1:0]   acc_q, bias_q;

  ftpu_matrix_unit #(
    .Rows(N), .Cols(N), .AddCuts(AddCuts), .UbAddrW(UbAw), .AccAddrW(AccAw),
    .WmAddrW(WmAw), .InFlight(InFlight)
  ) u_matrix (
    .clk_i,
    .rst_ni,
    .cmd_valid_i     (mu_cmd_valid),
    .cmd_ready_o     (mu_cmd_ready),
    .cmd_op_i        (op == OpMatmul),
    .cmd_wm_addr_i   (a[WmAw-1:0]),
    .cmd_ub_addr_i   (a[UbAw-1:0]),
    .cmd_acc_addr_i  (b[AccAw-1:0]),
    .cmd_n_i         (n),
    .cmd_accumulate_i(fl[0]),
    .cmd_swap_i      (fl[1]),
    .hold_i          (mu_hold),
    .wm_rd_o         (mu_wm_rd),
    .wm_addr_o       (mu_wm_addr),
    .wm_data_i       (wm_q),
    .ub_rd_o         (mu_ub_rd),
    .ub_addr_o       (mu_ub_addr),
    .ub_data_i       (ub_q),
    .acc_rd_o        (mu_acc_rd),
    .acc_rd_addr_o   (mu_acc_rd_addr),
    .acc_data_i      (acc_q),
    .acc_wr_o        (mu_acc_wr),
    .acc_wr_addr_o   (mu_acc_wr_addr),
    .acc_wr_data_o   (mu_acc_wr_data),
    .busy_o          (mu_busy),
    .loading_o       (mu_loading),
    .mac_o           (mu_mac),
    .weight_stall_o  (mu_wstall),
    .input_stall_o   (mu_istall)
  );

  // activation unit
  logic              act_start, act_busy;
  logic [17:0]       act_acc_lo, act_acc_hi, act_ub_lo, act_ub_hi;
  logic              act_bias_rd, act_acc_req, act_acc_gnt, act_ub_wr;
  logic [BiasAw-1:0] act_bias_addr;
  logic [AccAw-1:0]  act_acc_addr;
  logic [UbAw-1:0]   act_ub_addr;
  logic [N*16-1:0]   act_ub_data;

  ftpu_activate_unit #(
    .N(N), .AddCuts(AddCuts), .AccAddrW(AccAw), .UbAddrW(UbAw), .BiasAddrW(BiasAw)
  ) u_activate (
    .clk_i,
    .rst_ni,
    .start_i      (act_start),
    .relu_i       (fl[0]),
    .bias_en_i    (fl[1]),
    .acc_addr_i   (a[AccAw-1:0]),
    .ub_addr_i    (b[UbAw-1:0]),
    .bias_addr_i  (b[16 +: BiasAw]),
    .n_i          (n),
    .busy_o       (act_busy),
    .acc_lo_o     (act_acc_lo),
    .acc_hi_o     (act_acc_hi),
    .ub_lo_o      (act_ub_lo),
    .ub_hi_o      (act_ub_hi),
    .bias_rd_o    (act_bias_rd),
    .bias_addr_o  (act_bias_addr),
    .bias_data_i  (bias_q),
    .acc_rd_req_o (act_acc_req),
    .acc_rd_gnt_i (act_acc_gnt),
    .acc_rd_addr_o(act_acc_addr),
    .acc_data_i   (acc_q),
    .ub_wr_o      (act_ub_wr),
    .ub_wr_addr_o (act_ub_addr),
    .ub_wr_data_o (act_ub_data)
  );

  // output unit
  localparam int OuAw = (UbAw > AccAw) ? UbAw : AccAw;
  logic              ou_start, ou_busy, ou_acc, ou_req, ou_gnt;
  logic [17:0]       ou_lo, ou_hi;
  logic [OuAw-1:0]   ou_addr;
  logic              ou_valid, ou_ready;
  logic [31:0]       ou_data;

  ftpu_output_unit #(
    .N(N), .UbAddrW(UbAw), .AccAddrW(AccAw), .MaxPayload(MaxPayload)
  ) u_output (
    .clk_i,
    .rst_ni,
    .start_i    (ou_start),
    .acc_i      (fl[1:0] == MemAcc),
    .addr_i     (a[OuAw-1:0]),
    .n_i        (n),
    .abort_i    (soft_reset_i),
    .busy_o     (ou_busy),
    .acc_o      (ou_acc),
    .lo_o       (ou_lo),
    .hi_o       (ou_hi),
    .rd_req_o   (ou_req),
    .rd_gnt_i   (ou_gnt),
    .rd_addr_o  (ou_addr),
    .ub_data_i  (ub_q),
    .acc_data_i (acc_q),
    .out_valid_o(ou_valid),
    .out_ready_i(ou_ready),
    .out_data_o (ou_data)
  );

  // ---- MATMUL scoreboard: ranges of MATMULs not yet written back -----------
  logic [SbDepth-1:0]    sb_valid_q;
  logic [17:0]           sb_ub_lo_q [SbDepth];
  logic [17:0]           sb_ub_hi_q [SbDepth];
  logic [17:0]           sb_acc_lo_q [SbDepth];
  logic [17:0]           sb_acc_hi_q [SbDepth];
  logic [15:0]           sb_left_q [SbDepth];
  logic [SbW-1:0]        sb_hd_q, sb_tl_q;
  logic                  sb_push, sb_full, sb_empty;
  assign sb_full  = sb_valid_q[sb_tl_q];
  assign sb_empty = sb_valid_q == '0;

  // Does a running MATMUL touch UB / ACC rows [lo, hi)?
  logic [17:0] x_a_lo, x_a_hi, x_b_lo, x_b_hi, x_u_lo, x_u_hi;
  assign x_a_lo = 18'(a[16:0]);
  assign x_a_hi = 18'(a[16:0]) + 18'(n);
  assign x_b_lo = 18'(b[16:0]);
  assign x_b_hi = 18'(b[16:0]) + 18'(n);
  assign x_u_lo = 18'(b[15:0]);  // ACTIVATE's UB operand
  assign x_u_hi = 18'(b[15:0]) + 18'(n);

  logic sb_ub_a, sb_acc_a, sb_ub_u;
  always_comb begin
    sb_ub_a  = 1'b0;
    sb_acc_a = 1'b0;
    sb_ub_u  = 1'b0;
    for (int e = 0; e < SbDepth; e++) begin
      if (sb_valid_q[e]) begin
        if (ov(sb_ub_lo_q[e], sb_ub_hi_q[e], x_a_lo, x_a_hi))   sb_ub_a  = 1'b1;
        if (ov(sb_acc_lo_q[e], sb_acc_hi_q[e], x_a_lo, x_a_hi)) sb_acc_a = 1'b1;
        if (ov(sb_ub_lo_q[e], sb_ub_hi_q[e], x_u_lo, x_u_hi))   sb_ub_u  = 1'b1;
      end
    end
  end

  // ---- dispatch --------------------------------------------------------------
  logic ev_busy;      // the event builder is sending a frame
  logic ev_sync_go;   // SYNC hands its event over
  logic units_idle;
  assign units_idle = !mu_busy && sb_empty && !act_busy && !ou_busy && !ev_busy;

  // Must the instruction wait for an earlier one still running?
  logic wait_dep;
  always_comb begin
    wait_dep = 1'b0;
    unique case (op)
      OpHostRead: begin
        unique case (fl[1:0])
          MemUb:   wait_dep = sb_ub_a || (act_busy && ov(act_ub_lo, act_ub_hi, x_a_lo, x_a_hi)) ||
                              (ou_busy && !ou_acc && ov(ou_lo, ou_hi, x_a_lo, x_a_hi));
          MemAcc:  wait_dep = sb_acc_a || (act_busy && ov(act_acc_lo, act_acc_hi, x_a_lo, x_a_hi)) ||
                              (ou_busy && ou_acc && ov(ou_lo, ou_hi, x_a_lo, x_a_hi));
          MemWm:   wait_dep = mu_loading;
          default: wait_dep = act_busy;
        endcase
      end
      OpLoad:      wait_dep = 1'b0;
      OpMatmul:    wait_dep = sb_full ||
                              (act_busy && (ov(act_ub_lo, act_ub_hi, x_a_lo, x_a_hi) ||
                                            ov(act_acc_lo, act_acc_hi, x_b_lo, x_b_hi))) ||
                              (ou_busy && ou_acc && ov(ou_lo, ou_hi, x_b_lo, x_b_hi));
      OpActivate:  wait_dep = act_busy || sb_acc_a || sb_ub_u ||
                              (ou_busy && !ou_acc && ov(ou_lo, ou_hi, x_u_lo, x_u_hi));
      OpHostWrite: wait_dep = ou_busy || ev_busy ||
                              ((fl[1:0] == MemAcc) ? sb_acc_a :
                               (act_busy && ov(act_ub_lo, act_ub_hi, x_a_lo, x_a_hi)));
      default:     wait_dep = !units_idle;  // SYNC
    endcase
  end

  // exec_q is resolved this cycle: a fault, or a dispatch.
  logic can_exec, x_fault, x_go, x_retire;
  assign can_exec = exec_q && !flt_q && !stg_full_q && !soft_reset_i;
  assign x_fault  = can_exec && fault != '0;
  assign mu_cmd_valid = can_exec && fault == '0 && !wait_dep &&
                        (op == OpLoad || op == OpMatmul);
  always_comb begin
    x_go = 1'b0;
    if (can_exec && fault == '0 && !wait_dep) begin
      unique case (op)
        OpLoad, OpMatmul: x_go = mu_cmd_ready;
        default:          x_go = 1'b1;
      endcase
    end
  end
  assign x_retire   = x_go && op != OpHostRead;
  assign sb_push    = x_go && op == OpMatmul;
  assign act_start  = x_go && op == OpActivate;
  assign ou_start   = x_go && op == OpHostWrite;
  assign ev_sync_go = x_go && op == OpSync;

  // ---- memories --------------------------------------------------------------
  // Inline data: a complete vector is written when its port is free.
  logic stg_we;
  always_comb begin
    unique case (stg_mem_q)
      MemUb:   stg_we = stg_full_q && !act_ub_wr;
      MemAcc:  stg_we = stg_full_q && !mu_acc_wr;
      default: stg_we = stg_full_q;
    endcase
  end

  logic [N*16-1:0] ub_mem [UbVectors];
  logic [N*16-1:0] wm_mem [WmRows];
  logic [N*32-1:0] acc_mem [AccVectors];
  logic [N*32-1:0] bias_mem [BiasVectors];

  // UB: write activation (first) or inline data; read matrix (first) or output.
  logic            ub_we, ub_re;
  logic [UbAw-1:0] ub_waddr, ub_raddr;
  logic [N*16-1:0] ub_wdata;
  assign ub_we    = act_ub_wr || (stg_we && stg_mem_q == MemUb);
  assign ub_waddr = act_ub_wr ? act_ub_addr : stg_addr_q[UbAw-1:0];
  assign ub_wdata = act_ub_wr ? act_ub_data : stg_q[N*16-1:0];
  assign ub_re    = mu_ub_rd || (ou_req && !ou_acc);
  assign ub_raddr = mu_ub_rd ? mu_ub_addr : ou_addr[UbAw-1:0];
  always_ff @(posedge clk_i) begin
    if (ub_re) ub_q <= ub_mem[ub_raddr];
    if (ub_we) ub_mem[ub_waddr] <= ub_wdata;
  end

  // WM: written by inline data, read by the matrix unit.
  always_ff @(posedge clk_i) begin
    if (mu_wm_rd) wm_q <= wm_mem[mu_wm_addr];
    if (stg_we && stg_mem_q == MemWm) wm_mem[stg_addr_q[WmAw-1:0]] <= stg_q[N*16-1:0];
  end

  // ACC: write matrix (first) or inline data; read matrix, activation, output.
  logic             acc_we, acc_re;
  logic [AccAw-1:0] acc_waddr, acc_raddr;
  logic [N*32-1:0]  acc_wdata;
  assign act_acc_gnt = act_acc_req && !mu_acc_rd;
  assign acc_we    = mu_acc_wr || (stg_we && stg_mem_q == MemAcc);
  assign acc_waddr = mu_acc_wr ? mu_acc_wr_addr : stg_addr_q[AccAw-1:0];
  assign acc_wdata = mu_acc_wr ? mu_acc_wr_data : stg_q;
  assign acc_re    = mu_acc_rd || act_acc_req || (ou_req && ou_acc);
  assign acc_raddr = mu_acc_rd ? mu_acc_rd_addr :
                     act_acc_req ? act_acc_addr : ou_addr[AccAw-1:0];
  always_ff @(posedge clk_i) begin
    if (acc_re) acc_q <= acc_mem[acc_raddr];
    if (acc_we) acc_mem[acc_waddr] <= acc_wdata;
  end
  assign ou_gnt = ou_req && (ou_acc ? (!mu_acc_rd && !act_acc_req) : !mu_ub_rd);

  // Fairness: the matrix unit, first on the shared read ports, skips a
  // cycle for a unit that waited in the previous one, so ACTIVATE and
  // HOST_WRITE progress while long MATMULs run (at most every other cycle;
  // HOST_WRITE needs one read per N/2 or N link words).
  logic act_waited_q, ou_waited_q;
  assign mu_hold = (act_acc_req && act_waited_q) || (ou_req && ou_waited_q);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      act_waited_q <= 1'b0;
      ou_waited_q  <= 1'b0;
    end else begin
      act_waited_q <= act_acc_req && !act_acc_gnt;
      ou_waited_q  <= ou_req && !ou_gnt;
    end
  end

  // BIAS: written by inline data, read by the activation unit.
  always_ff @(posedge clk_i) begin
    if (act_bias_rd) bias_q <= bias_mem[act_bias_addr];
    if (stg_we && stg_mem_q == MemBias) bias_mem[stg_addr_q[BiasAw-1:0]] <= stg_q;
  end

  // ---- event builder: EVENT SYNC and EVENT FAULT frames ---------------------
  typedef enum logic [1:0] {EvIdle, EvW1, EvW2, EvPay} evstate_e;
  evstate_e    ev_q;
  logic [31:0] ev_w_q [4];
  logic [2:0]  ev_len_q;
  logic [1:0]  ev_i_q;
  logic        ev_fault_go, ev_valid, ev_ready;
  logic [31:0] ev_data;
  assign ev_busy     = ev_q != EvIdle;
  assign ev_fault_go = flt_q && !ou_busy && !ev_busy && !soft_reset_i;
  assign ev_valid    = ev_busy;
  always_comb begin
    unique case (ev_q)
      EvW1:    ev_data = {16'd0, 8'd0, TypeEvent};
      EvW2:    ev_data = {16'd0, 13'd0, ev_len_q};
      default: ev_data = ev_w_q[ev_i_q];
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ev_q     <= EvIdle;
      ev_len_q <= '0;
      ev_i_q   <= '0;
      for (int i = 0; i < 4; i++) ev_w_q[i] <= '0;
    end else begin
      unique case (ev_q)
        EvIdle: begin
          ev_i_q <= '0;
          if (ev_fault_go) begin
            ev_w_q[0] <= EventFault;
            ev_w_q[1] <= flt_pc_q;
            ev_w_q[2] <= 32'(flt_code_q);
            ev_w_q[3] <= flt_instr_q;
            ev_len_q  <= 3'd4;
            ev_q      <= EvW1;
          end else if (ev_sync_go) begin
            ev_w_q[0] <= EventSync;
            ev_w_q[1] <= a;
            ev_len_q  <= 3'd2;
            ev_q      <= EvW1;
          end
        end
        EvW1: if (ev_ready) ev_q <= EvW2;
        EvW2: if (ev_ready) ev_q <= EvPay;
        EvPay: begin
          if (ev_ready) begin
            ev_i_q <= ev_i_q + 1'b1;
            if (3'(ev_i_q) + 3'd1 == ev_len_q) ev_q <= EvIdle;
          end
        end
        default: ev_q <= EvIdle;
      endcase
    end
  end

  // The output unit and the event builder never send at once (SYNC and
  // FAULT wait for the output unit, HOST_WRITE for the event builder).
  assign out_valid_o = ou_valid || ev_valid;
  assign out_data_o  = ou_valid ? ou_data : ev_data;
  assign ou_ready    = out_ready_i;
  assign ev_ready    = out_ready_i && !ou_valid;

  // ---- decoder: words in ------------------------------------------------------
  logic [WordW-1:0] wpv;  // words per vector of the HOST_READ's memory
  assign wpv = (hr_mem_q == MemUb || hr_mem_q == MemWm) ? WordW'(N / 2) : WordW'(N);

  logic take, fend_go;
  assign in_ready_o = !soft_reset_i && !flt_q &&
                      (fs_q != FPay || (!fend_q && !exec_q && !(hr_q && stg_full_q)));
  assign take    = in_valid_i && in_ready_o;
  assign fend_go = fend_q && !exec_q && !flt_q && !soft_reset_i;

  // Raising a fault: recorded now, sent by the event builder.
  logic       raise;
  logic [2:0] raise_code;
  logic [31:0] raise_pc, raise_instr;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fs_q         <= FW1;
      fflags_q     <= '0;
      fleft_q      <= '0;
      fend_q       <= 1'b0;
      fdrop_q      <= 1'b0;
      ffirst_q     <= 1'b0;
      in_prog_q    <= 1'b0;
      discard_q    <= 1'b0;
      have_q       <= '0;
      iw0_q        <= '0;
      iw1_q        <= '0;
      iw2_q        <= '0;
      exec_q       <= 1'b0;
      pc_q         <= '0;
      cur_valid_q  <= 1'b0;
      next_valid_q <= 1'b0;
      hr_q         <= 1'b0;
      hr_mem_q     <= '0;
      hr_addr_q    <= '0;
      hr_left_q    <= '0;
      hr_word_q    <= '0;
      stg_q        <= '0;
      stg_full_q   <= 1'b0;
      stg_mem_q    <= '0;
      stg_addr_q   <= '0;
      flt_q        <= 1'b0;
      flt_code_q   <= '0;
      flt_pc_q     <= '0;
      flt_instr_q  <= '0;
    end else if (soft_reset_i) begin
      fs_q         <= FW1;
      fend_q       <= 1'b0;
      fdrop_q      <= 1'b0;
      ffirst_q     <= 1'b0;
      in_prog_q    <= 1'b0;
      discard_q    <= 1'b0;
      have_q       <= '0;
      exec_q       <= 1'b0;
      pc_q         <= '0;
      cur_valid_q  <= 1'b0;
      next_valid_q <= 1'b0;
      hr_q         <= 1'b0;
      stg_full_q   <= 1'b0;
      flt_q        <= 1'b0;
    end else begin
      if (stg_we) stg_full_q <= 1'b0;
      if (ev_fault_go) flt_q <= 1'b0;

      // Words of a frame.
      if (take) begin
        unique case (fs_q)
          FW1: begin
            fflags_q <= in_data_i[9:8];
            fs_q     <= FW2;
          end
          FW2: begin
            // START ends an open program first (TRUNCATED if cut short).
            if (in_data_i[15:0] == 16'd0) fend_q <= 1'b1;
            fleft_q <= in_data_i[15:0];
            fs_q    <= FPay;
            if (fflags_q[0]) begin
              in_prog_q <= 1'b1;
              discard_q <= 1'b0;
              pc_q      <= '0;
              have_q    <= '0;
              hr_q      <= 1'b0;
              fdrop_q   <= 1'b0;
            end else if (!in_prog_q) begin
              fdrop_q  <= 1'b1;
              ffirst_q <= in_data_i[15:0] != 16'd0;
            end else begin
              fdrop_q <= 1'b0;
            end
          end
          default: begin  // FPay
            fleft_q <= fleft_q - 16'd1;
            if (fleft_q == 16'd1) fend_q <= 1'b1;
            if (fdrop_q) begin
              ffirst_q <= 1'b0;
            end else if (discard_q) begin
              // the rest of a faulted program
            end else if (hr_q) begin
              stg_q[32*hr_word_q +: 32] <= in_data_i;
              if (hr_word_q == wpv - 1'b1) begin
                hr_word_q  <= '0;
                stg_full_q <= 1'b1;
                stg_mem_q  <= hr_mem_q;
                stg_addr_q <= hr_addr_q;
                hr_addr_q  <= hr_addr_q + 1'b1;
                hr_left_q  <= hr_left_q - 16'd1;
                if (hr_left_q == 16'd1) begin
                  hr_q <= 1'b0;
                  pc_q <= pc_q + 1'b1;
                end
              end else begin
                hr_word_q <= hr_word_q + 1'b1;
              end
            end else begin
              unique case (have_q)
                2'd0:    iw0_q <= in_data_i;
                2'd1:    iw1_q <= in_data_i;
                default: iw2_q <= in_data_i;
              endcase
              if (have_q == 2'd2) begin
                have_q <= '0;
                exec_q <= 1'b1;
              end else begin
                have_q <= have_q + 1'b1;
              end
            end
          end
        endcase
      end

      // The complete instruction: fault or dispatch.
      if (x_fault) exec_q <= 1'b0;
      if (x_go) begin
        exec_q <= 1'b0;
        if (op != OpHostRead) pc_q <= pc_q + 1'b1;
        unique case (op)
          OpHostRead: begin
            hr_q      <= 1'b1;
            hr_mem_q  <= fl[1:0];
            hr_addr_q <= a[16:0];
            hr_left_q <= n;
            hr_word_q <= '0;
          end
          OpLoad:   next_valid_q <= 1'b1;
          OpMatmul: begin
            if (fl[1]) begin
              cur_valid_q  <= 1'b1;
              next_valid_q <= 1'b0;
            end
          end
          default: ;
        endcase
      end

      // End of a frame: END closes the program (TRUNCATED if cut short).
      if (fend_go) begin
        fend_q  <= 1'b0;
        fdrop_q <= 1'b0;
        fs_q    <= FW1;
        if (fflags_q[1] && in_prog_q && !fdrop_q) begin
          in_prog_q <= 1'b0;
          discard_q <= 1'b0;
          have_q    <= '0;
          hr_q      <= 1'b0;
        end
      end

      if (raise) begin
        flt_q       <= 1'b1;
        flt_code_q  <= raise_code;
        flt_pc_q    <= raise_pc;
        flt_instr_q <= raise_instr;
        exec_q      <= 1'b0;
        have_q      <= '0;
        hr_q        <= 1'b0;
        // FRAMING leaves no program to discard; START reopens one and END
        // closes it (as in ref_device.c, where they follow the fault).
        if (raise_code != FaultFraming && !(take && fs_q == FW2 && fflags_q[0]) && !fend_go)
          discard_q <= 1'b1;
      end
    end
  end

  // Which fault is raised this cycle (at most one: each case needs a
  // different decoder step, and none runs while a fault is pending).
  always_comb begin
    raise       = 1'b0;
    raise_code  = '0;
    raise_pc    = pc_q;
    raise_instr = iw0_q;
    if (x_fault) begin
      raise      = 1'b1;
      raise_code = fault;
    end else if (take && fs_q == FW2 && fflags_q[0] && in_prog_q && !discard_q &&
                 (have_q != '0 || hr_q)) begin
      raise      = 1'b1;               // START inside an instruction
      raise_code = FaultTruncated;
    end else if (take && fs_q == FW2 && !fflags_q[0] && !in_prog_q &&
                 in_data_i[15:0] == 16'd0) begin
      raise       = 1'b1;              // an empty frame outside a program
      raise_code  = FaultFraming;
      raise_pc    = '0;
      raise_instr = '0;
    end else if (take && fs_q == FPay && fdrop_q && ffirst_q) begin
      raise       = 1'b1;              // the first word outside a program
      raise_code  = FaultFraming;
      raise_pc    = '0;
      raise_instr = in_data_i;
    end else if (fend_go && fflags_q[1] && in_prog_q && !fdrop_q && !discard_q &&
                 (have_q != '0 || hr_q)) begin
      raise      = 1'b1;               // END inside an instruction
      raise_code = FaultTruncated;
    end
  end

  // ---- scoreboard update ------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sb_valid_q <= '0;
      sb_hd_q    <= '0;
      sb_tl_q    <= '0;
      for (int e = 0; e < SbDepth; e++) begin
        sb_ub_lo_q[e]  <= '0;
        sb_ub_hi_q[e]  <= '0;
        sb_acc_lo_q[e] <= '0;
        sb_acc_hi_q[e] <= '0;
        sb_left_q[e]   <= '0;
      end
    end else begin
      if (mu_acc_wr) begin
        sb_left_q[sb_hd_q] <= sb_left_q[sb_hd_q] - 16'd1;
        if (sb_left_q[sb_hd_q] == 16'd1) begin
          sb_valid_q[sb_hd_q] <= 1'b0;
          sb_hd_q <= (sb_hd_q == SbW'(SbDepth - 1)) ? '0 : sb_hd_q + 1'b1;
        end
      end
      if (sb_push) begin
        sb_valid_q[sb_tl_q]  <= 1'b1;
        sb_ub_lo_q[sb_tl_q]  <= x_a_lo;
        sb_ub_hi_q[sb_tl_q]  <= x_a_hi;
        sb_acc_lo_q[sb_tl_q] <= x_b_lo;
        sb_acc_hi_q[sb_tl_q] <= x_b_hi;
        sb_left_q[sb_tl_q]   <= n;
        sb_tl_q <= (sb_tl_q == SbW'(SbDepth - 1)) ? '0 : sb_tl_q + 1'b1;
      end
    end
  end

  // ---- status and events -----------------------------------------------------------
  assign busy_o = mu_busy || !sb_empty || act_busy || ou_busy || ev_busy ||
                  hr_q || stg_full_q || exec_q || flt_q;
  assign reset_done_o = !mu_busy && sb_empty && !act_busy && !ou_busy && !ev_busy;
  assign frame_idle_o = fs_q == FW1 && !busy_o;
  assign state_o = discard_q ? StateFaulted :
                   (in_prog_q || busy_o || fs_q != FW1) ? StateRunning : StateIdle;

  assign ev_mac_o          = mu_mac;
  assign ev_weight_stall_o = mu_wstall;
  assign ev_input_stall_o  = mu_istall || (hr_q && !in_valid_i);
  assign ev_output_stall_o = (ou_valid && !out_ready_i) ||
                             (can_exec && fault == '0 && !x_go);
  // HOST_READ retires with its last data word, the others at dispatch.
  assign ev_instr_o = x_retire ||
                      (take && fs_q == FPay && !fdrop_q && !discard_q && hr_q &&
                       hr_word_q == wpv - 1'b1 && hr_left_q == 16'd1);

  assign fault_valid_o = ev_fault_go;
  assign fault_pc_o    = flt_pc_q;
  assign fault_code_o  = 32'(flt_code_q);
  assign fault_instr_o = flt_instr_q;

  // Address bits beyond the smaller memories.
  logic unused;
  assign unused = ^stg_addr_q;

  // ---- assertions (rtl/include/ftpu_assert.svh) ------------------------------
  // DATA and EVENT frames: valid and data held until taken (RESET may cut a
  // frame before its first word, ftpu_output_unit).
  `FTPU_ASSERT_STREAM(a_out_stream, clk_i, rst_ni && !soft_reset_i, out_valid_o,
                      out_ready_i, out_data_o)
  `FTPU_ASSERT(a_out_one_source, clk_i, rst_ni, !(ou_valid && ev_valid))
  // The shared ports grant one user per cycle.
  `FTPU_ASSERT_ONEHOT0(a_ub_rd_grant, clk_i, rst_ni, {mu_ub_rd, ou_gnt && !ou_acc})
  `FTPU_ASSERT_ONEHOT0(a_acc_rd_grant, clk_i, rst_ni,
                       {mu_acc_rd, act_acc_gnt, ou_gnt && ou_acc})
  `FTPU_ASSERT_ONEHOT0(a_ub_wr_grant, clk_i, rst_ni,
                       {act_ub_wr, stg_we && stg_mem_q == MemUb})
  `FTPU_ASSERT_ONEHOT0(a_acc_wr_grant, clk_i, rst_ni,
                       {mu_acc_wr, stg_we && stg_mem_q == MemAcc})
  // Scoreboard: no MATMUL pushed when full, no ACC write without its entry.
  `FTPU_ASSERT(a_sb_overflow, clk_i, rst_ni, !(sb_push && sb_full))
  `FTPU_ASSERT(a_sb_underflow, clk_i, rst_ni, !mu_acc_wr || sb_valid_q[sb_hd_q])
endmodule
