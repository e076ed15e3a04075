// SPDX-License-Identifier: Apache-2.0
// ftpu_rv32i: a small multi-cycle RV32I core with Zicsr for the device's
// control plane (docs/firmware.md). Machine mode only, no interrupts.
//
// One bus serves instruction fetches and data accesses (a multi-cycle core
// never needs both at once), so every memory behind it can be a single-port
// block RAM. The register file is one 1W1R memory with a registered read
// (ftpu_rv32i_regfile, two iCE40 SB_RAM40_4K): the two source registers are
// read one after the other.
//
// Cycles per instruction, with memories that answer one cycle after a
// request (ftpu_cpu):
//   LUI, AUIPC, JAL, JALR, OP-IMM (not shifts), CSR, FENCE, SYSTEM   3
//   OP (register-register, not shifts)                               4
//   branches, taken or not                                           5
//   loads 5, stores 6
//   shifts: 4 + the shift amount (immediate), 5 + it (register)
//   a trap: its instruction's cycles up to the state that detects it
//   (StExec, StMem, StBranch); the next cycle fetches at mtvec
// Each bus wait cycle adds one.
//
//   StFetch  (2+ cycles)  bus read at pc, pc + 4 in the adder; with the
//                         word, read the first source register (rs2 if
//                         the instruction has one, x0 for LUI, else rs1)
//   StRead2  (1 cycle)    latch rs2 (operand b), read rs1
//   StExec   (1 cycle)    rs1 comes out of the register file: execute, write
//                         back, next pc; a load or store registers its
//                         address
//   StMem    (2+ cycles)  the data access; a load writes back
//   StShift  (1+ cycles)  shift one bit per cycle (no barrel shifter)
//   StBranch (1 cycle)    a branch: a taken one's target, pc + imm
//                         (every branch comes here, so that whether it
//                         retires in StExec does not wait for the adder's
//                         compare: the iCE40UP5K's longest path)
//
// One adder serves the ALU, addresses, pc + 4 and every target; the
// register file is block RAM; shifts are serial: all to keep the core
// small on an iCE40 (docs/firmware.md quotes its size).
//
// Bus protocol: req_o with we_o, addr_o (word aligned), be_o, wdata_o held
// until ready_i is high for one cycle; rdata_i (reads) and err_i come with
// that ready_i. ready_i must not be high in the first cycle of a request
// (ftpu_cpu guarantees it); the next request may start the cycle after.
// err_i makes the access an access fault. fetch_o marks instruction fetches.
//
// Traps (mcause / mtval): instruction address misaligned 0 / target (taken
// branch, JAL, JALR with bit 1 of the target set; a not-taken branch never
// traps), instruction access fault 1 / 0 (mepc is the address), illegal
// instruction 2 / 0, breakpoint 3 / 0, load address misaligned 4 / address,
// load access fault 5 / address, store address misaligned 6 / address,
// store access fault 7 / address, ecall 11 / 0. A trap writes no rd and
// does not retire; mepc = the instruction's pc, pc = mtvec (direct mode),
// mstatus.MPIE = MIE, MIE = 0. MRET: pc = mepc, MIE = MPIE, MPIE = 1.
// FENCE and FENCE.I are no-ops (no caches, no reordering), WFI too.
//
// CSRs: mstatus (MIE, MPIE; MPP reads 3), misa (reads RV32I), mie, mip,
// mstatush (read 0, writes ignored: no interrupt sources), mtvec (MODE reads
// 0), mscratch, mepc (bits 1:0 read 0), mcause (bits 3:0 kept, the rest
// read 0), mtval, mcycle/mcycleh and minstret/minstreth (64-bit, writable
// in 32-bit halves), cycle/cycleh/instret/instreth (read-only copies),
// mvendorid, marchid, mimpid, mhartid, mconfigptr (read 0). Any other CSR
// address, and a write to a read-only CSR (address bits 11:10 = 3), is an
// illegal instruction; CSRRS/CSRRC with rs1 = x0 and CSRRSI/CSRRCI with
// uimm = 0 do not write. mcycle counts every clock out of reset, minstret
// every retired instruction; a CSR write to either half of a counter takes
// the place of that cycle's increment of the whole 64-bit counter (as Spike
// and Sail: the other half keeps its value). time/timeh are not implemented (illegal).
// FullCounters 0 (the soft device on the iCE40UP5K, where 160 logic cells
// count) keeps only mcycle and cycle, 32 bits: mcycleh, cycleh and the
// instret CSRs are then illegal, as CSRs that do not exist.
module ftpu_rv32i #(
  parameter logic [31:0] BootAddr     = 32'h0000_0000,
  parameter bit          FullCounters = 1'b1
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // bus
  output logic        bus_req_o,
  output logic        bus_we_o,
  output logic        bus_fetch_o,
  output logic [31:0] bus_addr_o,
  output logic [3:0]  bus_be_o,
  output logic [31:0] bus_wdata_o,
  input  logic        bus_ready_i,
  input  logic        bus_err_i,
  input  logic [31:0] bus_rdata_i,
  // status: an instruction retired / a trap was taken (one-cycle pulses)
  output logic        retire_o,
  output logic        trap_o
);
  // opcodes (bits 6:0)
  localparam logic [6:0] OpcLoad = 7'b0000011, OpcMiscMem = 7'b0001111;
  localparam logic [6:0] OpcOpImm = 7'b0010011, OpcAuipc = 7'b0010111;
  localparam logic [6:0] OpcStore = 7'b0100011, OpcOp = 7'b0110011;
  localparam logic [6:0] OpcLui = 7'b0110111, OpcBranch = 7'b1100011;
  localparam logic [6:0] OpcJalr = 7'b1100111, OpcJal = 7'b1101111;
  localparam logic [6:0] OpcSystem = 7'b1110011;
  // exception codes (mcause)
  localparam logic [3:0] ExcInstrMisaligned = 4'd0, ExcInstrFault = 4'd1;
  localparam logic [3:0] ExcIllegal = 4'd2, ExcBreakpoint = 4'd3;
  localparam logic [3:0] ExcLoadMisaligned = 4'd4, ExcLoadFault = 4'd5;
  localparam logic [3:0] ExcStoreMisaligned = 4'd6, ExcStoreFault = 4'd7;
  localparam logic [3:0] ExcEcall = 4'd11;
  // CSR addresses
  localparam logic [11:0] CsrMstatus = 12'h300, CsrMisa = 12'h301, CsrMie = 12'h304;
  localparam logic [11:0] CsrMtvec = 12'h305, CsrMstatush = 12'h310;
  localparam logic [11:0] CsrMscratch = 12'h340, CsrMepc = 12'h341, CsrMcause = 12'h342;
  localparam logic [11:0] CsrMtval = 12'h343, CsrMip = 12'h344;
  localparam logic [11:0] CsrMcycle = 12'hB00, CsrMinstret = 12'hB02;
  localparam logic [11:0] CsrMcycleh = 12'hB80, CsrMinstreth = 12'hB82;
  localparam logic [11:0] CsrCycle = 12'hC00, CsrInstret = 12'hC02;
  localparam logic [11:0] CsrCycleh = 12'hC80, CsrInstreth = 12'hC82;
  localparam logic [31:0] MisaValue = 32'h4000_0100;  // MXL 1 (32-bit), I

  typedef enum logic [2:0] {
    StFetch,  // fetch the instruction at pc, read the first source register
    StRead2,  // latch rs2, read rs1
    StExec,   // execute, write back; loads and stores register their address
    StMem,    // the data access at the address StExec registered
    StShift,  // shift b by one bit per cycle, then write it back
    StBranch  // a branch: taken, its target pc + imm; not taken, pc + 4
  } state_e;
  state_e state_q, state_d;

  logic [31:2] pc_q, pc_d;
  logic [31:2] npc_q;  // pc + 4, computed while fetching
  logic [31:0] ir_q, ir_d;
  logic [31:0] b_q, b_d;  // rs2, latched in StRead2; the value being shifted
  logic [4:0]  cnt_q, cnt_d;  // shift steps left
  // A load's or store's address, from the adder in StExec: the bus (its
  // address decode, ftpu_cpu) then starts from a register, not from the
  // register file through the adder (the ULX3S 25F's longest path), for a
  // cycle more per access.
  logic [31:0] maddr_q;

  // CSR state
  logic        mie_q, mie_d, mpie_q, mpie_d;
  logic [31:2] mtvec_q, mtvec_d, mepc_q, mepc_d;
  logic [31:0] mscratch_q, mscratch_d, mtval_q, mtval_d;
  logic [3:0]  mcause_q, mcause_d;
  logic [63:0] mcycle_q, mcycle_d, minstret_q, minstret_d;
  // minstret counts an instruction the cycle after it retires: `retire`
  // comes late (a jump's target decides it), too late for a 64-bit carry
  // chain at the ECP5's clock. Unseen by software: the next instruction
  // reads CSRs two cycles later at the earliest (StFetch, StExec).
  logic        retire_q;

  // register file
  logic        rf_re, rf_we;
  logic [4:0]  rf_raddr;
  logic [31:0] rf_rdata, rf_wdata;

  ftpu_rv32i_regfile u_regfile (
    .clk_i,
    .re_i   (rf_re),
    .raddr_i(rf_raddr),
    .rdata_o(rf_rdata),
    .we_i   (rf_we),
    .waddr_i(ir_q[11:7]),
    .wdata_i(rf_wdata)
  );

  // ---- decode (of ir_q; StFetch looks at the bus word instead) -------------
  logic [6:0] opc;
  logic [2:0] f3;
  logic [6:0] f7;
  assign opc = ir_q[6:0];
  assign f3  = ir_q[14:12];
  assign f7  = ir_q[31:25];

  logic is_load, is_store, is_op, is_opimm, is_jal, is_jalr;
  logic is_branch, is_system, is_miscmem;
  assign is_load    = opc == OpcLoad;
  assign is_store   = opc == OpcStore;
  assign is_op      = opc == OpcOp;
  assign is_opimm   = opc == OpcOpImm;
  assign is_jal     = opc == OpcJal;
  assign is_jalr    = opc == OpcJalr;
  assign is_branch  = opc == OpcBranch;
  assign is_system  = opc == OpcSystem;
  assign is_miscmem = opc == OpcMiscMem;

  // The immediate of the instruction's format, decoded from the fetched
  // word and registered with it (imm_q): its format muxes then stand before
  // a register instead of before the adder (the iCE40UP5K's longest path
  // ran through them).
  function automatic logic [31:0] imm_of(input logic [31:0] w);
    unique case (w[6:0])
      OpcStore:          imm_of = {{21{w[31]}}, w[30:25], w[11:7]};
      OpcBranch:         imm_of = {{20{w[31]}}, w[7], w[30:25], w[11:8], 1'b0};
      OpcLui, OpcAuipc:  imm_of = {w[31:12], 12'd0};
      OpcJal:            imm_of = {{12{w[31]}}, w[19:12], w[20], w[30:21], 1'b0};
      default:           imm_of = {{21{w[31]}}, w[30:20]};
    endcase
  endfunction
  logic [31:0] imm, imm_q;
  assign imm = imm_q;

  // What the adder's operands and the written-back value are, decoded
  // from the fetched word too (static for the instruction): the adder then
  // starts a level or two after the registers, and its sum meets a single
  // mux on the way to the register file.
  logic pc_op_q;   // AUIPC, JAL: a = pc
  logic rs2_op_q;  // OP, branches: b = rs2
  logic sub_op_q;  // SUB, SLT(I)(U), branches: a - b
  logic sum_wb_q;  // ADD(I), SUB, LUI, AUIPC: rd = the sum
  logic [3:0] ops_of;
  always_comb begin : p_ops_of
    logic [6:0] o;
    logic [2:0] f;
    logic op, opimm;
    o = bus_rdata_i[6:0];
    f = bus_rdata_i[14:12];
    op = o == OpcOp;
    opimm = o == OpcOpImm;
    ops_of[0] = o == OpcAuipc || o == OpcJal;
    ops_of[1] = op || o == OpcBranch;
    ops_of[2] = o == OpcBranch || (op && f == 3'b000 && bus_rdata_i[30]) ||
                ((op || opimm) && f[2:1] == 2'b01);
    ops_of[3] = ((op || opimm) && f == 3'b000) || o == OpcLui || o == OpcAuipc;
  end

  // ---- ALU: a = rs1 (x0 for LUI), b = rs2 or the immediate ------------------
  logic [31:0] a, b;
  logic        sub;
  logic [32:0] sum33;
  logic [31:0] sum;
  logic        lt, ltu, eq;
  logic [31:0] alu_out;

  // One adder does everything: pc + 4 while fetching (b = 4), AUIPC and JAL
  // (a = pc), a taken branch's target in StBranch (a = pc, b = imm).
  logic use_pc, fetching;
  assign fetching = state_q == StFetch;
  assign use_pc = fetching || state_q == StBranch || pc_op_q;
  assign a = use_pc ? {pc_q, 2'b00} : rf_rdata;
  assign b = fetching ? 32'd4 : ((rs2_op_q && state_q != StBranch) ? b_q : imm);
  assign sub = !use_pc && sub_op_q;
  assign sum33 = {1'b0, a} + {1'b0, sub ? ~b : b} + {32'd0, sub};
  assign sum = sum33[31:0];
  assign ltu = !sum33[32];
  assign lt  = (a[31] ^ b[31]) ? a[31] : sum[31];
  assign eq  = sum == 32'd0;

  // The ALU's results other than the sum (which sum_wb_q selects), by the
  // OP / OP-IMM funct3: 000 is ADD, never taken from here.
  always_comb begin
    unique case (f3)
      3'b010:  alu_out = {31'd0, lt};
      3'b011:  alu_out = {31'd0, ltu};
      3'b100:  alu_out = a ^ b;
      3'b110:  alu_out = a | b;
      3'b111:  alu_out = a & b;
      default: alu_out = b_q;  // shifts (001, 101): the result of StShift
    endcase
  end

  logic taken, taken_q;  // the branch condition, kept for StBranch
  always_comb begin
    unique case (f3)
      3'b000:  taken = eq;
      3'b001:  taken = !eq;
      3'b100:  taken = lt;
      3'b101:  taken = !lt;
      3'b110:  taken = ltu;
      default: taken = !ltu;  // 111 (010 and 011 are illegal)
    endcase
  end

  // jump targets: the adder's sum (JALR clears bit 0)
  logic [31:0] pc, target;
  assign pc     = {pc_q, 2'b00};
  assign target = {sum[31:1], sum[0] && !is_jalr};

  // The sum's two low bits, which decide the misaligned traps, from the
  // operands' own: a + b at bit 1 without the carry chain, so that the
  // trap (and the register file's write enable behind it) does not wait
  // for the adder (the iCE40UP5K soft device's longest path). Only where
  // the adder adds (addresses, targets: sub is 0).
  logic [1:0] sum_lo;
  assign sum_lo = {a[1] ^ b[1] ^ (a[0] & b[0]), a[0] ^ b[0]};

  // ---- loads and stores ------------------------------------------------------
  logic [1:0]  off;
  logic        misaligned;
  logic [15:0] ld_shifted;  // the addressed byte or half at bit 0
  logic [31:0] ld_data, st_data;
  logic [3:0]  st_be;
  assign off = maddr_q[1:0];
  // f3[1:0]: 00 byte, 01 half, 10 word; tested on the adder's sum in StExec
  assign misaligned = (f3[1:0] == 2'b01 && sum_lo[0]) || (f3[1:0] == 2'b10 && sum_lo != 2'b00);
  assign ld_shifted = 16'(bus_rdata_i >> {off, 3'b000});
  always_comb begin
    unique case (f3)
      3'b000:  ld_data = {{24{ld_shifted[7]}}, ld_shifted[7:0]};    // LB
      3'b001:  ld_data = {{16{ld_shifted[15]}}, ld_shifted[15:0]};  // LH
      3'b100:  ld_data = {24'd0, ld_shifted[7:0]};                  // LBU
      3'b101:  ld_data = {16'd0, ld_shifted[15:0]};                 // LHU
      default: ld_data = bus_rdata_i;                               // LW
    endcase
  end
  always_comb begin
    unique case (f3[1:0])
      2'b00: begin
        st_data = {4{b_q[7:0]}};
        st_be   = 4'b0001 << off;
      end
      2'b01: begin
        st_data = {2{b_q[15:0]}};
        st_be   = off[1] ? 4'b1100 : 4'b0011;
      end
      default: begin
        st_data = b_q;
        st_be   = 4'b1111;
      end
    endcase
  end

  // ---- CSRs ------------------------------------------------------------------
  logic [11:0] csr_addr;
  logic        csr_known, csr_ro, csr_wr, csr_illegal;
  logic [31:0] csr_rdata, csr_src, csr_wdata;
  assign csr_addr = ir_q[31:20];
  assign csr_ro = csr_addr[11:10] == 2'b11;
  // CSRRW/CSRRWI always write; the set/clear forms only with rs1/uimm != 0
  assign csr_wr = f3[1:0] == 2'b01 || ir_q[19:15] != 5'd0;
  assign csr_src = f3[2] ? {27'd0, ir_q[19:15]} : a;

  always_comb begin
    csr_known = 1'b1;
    unique case (csr_addr)
      CsrMstatus:                 csr_rdata = {19'd0, 2'b11, 3'd0, mpie_q, 3'd0, mie_q, 3'd0};
      CsrMisa:                    csr_rdata = MisaValue;
      CsrMie, CsrMip, CsrMstatush: csr_rdata = 32'd0;
      CsrMtvec:                   csr_rdata = {mtvec_q, 2'b00};
      CsrMscratch:                csr_rdata = mscratch_q;
      CsrMepc:                    csr_rdata = {mepc_q, 2'b00};
      CsrMcause:                  csr_rdata = {28'd0, mcause_q};
      CsrMtval:                   csr_rdata = mtval_q;
      CsrMcycle, CsrCycle:        csr_rdata = mcycle_q[31:0];
      CsrMcycleh, CsrCycleh:      csr_rdata = mcycle_q[63:32];
      CsrMinstret, CsrInstret:    csr_rdata = minstret_q[31:0];
      CsrMinstreth, CsrInstreth:  csr_rdata = minstret_q[63:32];
      12'hF11, 12'hF12, 12'hF13, 12'hF14, 12'hF15: csr_rdata = 32'd0;
      default: begin
        csr_rdata = 32'd0;
        csr_known = 1'b0;
      end
    endcase
  end
  logic csr_absent;  // a counter CSR this configuration leaves out
  assign csr_absent = !FullCounters &&
      (csr_addr == CsrMcycleh || csr_addr == CsrCycleh || csr_addr == CsrMinstret ||
       csr_addr == CsrMinstreth || csr_addr == CsrInstret || csr_addr == CsrInstreth);
  assign csr_illegal = !csr_known || csr_absent || (csr_ro && csr_wr);

  always_comb begin
    unique case (f3[1:0])
      2'b10:   csr_wdata = csr_rdata | csr_src;   // CSRRS
      2'b11:   csr_wdata = csr_rdata & ~csr_src;  // CSRRC
      default: csr_wdata = csr_src;               // CSRRW
    endcase
  end

  // ---- legality ---------------------------------------------------------------
  logic illegal;
  always_comb begin
    unique case (opc)
      OpcLui, OpcAuipc, OpcJal: illegal = 1'b0;
      OpcJalr:    illegal = f3 != 3'b000;
      OpcBranch:  illegal = f3[2:1] == 2'b01;
      OpcLoad:    illegal = f3 == 3'b011 || f3[2:1] == 2'b11;
      OpcStore:   illegal = f3[2] || f3[1:0] == 2'b11;
      OpcOpImm:   illegal = (f3 == 3'b001 && f7 != 7'd0) ||
                            (f3 == 3'b101 && f7 != 7'd0 && f7 != 7'b0100000);
      OpcOp:      illegal = f7 != 7'd0 &&
                            !(f7 == 7'b0100000 && (f3 == 3'b000 || f3 == 3'b101));
      OpcMiscMem: illegal = f3[2:1] != 2'b00;  // FENCE, FENCE.I
      OpcSystem: begin
        if (f3 == 3'b000)
          // ECALL, EBREAK, MRET, WFI with rd = rs1 = 0
          illegal = ir_q[19:7] != 13'd0 ||
                    !(ir_q[31:20] == 12'h000 || ir_q[31:20] == 12'h001 ||
                      ir_q[31:20] == 12'h302 || ir_q[31:20] == 12'h105);
        else
          illegal = f3 == 3'b100 || csr_illegal;
      end
      default:    illegal = 1'b1;
    endcase
  end

  // ---- state machine ------------------------------------------------------------
  // The FSM only decides control bits; every data value is muxed once,
  // outside it, by what the instruction is (one mux per value keeps the
  // logic small: a value assigned in many branches becomes a mux chain).
  logic        trap, retire, wb, csr_we, mret, jump;
  logic [3:0]  trap_cause;
  logic [31:0] trap_val, wb_data;
  logic [4:0]  first_reg;
  logic        has_rs2, fetch, mem_access, shift_op;

  // the register StFetch reads first, decoded from the fetched word
  assign has_rs2 = bus_rdata_i[6:0] == OpcOp || bus_rdata_i[6:0] == OpcBranch ||
                   bus_rdata_i[6:0] == OpcStore;
  assign first_reg = has_rs2 ? bus_rdata_i[24:20] :
                     bus_rdata_i[6:0] == OpcLui ? 5'd0 : bus_rdata_i[19:15];

  assign shift_op = (is_op || is_opimm) && f3[1:0] == 2'b01;
  // the written-back value (shifts: alu_out is b_q, see StShift; AUIPC:
  // the sum)
  assign wb_data = sum_wb_q ? sum :
                   is_load ? ld_data :
                   (is_jal || is_jalr) ? {npc_q, 2'b00} :
                   is_system ? csr_rdata : alu_out;
  // mtval for each cause (the spec allows 0 for illegal instructions,
  // ecall, ebreak and fetch faults: the trap handler finds the instruction
  // at mepc)
  always_comb begin
    unique case (trap_cause)
      ExcInstrMisaligned: trap_val = target;
      ExcLoadMisaligned, ExcStoreMisaligned: trap_val = sum;  // in StExec
      ExcLoadFault, ExcStoreFault:           trap_val = maddr_q;
      default:            trap_val = 32'd0;
    endcase
  end

  always_comb begin
    state_d    = state_q;
    ir_d       = ir_q;
    b_d        = b_q;
    cnt_d      = cnt_q;
    rf_re      = 1'b0;
    rf_raddr   = ir_q[19:15];
    fetch      = 1'b0;
    mem_access = 1'b0;
    wb         = 1'b0;
    retire     = 1'b0;
    jump       = 1'b0;
    trap       = 1'b0;
    trap_cause = ExcIllegal;
    csr_we     = 1'b0;
    mret       = 1'b0;
    unique case (state_q)
      // fetch the instruction at pc, read the first source register
      StFetch: begin
        fetch    = 1'b1;
        rf_raddr = first_reg;
        if (bus_ready_i) begin
          if (bus_err_i) begin
            trap       = 1'b1;
            trap_cause = ExcInstrFault;
          end else begin
            ir_d    = bus_rdata_i;
            rf_re   = 1'b1;
            state_d = has_rs2 ? StRead2 : StExec;
          end
        end
      end
      // latch rs2, read rs1
      StRead2: begin
        b_d     = rf_rdata;
        rf_re   = 1'b1;
        state_d = StExec;
      end
      // execute: a = rs1 from the register file
      StExec: begin
        state_d = StFetch;
        if (illegal) begin
          trap       = 1'b1;
          trap_cause = ExcIllegal;
        end else if (is_load || is_store) begin
          if (misaligned) begin
            trap       = 1'b1;
            trap_cause = is_store ? ExcStoreMisaligned : ExcLoadMisaligned;
          end else begin
            state_d = StMem;
          end
        end else if (is_branch) begin
          state_d = StBranch;
        end else if (is_jal || is_jalr) begin
          if (sum_lo[1]) begin
            trap       = 1'b1;
            trap_cause = ExcInstrMisaligned;
          end else begin
            wb     = 1'b1;
            jump   = 1'b1;
            retire = 1'b1;
          end
        end else if (is_system && f3 == 3'b000) begin
          // funct12 is one of 0x000, 0x001, 0x302, 0x105 (else illegal)
          if (ir_q[31:20] == 12'h000) begin  // ECALL
            trap       = 1'b1;
            trap_cause = ExcEcall;
          end else if (ir_q[31:20] == 12'h001) begin  // EBREAK
            trap       = 1'b1;
            trap_cause = ExcBreakpoint;
          end else begin  // MRET (0x302) or WFI (0x105)
            mret   = ir_q[21];
            retire = 1'b1;
          end
        end else if (shift_op) begin
          // SLL, SRL, SRA: b = rs1, shifted in StShift
          b_d     = a;
          cnt_d   = b[4:0];
          state_d = StShift;
        end else begin
          // OP, OP-IMM, LUI, AUIPC, CSR, not-taken branches, FENCE
          wb     = !is_branch && !is_miscmem;
          csr_we = is_system && csr_wr;
          retire = 1'b1;
        end
      end
      // finish the data access
      StMem: begin
        mem_access = 1'b1;
        if (bus_ready_i) begin
          state_d = StFetch;
          if (bus_err_i) begin
            trap       = 1'b1;
            trap_cause = is_store ? ExcStoreFault : ExcLoadFault;
          end else begin
            wb     = is_load;
            retire = 1'b1;
          end
        end
      end
      // shift b one bit per cycle; write it back when done
      StShift: begin
        if (cnt_q == 5'd0) begin
          wb      = 1'b1;
          retire  = 1'b1;
          state_d = StFetch;
        end else begin
          b_d   = f3 == 3'b001 ? {b_q[30:0], 1'b0} : {f7[5] & b_q[31], b_q[31:1]};
          cnt_d = cnt_q - 5'd1;
        end
      end
      // a branch, its condition from StExec: the target is pc + imm
      StBranch: begin
        state_d = StFetch;
        if (!taken_q) begin
          retire = 1'b1;
        end else if (sum_lo[1]) begin
          trap       = 1'b1;
          trap_cause = ExcInstrMisaligned;
        end else begin
          jump   = 1'b1;
          retire = 1'b1;
        end
      end
      default: state_d = StFetch;
    endcase
  end

  assign bus_req_o   = fetch || mem_access;
  assign bus_fetch_o = fetch;
  assign bus_we_o    = !fetch && is_store;
  assign bus_addr_o  = fetch ? pc : {maddr_q[31:2], 2'b00};
  assign bus_be_o    = (!fetch && is_store) ? st_be : 4'b1111;
  assign bus_wdata_o = st_data;

  assign rf_we    = wb;
  assign rf_wdata = wb_data;

  // pc, trap and CSR updates
  always_comb begin
    pc_d       = pc_q;
    mie_d      = mie_q;
    mpie_d     = mpie_q;
    mtvec_d    = mtvec_q;
    mepc_d     = mepc_q;
    mscratch_d = mscratch_q;
    mtval_d    = mtval_q;
    mcause_d   = mcause_q;
    mcycle_d   = mcycle_q + 64'd1;
    minstret_d = minstret_q + 64'(retire_q);
    if (csr_we) begin
      unique case (csr_addr)
        CsrMstatus: begin
          mie_d  = csr_wdata[3];
          mpie_d = csr_wdata[7];
        end
        CsrMtvec:     mtvec_d = csr_wdata[31:2];
        CsrMscratch:  mscratch_d = csr_wdata;
        CsrMepc:      mepc_d = csr_wdata[31:2];
        CsrMcause:    mcause_d = csr_wdata[3:0];
        CsrMtval:     mtval_d = csr_wdata;
        // the written half with the other as it was: no increment of the
        // whole counter, so no carry into or out of the written half
        CsrMcycle:    mcycle_d = {mcycle_q[63:32], csr_wdata};
        CsrMcycleh:   mcycle_d = {csr_wdata, mcycle_q[31:0]};
        CsrMinstret:  minstret_d = {minstret_q[63:32], csr_wdata};
        CsrMinstreth: minstret_d = {csr_wdata, minstret_q[31:0]};
        default: ;
      endcase
    end
    if (retire) pc_d = mret ? mepc_q : jump ? target[31:2] : npc_q;
    if (mret) begin
      mie_d  = mpie_q;
      mpie_d = 1'b1;
    end
    if (trap) begin
      pc_d     = mtvec_q;
      mepc_d   = pc_q;
      mcause_d = trap_cause;
      mtval_d  = trap_val;
      mpie_d   = mie_q;
      mie_d    = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q    <= StFetch;
      pc_q       <= BootAddr[31:2];
      npc_q      <= BootAddr[31:2];
      maddr_q    <= 32'd0;
      taken_q    <= 1'b0;
      ir_q       <= 32'd0;
      imm_q      <= 32'd0;
      {sum_wb_q, sub_op_q, rs2_op_q, pc_op_q} <= '0;
      b_q        <= 32'd0;
      cnt_q      <= 5'd0;
      mie_q      <= 1'b0;
      mpie_q     <= 1'b0;
      mtvec_q    <= BootAddr[31:2];
      mepc_q     <= 30'd0;
      mscratch_q <= 32'd0;
      mtval_q    <= 32'd0;
      mcause_q   <= 4'd0;
      mcycle_q   <= 64'd0;
      minstret_q <= 64'd0;
      retire_q   <= 1'b0;
    end else begin
      state_q    <= state_d;
      pc_q       <= pc_d;
      if (fetching) npc_q <= sum[31:2];
      if (fetching && bus_ready_i && !bus_err_i) begin
        imm_q <= imm_of(bus_rdata_i);
        {sum_wb_q, sub_op_q, rs2_op_q, pc_op_q} <= ops_of;
      end
      if (state_q == StExec) maddr_q <= sum;
      if (state_q == StExec) taken_q <= taken;
      ir_q       <= ir_d;
      b_q        <= b_d;
      cnt_q      <= cnt_d;
      mie_q      <= mie_d;
      mpie_q     <= mpie_d;
      mtvec_q    <= mtvec_d;
      mepc_q     <= mepc_d;
      mscratch_q <= mscratch_d;
      mtval_q    <= mtval_d;
      mcause_q   <= mcause_d;
      // without FullCounters the constant bits are optimized away
      mcycle_q   <= FullCounters ? mcycle_d : {32'd0, mcycle_d[31:0]};
      minstret_q <= FullCounters ? minstret_d : 64'd0;
      // a write to minstret(h) takes the place of its own instruction's
      // increment; retire_q is 0 in the cycle of any CSR write (the
      // instruction before retired two or more cycles earlier)
      retire_q   <= retire && !(csr_we && (csr_addr == CsrMinstret ||
                                           csr_addr == CsrMinstreth));
    end
  end

  assign retire_o = retire;
  assign trap_o   = trap;
endmodule
