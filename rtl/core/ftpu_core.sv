// SPDX-License-Identifier: Apache-2.0
`include "ftpu_assert.svh"
// ftpu_core: the device's data path behind the link — PROGRAM frames in,
// DATA and EVENT frames out (docs/core.md, docs/isa.md) — wired from:
//
//   ftpu_core_decoder   frames to instructions, HOST_READ data, faults
//   ftpu_core_check     is the instruction well formed (its fault code)
//   ftpu_core_hazards   may it dispatch while earlier ones run (scoreboard)
//   ftpu_core_memories  UB, WM, ACC, BIAS and their port priorities
//   ftpu_core_events    EVENT SYNC / FAULT frames, the one output stream
//   the units           ftpu_matrix_unit (LOAD_WEIGHTS, MATMUL),
//                       ftpu_activate_unit (ACTIVATE), ftpu_output_unit
//                       (HOST_WRITE), ftpu_vector_unit (VADD..VSEED,
//                       CONVERT, COPY; built when VectorUnit is 1)
//
// A complete instruction is checked and then dispatched in order to its
// unit (HOST_READ to the decoder's own data path, SYNC to the event builder
// once every unit is idle); it retires (counted, pc + 1) at dispatch,
// HOST_READ with its last data word. All of it follows model/ref_device.c,
// the executable specification, fault for fault.
//
// soft_reset_i (CONTROL RESET): the decoder drops its program state, its
// pending instruction, fault and vector; running units finish (the output
// unit after its current frame); reset_done_o is then high.
module ftpu_core #(
  parameter int          N           = ftpu_pkg::DEFAULT_N,
  parameter int unsigned AddCuts     = ftpu_pkg::DEFAULT_AddCuts,
  parameter int          UbVectors   = ftpu_pkg::DEFAULT_UbVectors,
  parameter int          WmRows      = ftpu_pkg::DEFAULT_WmRows,
  parameter int          AccVectors  = ftpu_pkg::DEFAULT_AccVectors,
  parameter int          BiasVectors = ftpu_pkg::DEFAULT_BiasVectors,
  parameter int          InFlight    = ftpu_pkg::DEFAULT_InFlight,
  parameter int unsigned VectorUnit  = ftpu_pkg::DEFAULT_VectorUnit,
  parameter int unsigned InOrder     = ftpu_pkg::DEFAULT_InOrder,
  parameter int          ActLanes    = ftpu_pkg::DEFAULT_ActLanes,  // 0: N
  parameter int          ColSkew     = ftpu_pkg::DEFAULT_ColSkew,  // 0: activations reach every column at once
  parameter int          PipeRegs    = ftpu_pkg::DEFAULT_PipeRegs,  // 1: registers for the clock of large parts
  parameter int          LinkBytes   = ftpu_pkg::DEFAULT_LinkBytes, // 1 or 4
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
  localparam logic [7:0] OpMatmul    = ftpu_pkg::OP_MATMUL;
  localparam logic [7:0] OpActivate  = ftpu_pkg::OP_ACTIVATE;
  localparam logic [7:0] OpHostWrite = ftpu_pkg::OP_HOST_WRITE;
  localparam logic [7:0] OpSync      = ftpu_pkg::OP_SYNC;
  localparam logic [7:0] OpVadd      = ftpu_pkg::OP_VADD;
  localparam logic [7:0] OpCopy      = ftpu_pkg::OP_COPY;
  localparam logic [1:0] MemAcc = ftpu_pkg::MEM_ACC;
  localparam logic [1:0] StateIdle = ftpu_pkg::STATE_IDLE, StateRunning = ftpu_pkg::STATE_RUNNING;
  localparam logic [1:0] StateFaulted = ftpu_pkg::STATE_FAULTED;

  if (N < 2 || N % 2 != 0) begin : g_bad_n
    $error("ftpu_core: N must be even and at least 2");
  end

  // ---- what the decoder hands on --------------------------------------------
  logic [7:0]  op, fl;
  logic [15:0] n;
  logic [31:0] a, b;
  logic        tile_cur, tile_next, wait_dep, dispatch, dec_stall, retire;
  logic [2:0]  fault;
  logic        vec_full, vec_we;
  logic [1:0]  vec_mem;
  logic [16:0] vec_addr, vec_wm_addr;
  logic        vec_also_wm;
  logic [N*32-1:0] vec_data;
  logic        flt, flt_sent;
  logic [2:0]  flt_code;
  logic [31:0] flt_pc, flt_instr;
  logic        dec_busy, dec_in_program, dec_discarding, dec_between, dec_data_wait;
  logic        units_idle, ev_busy;

  // ---- units ----------------------------------------------------------------------
  // matrix unit (LOAD_WEIGHTS, MATMUL)
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
  localparam int     VW = ftpu_pkg::VECTOR_WIDTH;  // the vector unit's wide ACC ports
  logic [VW*N*32-1:0] acc_qx, acc_q2, acc_q3;

  ftpu_matrix_unit #(
    .Rows(N), .Cols(N), .AddCuts(AddCuts), .ColSkew(ColSkew), .UbAddrW(UbAw),
    .AccAddrW(AccAw), .WmAddrW(WmAw), .InFlight(InFlight),
    .PipeRegs(PipeRegs)
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
  logic              act_busy;
  logic [17:0]       act_acc_lo, act_acc_hi, act_ub_lo, act_ub_hi;
  logic              act_bias_rd, act_acc_req, act_acc_gnt, act_ub_wr;
  logic [BiasAw-1:0] act_bias_addr;
  logic [AccAw-1:0]  act_acc_addr;
  logic [UbAw-1:0]   act_ub_addr;
  logic [N*16-1:0]   act_ub_data;

  ftpu_activate_unit #(
    .N(N), .AddCuts(AddCuts), .AccAddrW(AccAw), .UbAddrW(UbAw), .BiasAddrW(BiasAw),
    .Lanes(ActLanes == 0 ? N : ActLanes), .InReg(PipeRegs)
  ) u_activate (
    .clk_i,
    .rst_ni,
    .start_i      (dispatch && op == OpActivate),
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
  logic              ou_busy, ou_acc, ou_req, ou_gnt;
  logic [17:0]       ou_lo, ou_hi;
  logic [OuAw-1:0]   ou_addr;
  logic              ou_valid, ou_ready;
  logic [31:0]       ou_data;

  ftpu_output_unit #(
    .N(N), .UbAddrW(UbAw), .AccAddrW(AccAw), .MaxPayload(MaxPayload)
  ) u_output (
    .clk_i,
    .rst_ni,
    .start_i    (dispatch && op == OpHostWrite),
    .acc_i      (fl[1:0] == MemAcc),
    .part_i     ((fl & ftpu_pkg::HOST_WRITE_WORDS) != '0),
    .words_i    ($clog2(N + 1)'(b)),  // 1..N, checked
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

  // vector unit: its ports, all idle without one
  logic              vu_busy;
  logic              vu_acc_wr, vu_ub_rd, vu_ub_wr, vu_wm_rd, vu_wm_wr;
  logic              vu_acc_rdx, vu_acc_rd2, vu_acc_rd3;
  logic [AccAw-1:0]  vu_acc_wr_addr, vu_acc_rd2_addr, vu_acc_rd3_addr;
  logic [AccAw-1:0]  vu_acc_rdx_addr;
  logic [VW-1:0]     vu_acc_wr_mask;
  logic [UbAw-1:0]   vu_ub_rd_addr, vu_ub_wr_addr;
  logic [WmAw-1:0]   vu_wm_rd_addr, vu_wm_wr_addr;
  logic [VW*N*32-1:0] vu_acc_wr_data;
  logic [N*16-1:0]   vu_ub_wr_data, vu_wm_wr_data;

  if (VectorUnit != 0) begin : g_vector_unit
    ftpu_vector_unit #(
      .N(N), .AddCuts(AddCuts), .UbAddrW(UbAw), .WmAddrW(WmAw), .AccAddrW(AccAw)
    ) u_vector (
      .clk_i,
      .rst_ni,
      .start_i      (dispatch && op >= OpVadd && op <= OpCopy),
      .op_i         (op),
      .flags_i      (fl),
      .n_i          (n),
      .w1_i         (a),
      .w2_i         (b),
      .busy_o       (vu_busy),
      .acc_rdx_o    (vu_acc_rdx),
      .acc_rdx_addr_o(vu_acc_rdx_addr),
      .acc_datax_i  (acc_qx),
      .acc_rd2_o    (vu_acc_rd2),
      .acc_rd2_addr_o(vu_acc_rd2_addr),
      .acc_data2_i  (acc_q2),
      .acc_rd3_o    (vu_acc_rd3),
      .acc_rd3_addr_o(vu_acc_rd3_addr),
      .acc_data3_i  (acc_q3),
      .acc_wr_o     (vu_acc_wr),
      .acc_wr_addr_o(vu_acc_wr_addr),
      .acc_wr_data_o(vu_acc_wr_data),
      .acc_wr_mask_o(vu_acc_wr_mask),
      .ub_rd_o      (vu_ub_rd),
      .ub_rd_addr_o (vu_ub_rd_addr),
      .ub_data_i    (ub_q),
      .ub_wr_o      (vu_ub_wr),
      .ub_wr_addr_o (vu_ub_wr_addr),
      .ub_wr_data_o (vu_ub_wr_data),
      .wm_rd_o      (vu_wm_rd),
      .wm_rd_addr_o (vu_wm_rd_addr),
      .wm_data_i    (wm_q),
      .wm_wr_o      (vu_wm_wr),
      .wm_wr_addr_o (vu_wm_wr_addr),
      .wm_wr_data_o (vu_wm_wr_data)
    );
  end else begin : g_no_vector_unit
    // Its opcodes are OPCODE faults (ftpu_core_check): never dispatched.
    assign vu_busy = 1'b0;
    assign {vu_acc_wr, vu_ub_rd, vu_ub_wr, vu_wm_rd, vu_wm_wr} = '0;
    assign {vu_acc_wr_addr, vu_ub_rd_addr, vu_ub_wr_addr} = '0;
    assign {vu_acc_rd2, vu_acc_rd3, vu_acc_rd2_addr, vu_acc_rd3_addr} = '0;
    assign {vu_acc_rdx, vu_acc_rdx_addr, vu_acc_wr_mask} = '0;
    logic unused_vu_data;  // the operand ports exist only with the unit
    assign unused_vu_data = ^{acc_qx, acc_q2, acc_q3};
    assign {vu_wm_rd_addr, vu_wm_wr_addr, vu_acc_wr_data, vu_ub_wr_data, vu_wm_wr_data} = '0;
  end

  // ---- decoder, check, hazards --------------------------------------------
  // With PipeRegs the decoder holds a complete instruction a cycle
  // before it may dispatch, and the check's fault code and the hazards'
  // range tests come from registers (docs/core.md, Dispatch): both depend
  // only on the instruction and on state that changes when one dispatches.
  logic [2:0] fault_chk;  // the fault code as dispatch sees it
  if (PipeRegs != 0) begin : g_check_stage
    logic [2:0] fault_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) fault_q <= '0;
      else         fault_q <= fault;
    end
    assign fault_chk = fault_q;
  end else begin : g_check_now
    assign fault_chk = fault;
  end

  ftpu_core_decoder #(.N(N), .U8(VectorUnit), .WordLink(32'(LinkBytes >= 4)),
                      .PipeRegs(PipeRegs)) u_decoder (
    .clk_i, .rst_ni, .soft_reset_i, .in_valid_i, .in_ready_o, .in_data_i,
    .op_o(op), .flags_o(fl), .n_o(n), .a_o(a), .b_o(b),
    .tile_cur_o(tile_cur), .tile_next_o(tile_next),
    .fault_i(fault_chk), .wait_i(wait_dep), .mu_ready_i(mu_cmd_ready), .mu_cmd_valid_o(mu_cmd_valid),
    .dispatch_o(dispatch), .stall_o(dec_stall), .retire_o(retire),
    .vec_full_o(vec_full), .vec_mem_o(vec_mem), .vec_addr_o(vec_addr), .vec_data_o(vec_data),
    .vec_also_wm_o(vec_also_wm), .vec_wm_addr_o(vec_wm_addr),
    .vec_we_i(vec_we),
    .fault_o(flt), .fault_code_o(flt_code), .fault_pc_o(flt_pc), .fault_instr_o(flt_instr),
    .fault_sent_i(flt_sent),
    .busy_o(dec_busy), .in_program_o(dec_in_program), .discarding_o(dec_discarding),
    .between_frames_o(dec_between), .data_wait_o(dec_data_wait)
  );

  ftpu_core_check #(
    .N(N), .UbVectors(UbVectors), .WmRows(WmRows), .AccVectors(AccVectors),
    .BiasVectors(BiasVectors), .VectorUnit(VectorUnit)
  ) u_check (
    .op_i       (op),
    .flags_i    (fl),
    .n_i        (n),
    .a_i        (a),
    .b_i        (b),
    .tile_cur_i (tile_cur),
    .tile_next_i(tile_next),
    .fault_o    (fault)
  );

  ftpu_core_hazards #(.InFlight(InFlight), .Rows(N), .VectorUnit(VectorUnit), .InOrder(InOrder),
                      .PipeRegs(PipeRegs))
      u_hazards (
    .clk_i,
    .rst_ni,
    .op_i        (op),
    .mem_i       (fl[1:0]),
    .n_i         (n),
    .a_i         (a[16:0]),
    .b_i         (b[16:0]),
    .flags_i     (fl),
    .w1_i        (a),
    .w2_i        (b),
    .matmul_go_i (dispatch && op == OpMatmul),
    .vu_go_i     (dispatch && op >= OpVadd && op <= OpCopy),
    .wait_o      (wait_dep),
    .mu_busy_i   (mu_busy),
    .mu_loading_i(mu_loading),
    .mu_acc_wr_i (mu_acc_wr),
    .act_busy_i  (act_busy),
    .act_acc_lo_i(act_acc_lo),
    .act_acc_hi_i(act_acc_hi),
    .act_ub_lo_i (act_ub_lo),
    .act_ub_hi_i (act_ub_hi),
    .ou_busy_i   (ou_busy),
    .ou_acc_i    (ou_acc),
    .ou_lo_i     (ou_lo),
    .ou_hi_i     (ou_hi),
    .ev_busy_i   (ev_busy),
    .vu_busy_i   (vu_busy),
    .units_idle_o(units_idle)
  );

  // ---- memories and the output stream ----------------------------------------
  ftpu_core_memories #(
    .N(N), .UbVectors(UbVectors), .WmRows(WmRows), .AccVectors(AccVectors),
    .BiasVectors(BiasVectors), .VectorUnit(VectorUnit)
  ) u_memories (
    .clk_i, .rst_ni,
    .mu_wm_rd_i(mu_wm_rd), .mu_wm_addr_i(mu_wm_addr), .mu_ub_rd_i(mu_ub_rd),
    .mu_ub_addr_i(mu_ub_addr), .mu_acc_rd_i(mu_acc_rd), .mu_acc_rd_addr_i(mu_acc_rd_addr),
    .mu_acc_wr_i(mu_acc_wr), .mu_acc_wr_addr_i(mu_acc_wr_addr),
    .mu_acc_wr_data_i(mu_acc_wr_data), .mu_hold_o(mu_hold),
    .act_bias_rd_i(act_bias_rd), .act_bias_addr_i(act_bias_addr), .act_acc_req_i(act_acc_req),
    .act_acc_gnt_o(act_acc_gnt), .act_acc_addr_i(act_acc_addr), .act_ub_wr_i(act_ub_wr),
    .act_ub_addr_i(act_ub_addr), .act_ub_data_i(act_ub_data),
    .ou_req_i(ou_req), .ou_acc_i(ou_acc), .ou_gnt_o(ou_gnt), .ou_addr_i(ou_addr),
    .vu_acc_wr_i(vu_acc_wr),
    .vu_acc_rdx_i(vu_acc_rdx), .vu_acc_rdx_addr_i(vu_acc_rdx_addr),
    .vu_acc_rd2_i(vu_acc_rd2), .vu_acc_rd2_addr_i(vu_acc_rd2_addr),
    .vu_acc_rd3_i(vu_acc_rd3), .vu_acc_rd3_addr_i(vu_acc_rd3_addr),
    .vu_acc_wr_addr_i(vu_acc_wr_addr), .vu_acc_wr_data_i(vu_acc_wr_data),
    .vu_acc_wr_mask_i(vu_acc_wr_mask),
    .vu_ub_rd_i(vu_ub_rd), .vu_ub_rd_addr_i(vu_ub_rd_addr), .vu_ub_wr_i(vu_ub_wr),
    .vu_ub_wr_addr_i(vu_ub_wr_addr), .vu_ub_wr_data_i(vu_ub_wr_data),
    .vu_wm_rd_i(vu_wm_rd), .vu_wm_rd_addr_i(vu_wm_rd_addr), .vu_wm_wr_i(vu_wm_wr),
    .vu_wm_wr_addr_i(vu_wm_wr_addr), .vu_wm_wr_data_i(vu_wm_wr_data),
    .vec_full_i(vec_full), .vec_mem_i(vec_mem), .vec_addr_i(vec_addr), .vec_data_i(vec_data),
    .vec_also_wm_i(vec_also_wm), .vec_wm_addr_i(vec_wm_addr),
    .vec_we_o(vec_we),
    .ub_q_o(ub_q), .wm_q_o(wm_q), .acc_q_o(acc_q), .bias_q_o(bias_q),
    .acc_qx_o(acc_qx), .acc_q2_o(acc_q2), .acc_q3_o(acc_q3)
  );

  ftpu_core_events u_events (
    .clk_i, .rst_ni, .soft_reset_i, .fault_i(flt), .fault_code_i(flt_code),
    .fault_pc_i(flt_pc), .fault_instr_i(flt_instr), .fault_sent_o(flt_sent),
    .sync_i(dispatch && op == OpSync), .sync_tag_i(a), .busy_o(ev_busy), .ou_busy_i(ou_busy),
    .ou_valid_i(ou_valid), .ou_ready_o(ou_ready), .ou_data_i(ou_data), .out_valid_o,
    .out_ready_i, .out_data_o
  );

  // ---- status and events -----------------------------------------------------------
  assign busy_o       = !units_idle || dec_busy;
  assign reset_done_o = units_idle;
  assign frame_idle_o = dec_between && !busy_o;
  assign state_o = dec_discarding ? StateFaulted :
                   (dec_in_program || busy_o) ? StateRunning : StateIdle;

  assign ev_mac_o          = mu_mac;
  assign ev_weight_stall_o = mu_wstall;
  assign ev_input_stall_o  = mu_istall || dec_data_wait;
  assign ev_output_stall_o = (ou_valid && !out_ready_i) || dec_stall;
  assign ev_instr_o        = retire;

  assign fault_valid_o = flt_sent;
  assign fault_pc_o    = flt_pc;
  assign fault_code_o  = 32'(flt_code);
  assign fault_instr_o = flt_instr;
endmodule
