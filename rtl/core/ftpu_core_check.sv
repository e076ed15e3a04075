// SPDX-License-Identifier: Apache-2.0
// ftpu_core_check: is a complete instruction well formed? The fault code it
// raises (0: none), checked in model/ref_device.c's order: opcode and
// flags, n, every address range against the memory sizes, the weight-tile
// state. Nothing is dispatched from a faulted instruction (ftpu_core), so
// nothing outside the checked ranges is ever written. Combinational.
module ftpu_core_check #(
  parameter int N           = ftpu_pkg::DEFAULT_N,
  parameter int UbVectors   = ftpu_pkg::DEFAULT_UbVectors,
  parameter int WmRows      = ftpu_pkg::DEFAULT_WmRows,
  parameter int AccVectors  = ftpu_pkg::DEFAULT_AccVectors,
  parameter int BiasVectors = ftpu_pkg::DEFAULT_BiasVectors,
  parameter int unsigned VectorUnit = ftpu_pkg::DEFAULT_VectorUnit
) (
  input  logic [7:0]  op_i,
  input  logic [7:0]  flags_i,
  input  logic [15:0] n_i,
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  input  logic        tile_cur_i,   // a weight tile is in the array
  input  logic        tile_next_i,  // ... and one is loaded behind it
  output logic [2:0]  fault_o
);
  localparam logic [7:0] OpHostRead  = ftpu_pkg::OP_HOST_READ;
  localparam logic [7:0] OpLoad      = ftpu_pkg::OP_LOAD_WEIGHTS;
  localparam logic [7:0] OpMatmul    = ftpu_pkg::OP_MATMUL;
  localparam logic [7:0] OpActivate  = ftpu_pkg::OP_ACTIVATE;
  localparam logic [7:0] OpHostWrite = ftpu_pkg::OP_HOST_WRITE;
  localparam logic [7:0] OpSync      = ftpu_pkg::OP_SYNC;
  localparam logic [1:0] MemUb = ftpu_pkg::MEM_UB, MemWm = ftpu_pkg::MEM_WM;
  localparam logic [1:0] MemAcc = ftpu_pkg::MEM_ACC;
  localparam logic [2:0] FaultOpcode = ftpu_pkg::FAULT_OPCODE, FaultCount = ftpu_pkg::FAULT_COUNT;
  localparam logic [2:0] FaultRange = ftpu_pkg::FAULT_RANGE, FaultNoTile = ftpu_pkg::FAULT_NO_TILE;
  localparam logic [2:0] FaultMemory = ftpu_pkg::FAULT_MEMORY;
  localparam logic [7:0] OpVadd = ftpu_pkg::OP_VADD, OpVmac = ftpu_pkg::OP_VMAC;
  localparam logic [7:0] OpVsel = ftpu_pkg::OP_VSEL, OpVseed = ftpu_pkg::OP_VSEED;
  localparam logic [7:0] OpConvert = ftpu_pkg::OP_CONVERT, OpCopy = ftpu_pkg::OP_COPY;
  localparam logic [7:0] BFixed = ftpu_pkg::VECTOR_B_FIXED, CFixed = ftpu_pkg::VECTOR_C_FIXED;
  localparam logic [7:0] Half = ftpu_pkg::VECTOR_HALF;
  localparam logic [7:0] TrConvert = ftpu_pkg::TRANSPOSE_CONVERT;
  localparam logic [7:0] TrCopy = ftpu_pkg::TRANSPOSE_COPY;
  localparam logic [7:0] HrU8 = ftpu_pkg::HOST_READ_U8, HrAlsoWm = ftpu_pkg::HOST_READ_ALSO_WM;

  // [base, base + cnt) within size, without overflow
  function automatic logic in_range(input logic [31:0] base, input logic [31:0] cnt,
                                    input logic [31:0] size);
    in_range = base < size && cnt <= size - base;
  endfunction

  // The destination [dst, dst + n) is the source range [src, src + sn) or
  // apart from it (in place or not at all: the vector unit reads first).
  function automatic logic apart_or_equal(input logic [31:0] dst, input logic [31:0] n,
                                          input logic [31:0] src, input logic [31:0] sn);
    apart_or_equal = (dst == src && n == sn) || 33'(dst) + 33'(n) <= 33'(src) ||
                     33'(src) + 33'(sn) <= 33'(dst);
  endfunction

  function automatic logic [31:0] size_of(input logic [1:0] mem);
    unique case (mem)
      MemUb:   size_of = 32'(UbVectors);
      MemWm:   size_of = 32'(WmRows);
      MemAcc:  size_of = 32'(AccVectors);
      default: size_of = 32'(BiasVectors);
    endcase
  endfunction

  logic [31:0] mem_size;  // of the memory flags_i[1:0] selects
  assign mem_size = size_of(flags_i[1:0]);

  logic [31:0] n;
  assign n = 32'(n_i);

  // VADD..VSEED: ACC rows a, b, c, d (word 1 = a | b << 16, word 2 = d | c << 16).
  logic        v_uses_c, v_bad_flags, v_bad_range;
  logic [7:0]  v_allowed;
  logic [31:0] va, vb, vc, vd, bn, cn;
  assign v_uses_c  = op_i == OpVmac || op_i == OpVsel;
  assign v_allowed = BFixed | (v_uses_c ? CFixed : 8'h00) | (op_i == OpVseed ? Half : 8'h00);
  assign v_bad_flags = VectorUnit == 0 || (flags_i & ~v_allowed) != '0;
  assign va = 32'(a_i[15:0]);
  assign vb = 32'(a_i[31:16]);
  assign vd = 32'(b_i[15:0]);
  assign vc = 32'(b_i[31:16]);
  assign bn = (flags_i & BFixed) != '0 ? 32'd1 : n;
  assign cn = (flags_i & CFixed) != '0 ? 32'd1 : n;
  assign v_bad_range = !in_range(va, n, 32'(AccVectors)) || !in_range(vb, bn, 32'(AccVectors)) ||
                       !in_range(vd, n, 32'(AccVectors)) ||
                       (v_uses_c && !in_range(vc, cn, 32'(AccVectors))) ||
                       !apart_or_equal(vd, n, va, n) || !apart_or_equal(vd, n, vb, bn) ||
                       (v_uses_c && !apart_or_equal(vd, n, vc, cn));

  // CONVERT (ACC to UB/WM) and COPY (UB/WM to UB/WM): src = a_i, dst = b_i.
  logic       m_convert, m_transpose, m_bad_flags, m_bad_count, m_bad_range;
  logic [1:0] m_src, m_dst;
  assign m_convert   = op_i == OpConvert;
  assign m_src       = m_convert ? MemAcc : flags_i[1:0];
  assign m_dst       = m_convert ? flags_i[1:0] : flags_i[3:2];
  assign m_transpose = (flags_i & (m_convert ? TrConvert : TrCopy)) != '0;
  assign m_bad_flags = VectorUnit == 0 ||
                       (flags_i & ~(m_convert ? (8'h03 | TrConvert) : (8'h0F | TrCopy))) != '0 ||
                       (!m_convert && m_src != MemUb && m_src != MemWm) ||
                       (m_dst != MemUb && m_dst != MemWm);
  assign m_bad_count = n_i == 16'd0 || (m_transpose && n_i % 16'(N) != 16'd0);
  assign m_bad_range = !in_range(a_i, n, size_of(m_src)) || !in_range(b_i, n, size_of(m_dst)) ||
                       (m_src == m_dst && !apart_or_equal(b_i, n, a_i, n));

  // HOST_WRITE's words per vector: N/2 bf16 pairs (UB) or N fp32 (ACC)
  logic [31:0] hw_words;
  assign hw_words = flags_i[1:0] == MemAcc ? 32'(N) : 32'(N / 2);

  always_comb begin
    fault_o = '0;
    if (n_i == 16'd0 && op_i >= OpHostRead && op_i <= OpHostWrite) begin
      fault_o = FaultCount;
    end else begin
      unique case (op_i)
        OpHostRead: begin
          // U8 and ALSO_WM (its WM rows: b..): into UB, on devices with the vector unit
          if ((flags_i & ~(8'd3 | HrU8 | HrAlsoWm)) != '0 ||
              ((flags_i & (HrU8 | HrAlsoWm)) != '0 &&
               (flags_i[1:0] != MemUb || VectorUnit == 0)))      fault_o = FaultOpcode;
          else if (!in_range(a_i, n, mem_size) ||
                   ((flags_i & HrAlsoWm) != '0 &&
                    !in_range(b_i, n, 32'(WmRows))))             fault_o = FaultRange;
        end
        OpLoad: begin
          if (flags_i != '0)                              fault_o = FaultOpcode;
          else if (n_i != 16'd1)                          fault_o = FaultCount;
          else if (!in_range(a_i, 32'(N), 32'(WmRows)))   fault_o = FaultRange;
        end
        OpMatmul: begin
          if (flags_i[7:2] != '0) fault_o = FaultOpcode;
          else if (!in_range(a_i, n, 32'(UbVectors)) ||
                   !in_range(b_i, n, 32'(AccVectors)))      fault_o = FaultRange;
          else if (flags_i[1] ? !tile_next_i : !tile_cur_i) fault_o = FaultNoTile;
        end
        OpActivate: begin
          if (flags_i[7:2] != '0) fault_o = FaultOpcode;
          else if (!in_range(a_i, n, 32'(AccVectors)) ||
                   !in_range(32'(b_i[15:0]), n, 32'(UbVectors)) ||
                   (flags_i[1] && 32'(b_i[31:16]) >= 32'(BiasVectors))) fault_o = FaultRange;
        end
        OpHostWrite: begin
          // bit 2 WORDS: the first b words of each vector
          if (flags_i[7:3] != '0)                                   fault_o = FaultOpcode;
          else if (flags_i[1:0] != MemUb && flags_i[1:0] != MemAcc) fault_o = FaultMemory;
          else if (flags_i[2] && (b_i == '0 || b_i > hw_words))     fault_o = FaultCount;
          else if (!in_range(a_i, n, mem_size))                     fault_o = FaultRange;
        end
        OpSync:  if (flags_i != '0) fault_o = FaultOpcode;
        OpConvert, OpCopy: begin
          if (m_bad_flags)       fault_o = FaultOpcode;
          else if (m_bad_count)  fault_o = FaultCount;
          else if (m_bad_range)  fault_o = FaultRange;
        end
        default: begin
          if (op_i < OpVadd || op_i > OpVseed || v_bad_flags) fault_o = FaultOpcode;
          else if (n_i == 16'd0)                               fault_o = FaultCount;
          else if (v_bad_range)                                fault_o = FaultRange;
        end
      endcase
    end
  end
endmodule
