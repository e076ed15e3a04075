// SPDX-License-Identifier: Apache-2.0
`include "ftpu_assert.svh"
// ftpu_core_decoder: PROGRAM frames (w1, w2, payload words, as ftpu_link_rx
// delivers them) in, one complete instruction at a time out to dispatch.
// It follows model/ref_device.c word by word (docs/core.md, Decoder):
// framing, instructions and HOST_READ data split anywhere across frames,
// the same faults in the same order. HOST_READ's data words are assembled
// here into a vector that ftpu_core_memories writes (with ALSO_WM into a
// WM row as well); a fault is recorded here, sent by ftpu_core_events, and
// the rest of its program discarded.
module ftpu_core_decoder #(
  parameter int  N     = ftpu_pkg::DEFAULT_N,
  parameter int unsigned U8 = 1,  // HOST_READ U8 and ALSO_WM are built (with the vector unit)
  // The receive buffer can deliver a word a cycle (a 4-byte link): a
  // HOST_READ's next word is taken in the cycle its last vector is written,
  // so its data moves a word a cycle. A byte link delivers a word every
  // fourth cycle at best and the write always finds a gap, so there the
  // decoder waits for it, which keeps the memory ports' grants out of the
  // receive buffer's read path.
  parameter int unsigned WordLink = 1,
  // 1: fault_i and wait_i are registered from the instruction (ftpu_core's
  // PipeRegs): it may dispatch from its second cycle complete on.
  parameter int unsigned PipeRegs = 0,
  localparam int WordW = $clog2(N + 1)
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  input  logic          soft_reset_i,
  // PROGRAM frames
  input  logic          in_valid_i,
  output logic          in_ready_o,
  input  logic [31:0]   in_data_i,
  // the complete instruction and the weight-tile state it is checked against
  output logic [7:0]    op_o,
  output logic [7:0]    flags_o,
  output logic [15:0]   n_o,
  output logic [31:0]   a_o,
  output logic [31:0]   b_o,
  output logic          tile_cur_o,    // as ref_device.c's cur_valid
  output logic          tile_next_o,   // ... and next_valid
  // dispatch
  input  logic [2:0]    fault_i,       // ftpu_core_check (0: well formed)
  input  logic          wait_i,        // ftpu_core_hazards: an earlier one runs
  input  logic          mu_ready_i,    // the matrix unit takes a command
  output logic          mu_cmd_valid_o,
  output logic          dispatch_o,    // the instruction goes to its unit
  output logic          stall_o,       // well formed, but waiting
  output logic          retire_o,      // an instruction retires (counter)
  // the HOST_READ vector waiting for its write
  output logic          vec_full_o,
  output logic [1:0]    vec_mem_o,
  output logic [16:0]   vec_addr_o,
  output logic          vec_also_wm_o, // ALSO_WM: the UB vector goes to WM too ...
  output logic [16:0]   vec_wm_addr_o, // ... at this row
  output logic [N*32-1:0] vec_data_o,
  input  logic          vec_we_i,      // written this cycle
  // the fault waiting for the event builder
  output logic          fault_o,
  output logic [2:0]    fault_code_o,
  output logic [31:0]   fault_pc_o,
  output logic [31:0]   fault_instr_o,
  input  logic          fault_sent_i,  // taken this cycle
  // state
  output logic          busy_o,        // an instruction, vector or fault pending
  output logic          in_program_o,  // inside a program or a frame
  output logic          discarding_o,  // the rest of a faulted program
  output logic          between_frames_o,
  output logic          data_wait_o    // HOST_READ waits for its data words
);
  localparam logic [7:0] OpHostRead = ftpu_pkg::OP_HOST_READ;
  localparam logic [7:0] OpLoad     = ftpu_pkg::OP_LOAD_WEIGHTS;
  localparam logic [7:0] OpMatmul   = ftpu_pkg::OP_MATMUL;
  localparam logic [1:0] MemUb = ftpu_pkg::MEM_UB, MemWm = ftpu_pkg::MEM_WM;
  localparam logic [2:0] FaultTruncated = ftpu_pkg::FAULT_TRUNCATED;
  localparam logic [2:0] FaultFraming   = ftpu_pkg::FAULT_FRAMING;

  typedef enum logic [1:0] {FW1, FW2, FPay} fstate_e;
  // Program state, dropped by RESET ...
  typedef struct packed {
    fstate_e          fs;
    logic             fend;      // all the frame's words taken: end pending
    logic             fdrop;     // the frame is outside a program
    logic             ffirst;    // ... and its first word is still to come
    logic             in_prog;
    logic             discard;   // the rest of a faulted program
    logic [1:0]       have;      // words of the instruction so far
    logic             exec;      // a complete instruction waits for dispatch
    logic [31:0]      pc;
    logic             cur_valid, next_valid;  // weight tiles
    logic             hr;        // HOST_READ data words are coming
    logic             vec_full;  // the vector is complete, waiting for its write
    logic             flt;       // a fault waits for the event builder
  } ctl_t;
  // ... and the data it qualifies, which RESET leaves.
  typedef struct packed {
    logic [1:0]       fflags;    // PROGRAM flags (END, START) of the frame
    logic [15:0]      fleft;     // its payload words still to come
    logic [31:0]      iw0, iw1, iw2;
    logic [1:0]       hr_mem;
    logic             hr_u8;     // U8: bytes, stored as bf16(p / 255)
    logic             hr_also_wm;
    logic [16:0]      hr_addr;
    logic [16:0]      hr_wm_addr;
    logic [15:0]      hr_left;   // vectors still to come, this one included
    logic [WordW-1:0] hr_word;
    logic [N*32-1:0]  vec;       // the vector being assembled
    logic [1:0]       vec_mem;
    logic [16:0]      vec_addr;
    logic             vec_also_wm;
    logic [16:0]      vec_wm_addr;
    logic [2:0]       flt_code;
    logic [31:0]      flt_pc, flt_instr;
  } dat_t;
  ctl_t c_q, c_d;
  dat_t d_q, d_d;

  logic [7:0]  op, fl;
  logic [15:0] n;
  assign op = d_q.iw0[7:0];
  assign fl = d_q.iw0[15:8];
  assign n  = d_q.iw0[31:16];

  // words per vector of the HOST_READ's memory (U8: four bytes a word)
  logic [WordW-1:0] wpv;
  assign wpv = d_q.hr_u8 ? WordW'((N + 3) / 4) :
               (d_q.hr_mem == MemUb || d_q.hr_mem == MemWm) ? WordW'(N / 2) : WordW'(N);

  // A U8 vector complete with this cycle's word, as UB's bf16 vector
  // (UNORM8: ftpu_pkg::unorm8_bf16, a table spec/gen.py computes).
  logic [N*32-1:0] u8_in;
  logic [N*16-1:0] u8_vec;
  always_comb begin
    u8_in = d_q.vec;
    u8_in[32*d_q.hr_word +: 32] = in_data_i;
    for (int j = 0; j < N; j++) u8_vec[16*j +: 16] = ftpu_pkg::unorm8_bf16(u8_in[8*j +: 8]);
  end

  logic take, fend_go, last_word;
  logic vec_wait;  // a complete vector holds the next word back
  assign vec_wait   = c_q.hr && c_q.vec_full && !(WordLink != 0 && vec_we_i);
  assign in_ready_o = !soft_reset_i && !c_q.flt &&
                      (c_q.fs != FPay || (!c_q.fend && !c_q.exec && !vec_wait));
  assign take      = in_valid_i && in_ready_o;
  assign fend_go   = c_q.fend && !c_q.exec && !c_q.flt && !soft_reset_i;
  assign last_word = d_q.hr_word == wpv - 1'b1;

  // The complete instruction this cycle: a fault, a dispatch or a wait.
  logic can_exec, x_fault, x_go;
  logic checked;  // fault_i and wait_i are the instruction's
  if (PipeRegs != 0) begin : g_check_stage
    // The instruction was complete in the cycle before too (nothing
    // dispatched in between), so the registered checks are of it.
    logic held_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) held_q <= 1'b0;
      else         held_q <= c_q.exec && c_d.exec;
    end
    assign checked = held_q;
  end else begin : g_check_now
    assign checked = 1'b1;
  end
  assign can_exec       = c_q.exec && checked && !c_q.flt && !c_q.vec_full && !soft_reset_i;
  assign x_fault        = can_exec && fault_i != '0;
  assign mu_cmd_valid_o = can_exec && fault_i == '0 && !wait_i && (op == OpLoad || op == OpMatmul);
  assign x_go           = can_exec && fault_i == '0 && !wait_i &&
                          ((op == OpLoad || op == OpMatmul) ? mu_ready_i : 1'b1);

  // Which fault is raised this cycle (at most one: each case needs a
  // different decoder step, and none runs while a fault is pending).
  logic        raise;
  logic [2:0]  raise_code;
  logic [31:0] raise_pc, raise_instr;
  always_comb begin
    raise       = 1'b0;
    raise_code  = '0;
    raise_pc    = c_q.pc;
    raise_instr = d_q.iw0;
    if (x_fault) begin
      raise      = 1'b1;
      raise_code = fault_i;
    end else if (take && c_q.fs == FW2 && d_q.fflags[0] && c_q.in_prog && !c_q.discard &&
                 (c_q.have != '0 || c_q.hr)) begin
      raise      = 1'b1;               // START inside an instruction
      raise_code = FaultTruncated;
    end else if (take && c_q.fs == FW2 && !d_q.fflags[0] && !c_q.in_prog &&
                 in_data_i[15:0] == 16'd0) begin
      raise       = 1'b1;              // an empty frame outside a program
      raise_code  = FaultFraming;
      raise_pc    = '0;
      raise_instr = '0;
    end else if (take && c_q.fs == FPay && c_q.fdrop && c_q.ffirst) begin
      raise       = 1'b1;              // the first word outside a program
      raise_code  = FaultFraming;
      raise_pc    = '0;
      raise_instr = in_data_i;
    end else if (fend_go && d_q.fflags[1] && c_q.in_prog && !c_q.fdrop && !c_q.discard &&
                 (c_q.have != '0 || c_q.hr)) begin
      raise      = 1'b1;               // END inside an instruction
      raise_code = FaultTruncated;
    end
  end

  // Next state. Later assignments win, as they would in one always_ff.
  always_comb begin
    c_d = c_q;
    d_d = d_q;
    if (soft_reset_i) begin
      c_d = '0;
    end else begin
      if (vec_we_i) c_d.vec_full = 1'b0;
      if (fault_sent_i) c_d.flt = 1'b0;

      // Words of a frame.
      if (take) begin
        unique case (c_q.fs)
          FW1: begin
            d_d.fflags = in_data_i[9:8];
            c_d.fs     = FW2;
          end
          FW2: begin
            // START ends an open program first (TRUNCATED if cut short).
            if (in_data_i[15:0] == 16'd0) c_d.fend = 1'b1;
            d_d.fleft = in_data_i[15:0];
            c_d.fs    = FPay;
            if (d_q.fflags[0]) begin
              c_d.in_prog = 1'b1;
              c_d.discard = 1'b0;
              c_d.pc      = '0;
              c_d.have    = '0;
              c_d.hr      = 1'b0;
              c_d.fdrop   = 1'b0;
            end else if (!c_q.in_prog) begin
              c_d.fdrop  = 1'b1;
              c_d.ffirst = in_data_i[15:0] != 16'd0;
            end else begin
              c_d.fdrop = 1'b0;
            end
          end
          default: begin  // FPay
            d_d.fleft = d_q.fleft - 16'd1;
            if (d_q.fleft == 16'd1) c_d.fend = 1'b1;
            if (c_q.fdrop) begin
              c_d.ffirst = 1'b0;
            end else if (c_q.discard) begin
              // the rest of a faulted program
            end else if (c_q.hr) begin
              d_d.vec[32*d_q.hr_word +: 32] = in_data_i;
              if (last_word && d_q.hr_u8) d_d.vec[N*16-1:0] = u8_vec;
              if (last_word) begin
                d_d.hr_word  = '0;
                c_d.vec_full = 1'b1;
                d_d.vec_mem  = d_q.hr_mem;
                d_d.vec_addr = d_q.hr_addr;
                d_d.hr_addr  = d_q.hr_addr + 1'b1;
                d_d.vec_also_wm = d_q.hr_also_wm;
                d_d.vec_wm_addr = d_q.hr_wm_addr;
                d_d.hr_wm_addr  = d_q.hr_wm_addr + 1'b1;
                d_d.hr_left  = d_q.hr_left - 16'd1;
                if (d_q.hr_left == 16'd1) begin
                  c_d.hr = 1'b0;
                  c_d.pc = c_q.pc + 1'b1;
                end
              end else begin
                d_d.hr_word = d_q.hr_word + 1'b1;
              end
            end else begin
              unique case (c_q.have)
                2'd0:    d_d.iw0 = in_data_i;
                2'd1:    d_d.iw1 = in_data_i;
                default: d_d.iw2 = in_data_i;
              endcase
              c_d.have = (c_q.have == 2'd2) ? 2'd0 : c_q.have + 1'b1;
              if (c_q.have == 2'd2) c_d.exec = 1'b1;
            end
          end
        endcase
      end

      // The complete instruction: fault or dispatch.
      if (x_fault) c_d.exec = 1'b0;
      if (x_go) begin
        c_d.exec = 1'b0;
        if (op != OpHostRead) c_d.pc = c_q.pc + 1'b1;
        unique case (op)
          OpHostRead: begin
            c_d.hr      = 1'b1;
            d_d.hr_mem  = fl[1:0];
            d_d.hr_u8   = U8 != 0 && (fl & ftpu_pkg::HOST_READ_U8) != '0;  // else the check
            d_d.hr_also_wm = U8 != 0 && (fl & ftpu_pkg::HOST_READ_ALSO_WM) != '0;  // faulted it
            d_d.hr_addr = d_q.iw1[16:0];
            d_d.hr_wm_addr = d_q.iw2[16:0];
            d_d.hr_left = n;
            d_d.hr_word = '0;
          end
          OpLoad: c_d.next_valid = 1'b1;
          OpMatmul: begin
            if (fl[1]) begin  // SWAP
              c_d.cur_valid  = 1'b1;
              c_d.next_valid = 1'b0;
            end
          end
          default: ;
        endcase
      end

      // End of a frame: END closes the program (TRUNCATED if cut short).
      if (fend_go) begin
        c_d.fend  = 1'b0;
        c_d.fdrop = 1'b0;
        c_d.fs    = FW1;
        if (d_q.fflags[1] && c_q.in_prog && !c_q.fdrop) begin
          c_d.in_prog = 1'b0;
          c_d.discard = 1'b0;
          c_d.have    = '0;
          c_d.hr      = 1'b0;
        end
      end

      if (raise) begin
        c_d.flt       = 1'b1;
        d_d.flt_code  = raise_code;
        d_d.flt_pc    = raise_pc;
        d_d.flt_instr = raise_instr;
        c_d.exec      = 1'b0;
        c_d.have      = '0;
        c_d.hr        = 1'b0;
        // FRAMING leaves no program to discard; START reopens one and END
        // closes it (as in ref_device.c, where they follow the fault).
        if (raise_code != FaultFraming && !(take && c_q.fs == FW2 && d_q.fflags[0]) && !fend_go)
          c_d.discard = 1'b1;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      c_q <= '0;
      d_q <= '0;
    end else begin
      c_q <= c_d;
      d_q <= d_d;
    end
  end

  assign op_o        = op;
  assign flags_o     = fl;
  assign n_o         = n;
  assign a_o         = d_q.iw1;
  assign b_o         = d_q.iw2;
  assign tile_cur_o  = c_q.cur_valid;
  assign tile_next_o = c_q.next_valid;
  assign dispatch_o  = x_go;
  assign stall_o     = can_exec && fault_i == '0 && !x_go;
  // HOST_READ retires with its last data word, the others at dispatch.
  assign retire_o    = (x_go && op != OpHostRead) ||
                       (take && c_q.fs == FPay && !c_q.fdrop && !c_q.discard && c_q.hr &&
                        last_word && d_q.hr_left == 16'd1);

  assign vec_full_o  = c_q.vec_full;
  assign vec_mem_o   = d_q.vec_mem;
  assign vec_addr_o  = d_q.vec_addr;
  assign vec_also_wm_o = U8 != 0 && d_q.vec_also_wm;  // constants without the unit
  assign vec_wm_addr_o = U8 != 0 ? d_q.vec_wm_addr : '0;
  assign vec_data_o  = d_q.vec;

  assign fault_o       = c_q.flt;
  assign fault_code_o  = d_q.flt_code;
  assign fault_pc_o    = d_q.flt_pc;
  assign fault_instr_o = d_q.flt_instr;

  assign busy_o           = c_q.hr || c_q.vec_full || c_q.exec || c_q.flt;
  assign in_program_o     = c_q.in_prog || c_q.fs != FW1;
  assign discarding_o     = c_q.discard;
  assign between_frames_o = c_q.fs == FW1;
  assign data_wait_o      = c_q.hr && !in_valid_i;

  // A vector is written only once complete; one fault at a time.
  `FTPU_ASSERT(a_vec_we, clk_i, rst_ni, !vec_we_i || c_q.vec_full)
  `FTPU_ASSERT(a_one_fault, clk_i, rst_ni, !(raise && c_q.flt))
endmodule
