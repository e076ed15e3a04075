// SPDX-License-Identifier: Apache-2.0
// ftpu_control: the device's control plane. It answers CONTROL frames
// (docs/protocol.md §7.1, §7.2) with RESPONSE frames, keeps the performance
// counters and the fault record, and shows all of it through a small
// register interface (docs/registers.md), so that a control core running
// firmware can take the control plane over later without touching the data
// path. The RESPONSE payloads are those of model/ref_device.c (on_control)
// for the same request and state, INFO keys in the same order.
//
// Request input: one CONTROL frame as words, as ftpu_link_rx delivers it:
// w1 = {seq[31:16], flags[15:8], type[7:0]}, w2 = {credit[31:16], len[15:0]},
// then len payload words. The receiver refuses CONTROL frames longer than
// MAX_CONTROL (16) with OVERFLOW; this block takes any len anyway (only the
// first payload word, the op, is kept). One frame at a time: req_ready_o is
// low from the last word of a request until its RESPONSE has been taken.
//
// Response output: w1 = {seq echoed, flags 0, type 0x81}, w2 = {credit, len},
// then op, status and the results, in the format ftpu_link_tx takes. The
// credit is credit_i sampled when w1 is taken. Words are held while
// rsp_valid_o && !rsp_ready_i.
//
// Handling: in the cycle after the last request word (StExec) the status is
// decided and the results are snapshot into registers in that one cycle
// (STATUS, READ_COUNTERS, READ_FAULTS); CLEAR_COUNTERS zeroes the counters
// at the end of that cycle; RESET also clears the fault record and pulses
// reset_o for one cycle (the cycle after StExec). The RESPONSE to a RESET
// waits until reset_done_i is high, sampled from the cycle after the pulse:
// the core holds reset_done_i low until it has discarded its receive buffer
// and program and is idle again (a core that is idle one cycle after
// reset_o may tie it to 1), so that the RESPONSE's credit is IQ_WORDS.
//
// Counters count from the cycle after a clear (cycles: clock cycles; the
// ev_*_i inputs: cycles they are high; ev_mac_i adds Rows*Cols; ev_byte_*_i
// add one byte). 32-bit counters wrap; macs and bytes are 64 bits.
// Faults: a fault_valid_i pulse records pc, code and instruction word and
// counts one fault; a RESET (link or register) in the same cycle wins.
// Registers: CMD bit 2 (SNAPSHOT) copies all counters in one cycle to the
// SNAP registers, so that firmware answering READ_COUNTERS through the
// registers gives one snapshot as the FSM does (busy + idle == cycles).
module ftpu_control #(
  parameter int unsigned Rows        = ftpu_pkg::DEFAULT_N,
  parameter int unsigned Cols        = ftpu_pkg::DEFAULT_N,
  parameter int unsigned UbVectors   = ftpu_pkg::DEFAULT_UbVectors,
  parameter int unsigned WeightTiles = ftpu_pkg::DEFAULT_WmRows / ftpu_pkg::DEFAULT_N,
  parameter int unsigned AccVectors  = ftpu_pkg::DEFAULT_AccVectors,
  parameter int unsigned BiasVectors = ftpu_pkg::DEFAULT_BiasVectors,
  parameter int unsigned IqWords     = ftpu_pkg::DEFAULT_IqWords,
  parameter int unsigned ClockHz     = ftpu_pkg::DEFAULT_ClockHz,
  parameter int unsigned RowDelay    = 1,
  parameter int unsigned MaxPayload  = ftpu_pkg::LINK_MAX_PAYLOAD,
  parameter int unsigned VectorUnit  = ftpu_pkg::DEFAULT_VectorUnit,  // INFO FEATURES
  parameter int unsigned InOrder     = ftpu_pkg::DEFAULT_InOrder,     // INFO FEATURES
  parameter int          LinkBytes   = ftpu_pkg::DEFAULT_LinkBytes    // INFO LINK_BYTES
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // CONTROL frame words from the receiver
  input  logic        req_valid_i,
  output logic        req_ready_o,
  input  logic [31:0] req_data_i,
  // RESPONSE frame words to the transmitter
  output logic        rsp_valid_o,
  input  logic        rsp_ready_i,
  output logic [31:0] rsp_data_o,
  input  logic [15:0] credit_i,       // free receive-buffer words, saturated
  // execution state for STATUS
  input  logic [1:0]  state_i,        // enum ftpu_link_dev_state
  input  logic [31:0] free_words_i,   // free receive-buffer words
  input  logic [31:0] queued_words_i, // PROGRAM words not yet executed
  // per-cycle events for the counters
  input  logic        ev_busy_i,
  input  logic        ev_mac_i,       // the array took a vector: Rows*Cols MACs
  input  logic        ev_weight_stall_i,
  input  logic        ev_input_stall_i,
  input  logic        ev_output_stall_i,
  input  logic        ev_idle_i,
  input  logic [2:0]  ev_bytes_in_i,   // bytes the link received this cycle
  input  logic [2:0]  ev_bytes_out_i,  // bytes the link sent this cycle
  input  logic        ev_instr_i,     // an instruction retired
  // fault record
  input  logic        fault_valid_i,
  input  logic [31:0] fault_pc_i,
  input  logic [31:0] fault_code_i,
  input  logic [31:0] fault_instr_i,
  // reset of the rest of the core
  output logic        reset_o,        // one-cycle pulse
  input  logic        reset_done_i,   // the core is idle after reset_o
  // register interface (docs/registers.md), read data one cycle later
  input  logic        reg_req_i,
  input  logic        reg_we_i,
  input  logic [7:0]  reg_addr_i,
  input  logic [31:0] reg_wdata_i,
  output logic [31:0] reg_rdata_o
);
  // docs/protocol.md §7 (ops, status codes, response words): ftpu_pkg
  localparam logic [31:0] Version = {16'(ftpu_pkg::LINK_VERSION_MAJOR),
                                     16'(ftpu_pkg::LINK_VERSION_MINOR)};
  localparam logic [31:0] Features = 32'(VectorUnit != 0) << ftpu_pkg::FEATURE_VECTOR_UNIT_LSB |
                                     32'(InOrder != 0) << ftpu_pkg::FEATURE_IN_ORDER_LSB;
  localparam logic [63:0] MacsPerVector = 64'(Rows) * 64'(Cols);
  localparam int InfoKeys    = ftpu_pkg::LINK_INFO_MAX;      // keys 1..InfoKeys
  localparam int StatusWords = ftpu_pkg::LINK_STATUS_COUNT;
  localparam int FaultWords  = ftpu_pkg::LINK_FAULTS_COUNT;
  localparam int SnapWords   = ftpu_pkg::CNT_COUNT;  // the largest snapshot: counters
  // response lengths: op, status, results
  localparam logic [15:0] RlenBare   = 16'd2;
  localparam logic [15:0] RlenInfo   = 16'(2 + 2 * InfoKeys);
  localparam logic [15:0] RlenStatus = 16'(2 + StatusWords);
  localparam logic [15:0] RlenCnt    = 16'(2 + SnapWords);
  localparam logic [15:0] RlenFaults = 16'(2 + FaultWords);

  typedef enum logic [2:0] {
    StW1,       // take the request's w1
    StW2,       // take the request's w2
    StPay,      // take the request's payload words
    StExec,     // decide the status, snapshot, clear, reset
    StRstWait,  // wait for the core to finish its reset
    StR1,       // send the response's w1
    StR2,       // send the response's w2
    StRPay      // send the response's payload
  } state_e;
  state_e state_q, state_d;

  logic [15:0] seq_q, seq_d;
  logic [15:0] len_q, len_d;      // request payload words
  logic [15:0] left_q, left_d;    // request payload words still to take
  logic [31:0] op_q, op_d;
  logic [31:0] status_q, status_d;
  logic [15:0] rlen_q, rlen_d;    // response payload words
  logic [15:0] idx_q, idx_d;      // response payload word being sent
  logic [15:0] credit_q, credit_d;
  logic [SnapWords*32-1:0] snap_q, snap_d;
  logic        reset_q, reset_d;

  // counters and fault record
  logic [31:0] c_cycles_q, c_busy_q, c_wstall_q, c_istall_q, c_ostall_q, c_idle_q, c_instr_q;
  logic [63:0] c_macs_q, c_bin_q, c_bout_q;
  logic [31:0] faults_q, fault_pc_q, fault_code_q, fault_instr_q;
  logic [SnapWords*32-1:0] counters;  // in READ_COUNTERS order
  logic [StatusWords*32-1:0] status_words;
  logic [FaultWords*32-1:0]  fault_words;
  logic        exec_ok;
  logic        clear_cnt, clear_all;  // from the link or the registers
  logic        reg_reset, reg_clear, reg_snap;
  logic [31:0] hi_q;                  // high word latched by a _lo read

  // the response words, each at its index from the spec
  always_comb begin
    counters = '0;
    counters[ftpu_pkg::CNT_CYCLES*32 +: 32]       = c_cycles_q;
    counters[ftpu_pkg::CNT_BUSY*32 +: 32]         = c_busy_q;
    counters[ftpu_pkg::CNT_MACS_LO*32 +: 32]      = c_macs_q[31:0];
    counters[ftpu_pkg::CNT_MACS_HI*32 +: 32]      = c_macs_q[63:32];
    counters[ftpu_pkg::CNT_WEIGHT_STALL*32 +: 32] = c_wstall_q;
    counters[ftpu_pkg::CNT_INPUT_STALL*32 +: 32]  = c_istall_q;
    counters[ftpu_pkg::CNT_OUTPUT_STALL*32 +: 32] = c_ostall_q;
    counters[ftpu_pkg::CNT_IDLE*32 +: 32]         = c_idle_q;
    counters[ftpu_pkg::CNT_BYTES_IN_LO*32 +: 32]  = c_bin_q[31:0];
    counters[ftpu_pkg::CNT_BYTES_IN_HI*32 +: 32]  = c_bin_q[63:32];
    counters[ftpu_pkg::CNT_BYTES_OUT_LO*32 +: 32] = c_bout_q[31:0];
    counters[ftpu_pkg::CNT_BYTES_OUT_HI*32 +: 32] = c_bout_q[63:32];
    counters[ftpu_pkg::CNT_INSTRUCTIONS*32 +: 32] = c_instr_q;
    status_words = '0;
    status_words[ftpu_pkg::LINK_STATUS_STATE*32 +: 32]        = 32'(state_i);
    status_words[ftpu_pkg::LINK_STATUS_FREE_WORDS*32 +: 32]   = free_words_i;
    status_words[ftpu_pkg::LINK_STATUS_QUEUED_WORDS*32 +: 32] = queued_words_i;
    status_words[ftpu_pkg::LINK_STATUS_FAULTS*32 +: 32]       = faults_q;
    fault_words = '0;
    fault_words[ftpu_pkg::LINK_FAULTS_COUNT_SINCE_RESET*32 +: 32] = faults_q;
    fault_words[ftpu_pkg::LINK_FAULTS_PC*32 +: 32]    = fault_pc_q;
    fault_words[ftpu_pkg::LINK_FAULTS_CODE*32 +: 32]  = fault_code_q;
    fault_words[ftpu_pkg::LINK_FAULTS_INSTR*32 +: 32] = fault_instr_q;
  end

  // The value of INFO key k
  function automatic logic [31:0] info_value(input logic [31:0] k);
    unique case (k)
      ftpu_pkg::LINK_INFO_VERSION:      info_value = Version;
      ftpu_pkg::LINK_INFO_ROWS:         info_value = 32'(Rows);
      ftpu_pkg::LINK_INFO_COLS:         info_value = 32'(Cols);
      ftpu_pkg::LINK_INFO_UB_VECTORS:   info_value = 32'(UbVectors);
      ftpu_pkg::LINK_INFO_WEIGHT_TILES: info_value = 32'(WeightTiles);
      ftpu_pkg::LINK_INFO_ACC_VECTORS:  info_value = 32'(AccVectors);
      ftpu_pkg::LINK_INFO_BIAS_VECTORS: info_value = 32'(BiasVectors);
      ftpu_pkg::LINK_INFO_IQ_WORDS:     info_value = 32'(IqWords);
      ftpu_pkg::LINK_INFO_CLOCK_HZ:     info_value = 32'(ClockHz);
      ftpu_pkg::LINK_INFO_ROW_DELAY:    info_value = 32'(RowDelay);
      ftpu_pkg::LINK_INFO_MAX_PAYLOAD:  info_value = 32'(MaxPayload);
      ftpu_pkg::LINK_INFO_FEATURES:     info_value = Features;
      ftpu_pkg::LINK_INFO_LINK_BYTES:   info_value = 32'(LinkBytes);
      default:                          info_value = 32'd0;
    endcase
  endfunction
  // INFO results word i: key/value pairs in key order (ref_device.c's)
  function automatic logic [31:0] info_word(input logic [4:0] i);
    info_word = i[0] ? info_value(32'(i[4:1]) + 32'd1) : 32'(i[4:1]) + 32'd1;
  endfunction

  // ---- request / response FSM --------------------------------------------
  always_comb begin
    state_d  = state_q;
    seq_d    = seq_q;
    len_d    = len_q;
    left_d   = left_q;
    op_d     = op_q;
    status_d = status_q;
    rlen_d   = rlen_q;
    idx_d    = idx_q;
    credit_d = credit_q;
    snap_d   = snap_q;
    reset_d  = 1'b0;
    exec_ok  = 1'b0;
    req_ready_o = 1'b0;
    rsp_valid_o = 1'b0;
    rsp_data_o  = 32'd0;
    unique case (state_q)
      // take the request's w1
      StW1: begin
        req_ready_o = 1'b1;
        if (req_valid_i) begin
          seq_d   = req_data_i[31:16];
          state_d = StW2;
        end
      end
      // take the request's w2
      StW2: begin
        req_ready_o = 1'b1;
        if (req_valid_i) begin
          len_d   = req_data_i[15:0];
          left_d  = req_data_i[15:0];
          op_d    = 32'd0;
          state_d = req_data_i[15:0] == 16'd0 ? StExec : StPay;
        end
      end
      // take the request's payload words, keep the first (op)
      StPay: begin
        req_ready_o = 1'b1;
        if (req_valid_i) begin
          if (left_q == len_q) op_d = req_data_i;
          left_d = left_q - 16'd1;
          if (left_q == 16'd1) state_d = StExec;
        end
      end
      // decide the status, snapshot the results, clear and reset
      StExec: begin
        idx_d = 16'd0;
        if (len_q != 16'd1) begin
          status_d = ftpu_pkg::LINK_RESP_BAD_REQUEST;
          rlen_d   = RlenBare;
        end else begin
          status_d = ftpu_pkg::LINK_RESP_OK;
          exec_ok  = 1'b1;
          unique case (op_q)
            ftpu_pkg::LINK_OP_INFO:   rlen_d = RlenInfo;
            ftpu_pkg::LINK_OP_STATUS: begin
              rlen_d = RlenStatus;
              snap_d[StatusWords*32-1:0] = status_words;
            end
            ftpu_pkg::LINK_OP_RESET:  rlen_d = RlenBare;
            ftpu_pkg::LINK_OP_READ_COUNTERS: begin
              rlen_d = RlenCnt;
              snap_d = counters;
            end
            ftpu_pkg::LINK_OP_CLEAR_COUNTERS: rlen_d = RlenBare;
            ftpu_pkg::LINK_OP_READ_FAULTS: begin
              rlen_d = RlenFaults;
              snap_d[FaultWords*32-1:0] = fault_words;
            end
            default: begin
              status_d = ftpu_pkg::LINK_RESP_UNKNOWN_OP;
              rlen_d   = RlenBare;
              exec_ok  = 1'b0;
            end
          endcase
        end
        if (exec_ok && op_q == ftpu_pkg::LINK_OP_RESET) begin
          reset_d = 1'b1;
          state_d = StRstWait;
        end else begin
          state_d = StR1;
        end
      end
      // wait for the core's reset, sampled from the cycle after the pulse
      StRstWait: begin
        if (!reset_q && reset_done_i) state_d = StR1;
      end
      // send w1
      StR1: begin
        rsp_valid_o = 1'b1;
        rsp_data_o  = {seq_q, 8'd0, ftpu_pkg::LINK_TYPE_RESPONSE};
        if (rsp_ready_i) begin
          credit_d = credit_i;
          state_d  = StR2;
        end
      end
      // send w2
      StR2: begin
        rsp_valid_o = 1'b1;
        rsp_data_o  = {credit_q, rlen_q};
        if (rsp_ready_i) state_d = StRPay;
      end
      // send op, status, results
      StRPay: begin
        rsp_valid_o = 1'b1;
        if (idx_q == 16'd0) rsp_data_o = op_q;
        else if (idx_q == 16'd1) rsp_data_o = status_q;
        else if (op_q == ftpu_pkg::LINK_OP_INFO) rsp_data_o = info_word(idx_q[4:0] - 5'd2);
        else rsp_data_o = snap_q[(32'(idx_q) - 32'd2) * 32 +: 32];
        if (rsp_ready_i) begin
          idx_d = idx_q + 16'd1;
          if (idx_q + 16'd1 == rlen_q) state_d = StW1;
        end
      end
      default: state_d = StW1;
    endcase
    // CMD SNAPSHOT (registers): all counters in this one cycle, read back at
    // SNAP (the firmware's READ_COUNTERS). The CONTROL FSM's snapshot
    // registers are reused: with the FSM answering (ftpu_top ControlCore =
    // 0) a SNAPSHOT while a response is being sent would change it.
    if (reg_snap) snap_d = counters;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q  <= StW1;
      seq_q    <= 16'd0;
      len_q    <= 16'd0;
      left_q   <= 16'd0;
      op_q     <= 32'd0;
      status_q <= 32'd0;
      rlen_q   <= 16'd0;
      idx_q    <= 16'd0;
      credit_q <= 16'd0;
      snap_q   <= '0;
      reset_q  <= 1'b0;
    end else begin
      state_q  <= state_d;
      seq_q    <= seq_d;
      len_q    <= len_d;
      left_q   <= left_d;
      op_q     <= op_d;
      status_q <= status_d;
      rlen_q   <= rlen_d;
      idx_q    <= idx_d;
      credit_q <= credit_d;
      snap_q   <= snap_d;
      reset_q  <= reset_d || reg_reset;
    end
  end

  assign reset_o = reset_q;

  // ---- counters and fault record -----------------------------------------
  assign clear_all = (exec_ok && op_q == ftpu_pkg::LINK_OP_RESET) || reg_reset;
  assign clear_cnt = clear_all || (exec_ok && op_q == ftpu_pkg::LINK_OP_CLEAR_COUNTERS) ||
                     reg_clear;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {c_cycles_q, c_busy_q, c_macs_q, c_wstall_q, c_istall_q} <= '0;
      {c_ostall_q, c_idle_q, c_bin_q, c_bout_q, c_instr_q} <= '0;
    end else if (clear_cnt) begin
      c_cycles_q <= 32'd0;
      c_busy_q   <= 32'd0;
      c_macs_q   <= 64'd0;
      c_wstall_q <= 32'd0;
      c_istall_q <= 32'd0;
      c_ostall_q <= 32'd0;
      c_idle_q   <= 32'd0;
      c_bin_q    <= 64'd0;
      c_bout_q   <= 64'd0;
      c_instr_q  <= 32'd0;
    end else begin
      c_cycles_q <= c_cycles_q + 32'd1;
      c_busy_q   <= c_busy_q + 32'(ev_busy_i);
      c_macs_q   <= c_macs_q + (ev_mac_i ? MacsPerVector : 64'd0);
      c_wstall_q <= c_wstall_q + 32'(ev_weight_stall_i);
      c_istall_q <= c_istall_q + 32'(ev_input_stall_i);
      c_ostall_q <= c_ostall_q + 32'(ev_output_stall_i);
      c_idle_q   <= c_idle_q + 32'(ev_idle_i);
      c_bin_q    <= c_bin_q + 64'(ev_bytes_in_i);
      c_bout_q   <= c_bout_q + 64'(ev_bytes_out_i);
      c_instr_q  <= c_instr_q + 32'(ev_instr_i);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {faults_q, fault_pc_q, fault_code_q, fault_instr_q} <= '0;
    end else if (clear_all) begin
      {faults_q, fault_pc_q, fault_code_q, fault_instr_q} <= '0;
    end else if (fault_valid_i) begin
      faults_q      <= faults_q + 32'd1;
      fault_pc_q    <= fault_pc_i;
      fault_code_q  <= fault_code_i;
      fault_instr_q <= fault_instr_i;
    end
  end

  // ---- register interface (docs/registers.md) ----------------------------
  localparam logic [7:0] RegCmd = ftpu_pkg::REG_CMD;
  logic cmd_write;
  assign cmd_write = reg_req_i && reg_we_i && reg_addr_i == RegCmd;
  assign reg_reset = cmd_write && reg_wdata_i[ftpu_pkg::CMD_RESET_LSB];
  assign reg_clear = cmd_write && reg_wdata_i[ftpu_pkg::CMD_CLEAR_COUNTERS_LSB];
  assign reg_snap  = cmd_write && reg_wdata_i[ftpu_pkg::CMD_SNAPSHOT_LSB];

  logic unused_wdata;  // CMD bits 31:3 are reserved
  assign unused_wdata = ^reg_wdata_i[31:3];

  // Offsets of the address in each block of the register map (ftpu_pkg)
  logic [7:0] a_info, a_status, a_cnt, a_fault, a_snap;
  assign a_info   = reg_addr_i - ftpu_pkg::REG_INFO_BASE;
  assign a_status = reg_addr_i - ftpu_pkg::REG_STATUS_BASE;
  assign a_cnt    = reg_addr_i - ftpu_pkg::REG_COUNTER_BASE;
  assign a_fault  = reg_addr_i - ftpu_pkg::REG_FAULT_BASE;
  assign a_snap   = reg_addr_i - ftpu_pkg::REG_SNAP_BASE;

  // a _LO counter whose read latches the _HI word after it
  function automatic logic cnt_lo(input logic [7:0] i);
    cnt_lo = 32'(i) == ftpu_pkg::CNT_MACS_LO || 32'(i) == ftpu_pkg::CNT_BYTES_IN_LO ||
             32'(i) == ftpu_pkg::CNT_BYTES_OUT_LO;
  endfunction
  function automatic logic cnt_hi(input logic [7:0] i);
    cnt_hi = 32'(i) == ftpu_pkg::CNT_MACS_HI || 32'(i) == ftpu_pkg::CNT_BYTES_IN_HI ||
             32'(i) == ftpu_pkg::CNT_BYTES_OUT_HI;
  endfunction

  logic [31:0] rdata_q, rdata_d;
  logic [31:0] hi_d;
  always_comb begin
    rdata_d = 32'd0;
    hi_d    = hi_q;
    if (reg_req_i && !reg_we_i) begin
      if (reg_addr_i == ftpu_pkg::REG_ID) begin
        rdata_d = ftpu_pkg::LINK_SYNC;
      end else if (a_info >= 8'd1 && 32'(a_info) <= InfoKeys) begin
        rdata_d = info_value(32'(a_info));
      end else if (32'(a_status) < StatusWords) begin
        rdata_d = status_words[32'(a_status)*32 +: 32];
      end else if (32'(a_cnt) < SnapWords) begin
        // a _lo read latches its _hi word; a _hi read returns the latch
        rdata_d = cnt_hi(a_cnt) ? hi_q : counters[32'(a_cnt)*32 +: 32];
        if (cnt_lo(a_cnt)) hi_d = counters[32'(a_cnt)*32 + 32 +: 32];
      end else if (32'(a_fault) < FaultWords) begin
        rdata_d = fault_words[32'(a_fault)*32 +: 32];
      end else if (32'(a_snap) < SnapWords) begin
        // the counters as the last CMD SNAPSHOT took them, READ_COUNTERS order
        rdata_d = snap_q[32'(a_snap)*32 +: 32];
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rdata_q <= 32'd0;
      hi_q    <= 32'd0;
    end else begin
      rdata_q <= rdata_d;
      hi_q    <= hi_d;
    end
  end

  assign reg_rdata_o = rdata_q;
endmodule
