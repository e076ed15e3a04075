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
  parameter int BiasVectors = ftpu_pkg::DEFAULT_BiasVectors
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

  // [base, base + cnt) within size, without overflow
  function automatic logic in_range(input logic [31:0] base, input logic [31:0] cnt,
                                    input logic [31:0] size);
    in_range = base < size && cnt <= size - base;
  endfunction

  logic [31:0] mem_size;  // of the memory flags_i[1:0] selects
  always_comb begin
    unique case (flags_i[1:0])
      MemUb:   mem_size = 32'(UbVectors);
      MemWm:   mem_size = 32'(WmRows);
      MemAcc:  mem_size = 32'(AccVectors);
      default: mem_size = 32'(BiasVectors);
    endcase
  end

  logic [31:0] n;
  assign n = 32'(n_i);

  always_comb begin
    fault_o = '0;
    if (n_i == 16'd0 && op_i >= OpHostRead && op_i <= OpHostWrite) begin
      fault_o = FaultCount;
    end else begin
      unique case (op_i)
        OpHostRead: begin
          if (flags_i[7:2] != '0)              fault_o = FaultOpcode;
          else if (!in_range(a_i, n, mem_size)) fault_o = FaultRange;
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
          if (flags_i[7:2] != '0)                                   fault_o = FaultOpcode;
          else if (flags_i[1:0] != MemUb && flags_i[1:0] != MemAcc) fault_o = FaultMemory;
          else if (!in_range(a_i, n, mem_size))                     fault_o = FaultRange;
        end
        OpSync:  if (flags_i != '0) fault_o = FaultOpcode;
        default: fault_o = FaultOpcode;
      endcase
    end
  end
endmodule
