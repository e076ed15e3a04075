// SPDX-License-Identifier: Apache-2.0
// ftpu_pkg.sv - generated from spec/ftpu.toml by spec/gen.py - do not edit.
// The protocol, ISA and register constants for the RTL, used as
// ftpu_pkg::NAME (Yosys reads packages but not import).
// Each module uses a few of these: unused ones are not a finding.
/* verilator lint_off UNUSEDPARAM */
package ftpu_pkg;

  localparam int unsigned LINK_VERSION_MAJOR = 1;  // protocol major version: INFO VERSION = major << 16 | minor
  localparam int unsigned LINK_VERSION_MINOR = 5;  // protocol minor version (1.1: INFO FEATURES; 1.2: INFO LINK_BYTES, HOST_READ U8; 1.3: HOST_WRITE WORDS; 1.4: HOST_READ ALSO_WM; 1.5: FEATURES IN_ORDER)
  localparam int unsigned VECTOR_WIDTH = 4;  // vectors the vector unit streams per cycle (its ACC operand and result ports are this many vectors wide)
  localparam logic [31:0] LINK_SYNC = 32'h5550_5446;  // header word 0: bytes 'F','T','P','U' on the wire
  localparam int unsigned LINK_HEADER_BYTES = 16;  // SYNC, W1, W2, HCRC
  localparam int unsigned LINK_MAX_PAYLOAD = 4096;  // payload words of the largest frame; a longer len is BAD_LENGTH
  localparam int unsigned LINK_MAX_CONTROL = 16;  // CONTROL payload words the device's mailbox takes
  localparam logic [15:0] LINK_SEQ_UNKNOWN = 16'hFFFF;  // ERROR w1 when the offending header was unreadable
  localparam logic [7:0] LINK_TYPE_UNKNOWN = 8'hFF;  // ERROR w2 when the offending header was unreadable
  localparam logic [15:0] LINK_CREDIT_MAX = 16'hFFFF;  // W2 credit saturates here
  localparam int unsigned ISA_WORDS = 3;  // words per instruction, before inline data

  // header fields: W1 = type | flags | seq, W2 = len | credit (LSB, width)
  localparam int unsigned LINK_FIELD_TYPE_LSB = 0;
  localparam int unsigned LINK_FIELD_TYPE_WIDTH = 8;
  localparam int unsigned LINK_FIELD_FLAGS_LSB = 8;
  localparam int unsigned LINK_FIELD_FLAGS_WIDTH = 8;
  localparam int unsigned LINK_FIELD_SEQ_LSB = 16;
  localparam int unsigned LINK_FIELD_SEQ_WIDTH = 16;
  localparam int unsigned LINK_FIELD_LEN_LSB = 0;
  localparam int unsigned LINK_FIELD_LEN_WIDTH = 16;
  localparam int unsigned LINK_FIELD_CREDIT_LSB = 16;
  localparam int unsigned LINK_FIELD_CREDIT_WIDTH = 16;

  // frame types (W1 bits 7:0)
  localparam logic [7:0] LINK_TYPE_CONTROL = 8'h01;
  localparam logic [7:0] LINK_TYPE_PROGRAM = 8'h02;
  localparam logic [7:0] LINK_TYPE_RESPONSE = 8'h81;
  localparam logic [7:0] LINK_TYPE_DATA = 8'h82;
  localparam logic [7:0] LINK_TYPE_EVENT = 8'h83;
  localparam logic [7:0] LINK_TYPE_ERROR = 8'h84;

  // receive error codes: ERROR w0, index of ftpu_link_stats.errors
  localparam logic [2:0] LINK_ERR_BAD_HEADER_CRC = 3'd1;
  localparam logic [2:0] LINK_ERR_BAD_PAYLOAD_CRC = 3'd2;
  localparam logic [2:0] LINK_ERR_BAD_LENGTH = 3'd3;
  localparam logic [2:0] LINK_ERR_UNKNOWN_TYPE = 3'd4;
  localparam logic [2:0] LINK_ERR_OVERFLOW = 3'd5;
  localparam logic [2:0] LINK_ERR_TIMEOUT = 3'd6;
  localparam int unsigned LINK_ERR_MAX = 6;

  // CONTROL w0 (echoed as RESPONSE w0); ops from FW_INFO on are served by the control core's firmware (§7.2.1), a device without one answers UNKNOWN_OP
  localparam logic [31:0] LINK_OP_INFO = 32'h0000_0001;
  localparam logic [31:0] LINK_OP_STATUS = 32'h0000_0002;
  localparam logic [31:0] LINK_OP_RESET = 32'h0000_0003;
  localparam logic [31:0] LINK_OP_READ_COUNTERS = 32'h0000_0004;
  localparam logic [31:0] LINK_OP_CLEAR_COUNTERS = 32'h0000_0005;
  localparam logic [31:0] LINK_OP_READ_FAULTS = 32'h0000_0006;
  localparam logic [31:0] LINK_OP_FW_INFO = 32'h0000_0007;
  localparam logic [31:0] LINK_OP_SELFTEST = 32'h0000_0008;
  localparam logic [31:0] LINK_OP_UPDATE_BEGIN = 32'h0000_0009;
  localparam logic [31:0] LINK_OP_UPDATE_DATA = 32'h0000_000A;
  localparam logic [31:0] LINK_OP_UPDATE_COMMIT = 32'h0000_000B;
  localparam logic [31:0] LINK_OP_BOOT = 32'h0000_000C;

  // RESPONSE w1
  localparam logic [31:0] LINK_RESP_OK = 32'h0000_0000;
  localparam logic [31:0] LINK_RESP_UNKNOWN_OP = 32'h0000_0001;
  localparam logic [31:0] LINK_RESP_BAD_REQUEST = 32'h0000_0002;
  localparam logic [31:0] LINK_RESP_FAILED = 32'h0000_0003;

  // INFO response: (key, value) word pairs after op and status
  localparam logic [31:0] LINK_INFO_VERSION = 32'h0000_0001;
  localparam logic [31:0] LINK_INFO_ROWS = 32'h0000_0002;
  localparam logic [31:0] LINK_INFO_COLS = 32'h0000_0003;
  localparam logic [31:0] LINK_INFO_UB_VECTORS = 32'h0000_0004;
  localparam logic [31:0] LINK_INFO_WEIGHT_TILES = 32'h0000_0005;
  localparam logic [31:0] LINK_INFO_ACC_VECTORS = 32'h0000_0006;
  localparam logic [31:0] LINK_INFO_BIAS_VECTORS = 32'h0000_0007;
  localparam logic [31:0] LINK_INFO_IQ_WORDS = 32'h0000_0008;
  localparam logic [31:0] LINK_INFO_CLOCK_HZ = 32'h0000_0009;
  localparam logic [31:0] LINK_INFO_ROW_DELAY = 32'h0000_000A;
  localparam logic [31:0] LINK_INFO_MAX_PAYLOAD = 32'h0000_000B;
  localparam logic [31:0] LINK_INFO_FEATURES = 32'h0000_000C;
  localparam logic [31:0] LINK_INFO_LINK_BYTES = 32'h0000_000D;
  localparam int unsigned LINK_INFO_MAX = 13;

  // INFO FEATURES bits: the optional units a device has, and what a small profile leaves out (a bit a device older than it cannot know reads 0, which is true of it)
  localparam int unsigned FEATURE_VECTOR_UNIT_LSB = 0;
  localparam int unsigned FEATURE_VECTOR_UNIT_WIDTH = 1;
  localparam int unsigned FEATURE_IN_ORDER_LSB = 1;
  localparam int unsigned FEATURE_IN_ORDER_WIDTH = 1;

  // STATUS response words after op and status
  localparam logic [31:0] LINK_STATUS_STATE = 32'h0000_0000;
  localparam logic [31:0] LINK_STATUS_FREE_WORDS = 32'h0000_0001;
  localparam logic [31:0] LINK_STATUS_QUEUED_WORDS = 32'h0000_0002;
  localparam logic [31:0] LINK_STATUS_FAULTS = 32'h0000_0003;
  localparam int unsigned LINK_STATUS_COUNT = 4;

  // STATUS STATE: the device's execution state
  localparam logic [1:0] STATE_IDLE = 2'd0;
  localparam logic [1:0] STATE_RUNNING = 2'd1;
  localparam logic [1:0] STATE_FAULTED = 2'd2;

  // READ_COUNTERS response: word index after op and status; the _LO/_HI pairs are one 64-bit counter
  localparam logic [31:0] CNT_CYCLES = 32'h0000_0000;
  localparam logic [31:0] CNT_BUSY = 32'h0000_0001;
  localparam logic [31:0] CNT_MACS_LO = 32'h0000_0002;
  localparam logic [31:0] CNT_MACS_HI = 32'h0000_0003;
  localparam logic [31:0] CNT_WEIGHT_STALL = 32'h0000_0004;
  localparam logic [31:0] CNT_INPUT_STALL = 32'h0000_0005;
  localparam logic [31:0] CNT_OUTPUT_STALL = 32'h0000_0006;
  localparam logic [31:0] CNT_IDLE = 32'h0000_0007;
  localparam logic [31:0] CNT_BYTES_IN_LO = 32'h0000_0008;
  localparam logic [31:0] CNT_BYTES_IN_HI = 32'h0000_0009;
  localparam logic [31:0] CNT_BYTES_OUT_LO = 32'h0000_000A;
  localparam logic [31:0] CNT_BYTES_OUT_HI = 32'h0000_000B;
  localparam logic [31:0] CNT_INSTRUCTIONS = 32'h0000_000C;
  localparam int unsigned CNT_COUNT = 13;

  // READ_FAULTS response words after op and status
  localparam logic [31:0] LINK_FAULTS_COUNT_SINCE_RESET = 32'h0000_0000;
  localparam logic [31:0] LINK_FAULTS_PC = 32'h0000_0001;
  localparam logic [31:0] LINK_FAULTS_CODE = 32'h0000_0002;
  localparam logic [31:0] LINK_FAULTS_INSTR = 32'h0000_0003;
  localparam int unsigned LINK_FAULTS_COUNT = 4;

  // EVENT w0: the kind of event
  localparam logic [31:0] EVENT_SYNC = 32'h0000_0001;
  localparam logic [31:0] EVENT_FAULT = 32'h0000_0002;

  // PROGRAM frame flags (W1 bits 15:8): a program runs from a frame flagged START to one flagged END
  localparam logic [7:0] PROGRAM_START = 8'h01;
  localparam logic [7:0] PROGRAM_END = 8'h02;

  // instruction word 0: opcode | flags | n (LSB, width)
  localparam int unsigned ISA_FIELD_OP_LSB = 0;
  localparam int unsigned ISA_FIELD_OP_WIDTH = 8;
  localparam int unsigned ISA_FIELD_FLAGS_LSB = 8;
  localparam int unsigned ISA_FIELD_FLAGS_WIDTH = 8;
  localparam int unsigned ISA_FIELD_N_LSB = 16;
  localparam int unsigned ISA_FIELD_N_WIDTH = 16;

  // opcodes (instruction word 0 bits 7:0)
  localparam logic [7:0] OP_HOST_READ = 8'h01;
  localparam logic [7:0] OP_LOAD_WEIGHTS = 8'h02;
  localparam logic [7:0] OP_MATMUL = 8'h03;
  localparam logic [7:0] OP_ACTIVATE = 8'h04;
  localparam logic [7:0] OP_HOST_WRITE = 8'h05;
  localparam logic [7:0] OP_SYNC = 8'h06;

  // the vector unit's opcodes (docs/vector.md): operands in ACC, fp32 vectors of N lanes; a device without the unit faults OPCODE
  localparam logic [7:0] OP_VADD = 8'h10;
  localparam logic [7:0] OP_VSUB = 8'h11;
  localparam logic [7:0] OP_VMUL = 8'h12;
  localparam logic [7:0] OP_VMAC = 8'h13;
  localparam logic [7:0] OP_VMAX = 8'h14;
  localparam logic [7:0] OP_VSEL = 8'h15;
  localparam logic [7:0] OP_VSEED = 8'h16;
  localparam logic [7:0] OP_CONVERT = 8'h17;
  localparam logic [7:0] OP_COPY = 8'h18;

  // VADD..VSEED flags: a FIXED operand is one vector read for every i (a scalar as a vector)
  localparam logic [7:0] VECTOR_B_FIXED = 8'h01;
  localparam logic [7:0] VECTOR_C_FIXED = 8'h02;
  localparam logic [7:0] VECTOR_HALF = 8'h04;

  // CONVERT and COPY: the TRANSPOSE flag
  localparam logic [7:0] TRANSPOSE_CONVERT = 8'h04;
  localparam logic [7:0] TRANSPOSE_COPY = 8'h10;

  // HOST_READ flags beyond the memory, on devices with the vector unit: U8 sends bytes (4 to a word), each stored in UB as bf16(p / 255) (UNORM8, docs/numerics.md); ALSO_WM writes each UB vector also to WM row b + i (the training step's inputs are the weight tiles of its weight gradient, docs/training.md)
  localparam logic [7:0] HOST_READ_U8 = 8'h04;
  localparam logic [7:0] HOST_READ_ALSO_WM = 8'h08;

  // HOST_WRITE flags beyond the memory: WORDS sends the first b words of each vector (ACC: lanes 0..b-1; UB: lanes 0..2b-1), the rest of the vector stays on the device
  localparam logic [7:0] HOST_WRITE_WORDS = 8'h04;

  // HOST_READ / HOST_WRITE flags[1:0]: the memory
  localparam logic [1:0] MEM_UB = 2'd0;
  localparam logic [1:0] MEM_WM = 2'd1;
  localparam logic [1:0] MEM_ACC = 2'd2;
  localparam logic [1:0] MEM_BIAS = 2'd3;

  // MATMUL flags
  localparam logic [7:0] MATMUL_ACCUMULATE = 8'h01;
  localparam logic [7:0] MATMUL_SWAP = 8'h02;

  // ACTIVATE flags
  localparam logic [7:0] ACTIVATE_RELU = 8'h01;
  localparam logic [7:0] ACTIVATE_BIAS = 8'h02;

  // fault codes: EVENT FAULT w2, READ_FAULTS CODE
  localparam logic [2:0] FAULT_OPCODE = 3'd1;
  localparam logic [2:0] FAULT_COUNT = 3'd2;
  localparam logic [2:0] FAULT_RANGE = 3'd3;
  localparam logic [2:0] FAULT_NO_TILE = 3'd4;
  localparam logic [2:0] FAULT_TRUNCATED = 3'd5;
  localparam logic [2:0] FAULT_MEMORY = 3'd6;
  localparam logic [2:0] FAULT_FRAMING = 3'd7;

  // CMD register bits (write 1 to act; reads 0)
  localparam int unsigned CMD_RESET_LSB = 0;
  localparam int unsigned CMD_RESET_WIDTH = 1;
  localparam int unsigned CMD_CLEAR_COUNTERS_LSB = 1;
  localparam int unsigned CMD_CLEAR_COUNTERS_WIDTH = 1;
  localparam int unsigned CMD_SNAPSHOT_LSB = 2;
  localparam int unsigned CMD_SNAPSHOT_WIDTH = 1;

  // the soft device's MMIO addresses (ftpu_cpu EXT window)
  localparam logic [31:0] SOC_UART_RX = 32'h4000_1000;
  localparam logic [31:0] SOC_UART_TX = 32'h4000_1004;
  localparam logic [31:0] SOC_BUSY = 32'h4000_1008;
  localparam logic [31:0] SOC_ARRAY_PSUM = 32'h4000_2000;
  localparam logic [31:0] SOC_ARRAY_ACT = 32'h4000_2100;
  localparam logic [31:0] SOC_ARRAY_WROW = 32'h4000_2200;
  localparam logic [31:0] SOC_ARRAY_WDATA = 32'h4000_2300;
  localparam logic [31:0] SOC_ARRAY_RESULT = 32'h4000_2400;
  localparam logic [31:0] SOC_ARRAY_STATUS = 32'h4000_2500;

  // Control-plane register word addresses (docs/registers.md).
  localparam logic [7:0] REG_ID = 8'h00;
  localparam logic [7:0] REG_VERSION = 8'h01;
  localparam logic [7:0] REG_ROWS = 8'h02;
  localparam logic [7:0] REG_COLS = 8'h03;
  localparam logic [7:0] REG_UB_VECTORS = 8'h04;
  localparam logic [7:0] REG_WEIGHT_TILES = 8'h05;
  localparam logic [7:0] REG_ACC_VECTORS = 8'h06;
  localparam logic [7:0] REG_BIAS_VECTORS = 8'h07;
  localparam logic [7:0] REG_IQ_WORDS = 8'h08;
  localparam logic [7:0] REG_CLOCK_HZ = 8'h09;
  localparam logic [7:0] REG_ROW_DELAY = 8'h0A;
  localparam logic [7:0] REG_MAX_PAYLOAD = 8'h0B;
  localparam logic [7:0] REG_FEATURES = 8'h0C;
  localparam logic [7:0] REG_LINK_BYTES = 8'h0D;
  localparam logic [7:0] REG_STATE = 8'h10;
  localparam logic [7:0] REG_FREE_WORDS = 8'h11;
  localparam logic [7:0] REG_QUEUED_WORDS = 8'h12;
  localparam logic [7:0] REG_FAULTS = 8'h13;
  localparam logic [7:0] REG_CYCLES = 8'h20;
  localparam logic [7:0] REG_BUSY = 8'h21;
  localparam logic [7:0] REG_MACS_LO = 8'h22;
  localparam logic [7:0] REG_MACS_HI = 8'h23;
  localparam logic [7:0] REG_WEIGHT_STALL = 8'h24;
  localparam logic [7:0] REG_INPUT_STALL = 8'h25;
  localparam logic [7:0] REG_OUTPUT_STALL = 8'h26;
  localparam logic [7:0] REG_IDLE = 8'h27;
  localparam logic [7:0] REG_BYTES_IN_LO = 8'h28;
  localparam logic [7:0] REG_BYTES_IN_HI = 8'h29;
  localparam logic [7:0] REG_BYTES_OUT_LO = 8'h2A;
  localparam logic [7:0] REG_BYTES_OUT_HI = 8'h2B;
  localparam logic [7:0] REG_INSTRUCTIONS = 8'h2C;
  localparam logic [7:0] REG_FAULT_COUNT = 8'h30;
  localparam logic [7:0] REG_FAULT_PC = 8'h31;
  localparam logic [7:0] REG_FAULT_CODE = 8'h32;
  localparam logic [7:0] REG_FAULT_INSTR = 8'h33;
  localparam logic [7:0] REG_CMD = 8'h3F;
  localparam logic [7:0] REG_SNAP = 8'h40;
  localparam logic [7:0] REG_INFO_BASE = 8'h00;
  localparam logic [7:0] REG_STATUS_BASE = 8'h10;
  localparam logic [7:0] REG_COUNTER_BASE = 8'h20;
  localparam logic [7:0] REG_FAULT_BASE = 8'h30;
  localparam logic [7:0] REG_SNAP_BASE = 8'h40;

  // Clocks an fp32 add takes with pipeline cuts at the set bits of cuts[2:0]
  // (ftpu_fp32_add), and the cycles a partial sum spends in a PE: one more.
  // gen.py's row_delay() is the same formula for the build and the host.
  function automatic integer add_latency(input integer cuts);
    add_latency = (cuts & 1) + ((cuts >> 1) & 1) + ((cuts >> 2) & 1);
  endfunction
  function automatic integer row_delay(input integer cuts);
    row_delay = 1 + add_latency(cuts);
  endfunction

  // HOST_READ U8 (UNORM8): byte p as bf16(p / 255), the host's fp32
  // division rounded to nearest even; computed exactly by gen.py.
  function automatic logic [15:0] unorm8_bf16(input logic [7:0] p);
    unique case (p)
      8'd0: unorm8_bf16 = 16'h0000;
      8'd1: unorm8_bf16 = 16'h3B81;
      8'd2: unorm8_bf16 = 16'h3C01;
      8'd3: unorm8_bf16 = 16'h3C41;
      8'd4: unorm8_bf16 = 16'h3C81;
      8'd5: unorm8_bf16 = 16'h3CA1;
      8'd6: unorm8_bf16 = 16'h3CC1;
      8'd7: unorm8_bf16 = 16'h3CE1;
      8'd8: unorm8_bf16 = 16'h3D01;
      8'd9: unorm8_bf16 = 16'h3D11;
      8'd10: unorm8_bf16 = 16'h3D21;
      8'd11: unorm8_bf16 = 16'h3D31;
      8'd12: unorm8_bf16 = 16'h3D41;
      8'd13: unorm8_bf16 = 16'h3D51;
      8'd14: unorm8_bf16 = 16'h3D61;
      8'd15: unorm8_bf16 = 16'h3D71;
      8'd16: unorm8_bf16 = 16'h3D81;
      8'd17: unorm8_bf16 = 16'h3D89;
      8'd18: unorm8_bf16 = 16'h3D91;
      8'd19: unorm8_bf16 = 16'h3D99;
      8'd20: unorm8_bf16 = 16'h3DA1;
      8'd21: unorm8_bf16 = 16'h3DA9;
      8'd22: unorm8_bf16 = 16'h3DB1;
      8'd23: unorm8_bf16 = 16'h3DB9;
      8'd24: unorm8_bf16 = 16'h3DC1;
      8'd25: unorm8_bf16 = 16'h3DC9;
      8'd26: unorm8_bf16 = 16'h3DD1;
      8'd27: unorm8_bf16 = 16'h3DD9;
      8'd28: unorm8_bf16 = 16'h3DE1;
      8'd29: unorm8_bf16 = 16'h3DE9;
      8'd30: unorm8_bf16 = 16'h3DF1;
      8'd31: unorm8_bf16 = 16'h3DF9;
      8'd32: unorm8_bf16 = 16'h3E01;
      8'd33: unorm8_bf16 = 16'h3E05;
      8'd34: unorm8_bf16 = 16'h3E09;
      8'd35: unorm8_bf16 = 16'h3E0D;
      8'd36: unorm8_bf16 = 16'h3E11;
      8'd37: unorm8_bf16 = 16'h3E15;
      8'd38: unorm8_bf16 = 16'h3E19;
      8'd39: unorm8_bf16 = 16'h3E1D;
      8'd40: unorm8_bf16 = 16'h3E21;
      8'd41: unorm8_bf16 = 16'h3E25;
      8'd42: unorm8_bf16 = 16'h3E29;
      8'd43: unorm8_bf16 = 16'h3E2D;
      8'd44: unorm8_bf16 = 16'h3E31;
      8'd45: unorm8_bf16 = 16'h3E35;
      8'd46: unorm8_bf16 = 16'h3E39;
      8'd47: unorm8_bf16 = 16'h3E3D;
      8'd48: unorm8_bf16 = 16'h3E41;
      8'd49: unorm8_bf16 = 16'h3E45;
      8'd50: unorm8_bf16 = 16'h3E49;
      8'd51: unorm8_bf16 = 16'h3E4D;
      8'd52: unorm8_bf16 = 16'h3E51;
      8'd53: unorm8_bf16 = 16'h3E55;
      8'd54: unorm8_bf16 = 16'h3E59;
      8'd55: unorm8_bf16 = 16'h3E5D;
      8'd56: unorm8_bf16 = 16'h3E61;
      8'd57: unorm8_bf16 = 16'h3E65;
      8'd58: unorm8_bf16 = 16'h3E69;
      8'd59: unorm8_bf16 = 16'h3E6D;
      8'd60: unorm8_bf16 = 16'h3E71;
      8'd61: unorm8_bf16 = 16'h3E75;
      8'd62: unorm8_bf16 = 16'h3E79;
      8'd63: unorm8_bf16 = 16'h3E7D;
      8'd64: unorm8_bf16 = 16'h3E81;
      8'd65: unorm8_bf16 = 16'h3E83;
      8'd66: unorm8_bf16 = 16'h3E85;
      8'd67: unorm8_bf16 = 16'h3E87;
      8'd68: unorm8_bf16 = 16'h3E89;
      8'd69: unorm8_bf16 = 16'h3E8B;
      8'd70: unorm8_bf16 = 16'h3E8D;
      8'd71: unorm8_bf16 = 16'h3E8F;
      8'd72: unorm8_bf16 = 16'h3E91;
      8'd73: unorm8_bf16 = 16'h3E93;
      8'd74: unorm8_bf16 = 16'h3E95;
      8'd75: unorm8_bf16 = 16'h3E97;
      8'd76: unorm8_bf16 = 16'h3E99;
      8'd77: unorm8_bf16 = 16'h3E9B;
      8'd78: unorm8_bf16 = 16'h3E9D;
      8'd79: unorm8_bf16 = 16'h3E9F;
      8'd80: unorm8_bf16 = 16'h3EA1;
      8'd81: unorm8_bf16 = 16'h3EA3;
      8'd82: unorm8_bf16 = 16'h3EA5;
      8'd83: unorm8_bf16 = 16'h3EA7;
      8'd84: unorm8_bf16 = 16'h3EA9;
      8'd85: unorm8_bf16 = 16'h3EAB;
      8'd86: unorm8_bf16 = 16'h3EAD;
      8'd87: unorm8_bf16 = 16'h3EAF;
      8'd88: unorm8_bf16 = 16'h3EB1;
      8'd89: unorm8_bf16 = 16'h3EB3;
      8'd90: unorm8_bf16 = 16'h3EB5;
      8'd91: unorm8_bf16 = 16'h3EB7;
      8'd92: unorm8_bf16 = 16'h3EB9;
      8'd93: unorm8_bf16 = 16'h3EBB;
      8'd94: unorm8_bf16 = 16'h3EBD;
      8'd95: unorm8_bf16 = 16'h3EBF;
      8'd96: unorm8_bf16 = 16'h3EC1;
      8'd97: unorm8_bf16 = 16'h3EC3;
      8'd98: unorm8_bf16 = 16'h3EC5;
      8'd99: unorm8_bf16 = 16'h3EC7;
      8'd100: unorm8_bf16 = 16'h3EC9;
      8'd101: unorm8_bf16 = 16'h3ECB;
      8'd102: unorm8_bf16 = 16'h3ECD;
      8'd103: unorm8_bf16 = 16'h3ECF;
      8'd104: unorm8_bf16 = 16'h3ED1;
      8'd105: unorm8_bf16 = 16'h3ED3;
      8'd106: unorm8_bf16 = 16'h3ED5;
      8'd107: unorm8_bf16 = 16'h3ED7;
      8'd108: unorm8_bf16 = 16'h3ED9;
      8'd109: unorm8_bf16 = 16'h3EDB;
      8'd110: unorm8_bf16 = 16'h3EDD;
      8'd111: unorm8_bf16 = 16'h3EDF;
      8'd112: unorm8_bf16 = 16'h3EE1;
      8'd113: unorm8_bf16 = 16'h3EE3;
      8'd114: unorm8_bf16 = 16'h3EE5;
      8'd115: unorm8_bf16 = 16'h3EE7;
      8'd116: unorm8_bf16 = 16'h3EE9;
      8'd117: unorm8_bf16 = 16'h3EEB;
      8'd118: unorm8_bf16 = 16'h3EED;
      8'd119: unorm8_bf16 = 16'h3EEF;
      8'd120: unorm8_bf16 = 16'h3EF1;
      8'd121: unorm8_bf16 = 16'h3EF3;
      8'd122: unorm8_bf16 = 16'h3EF5;
      8'd123: unorm8_bf16 = 16'h3EF7;
      8'd124: unorm8_bf16 = 16'h3EF9;
      8'd125: unorm8_bf16 = 16'h3EFB;
      8'd126: unorm8_bf16 = 16'h3EFD;
      8'd127: unorm8_bf16 = 16'h3EFF;
      8'd128: unorm8_bf16 = 16'h3F01;
      8'd129: unorm8_bf16 = 16'h3F02;
      8'd130: unorm8_bf16 = 16'h3F03;
      8'd131: unorm8_bf16 = 16'h3F04;
      8'd132: unorm8_bf16 = 16'h3F05;
      8'd133: unorm8_bf16 = 16'h3F06;
      8'd134: unorm8_bf16 = 16'h3F07;
      8'd135: unorm8_bf16 = 16'h3F08;
      8'd136: unorm8_bf16 = 16'h3F09;
      8'd137: unorm8_bf16 = 16'h3F0A;
      8'd138: unorm8_bf16 = 16'h3F0B;
      8'd139: unorm8_bf16 = 16'h3F0C;
      8'd140: unorm8_bf16 = 16'h3F0D;
      8'd141: unorm8_bf16 = 16'h3F0E;
      8'd142: unorm8_bf16 = 16'h3F0F;
      8'd143: unorm8_bf16 = 16'h3F10;
      8'd144: unorm8_bf16 = 16'h3F11;
      8'd145: unorm8_bf16 = 16'h3F12;
      8'd146: unorm8_bf16 = 16'h3F13;
      8'd147: unorm8_bf16 = 16'h3F14;
      8'd148: unorm8_bf16 = 16'h3F15;
      8'd149: unorm8_bf16 = 16'h3F16;
      8'd150: unorm8_bf16 = 16'h3F17;
      8'd151: unorm8_bf16 = 16'h3F18;
      8'd152: unorm8_bf16 = 16'h3F19;
      8'd153: unorm8_bf16 = 16'h3F1A;
      8'd154: unorm8_bf16 = 16'h3F1B;
      8'd155: unorm8_bf16 = 16'h3F1C;
      8'd156: unorm8_bf16 = 16'h3F1D;
      8'd157: unorm8_bf16 = 16'h3F1E;
      8'd158: unorm8_bf16 = 16'h3F1F;
      8'd159: unorm8_bf16 = 16'h3F20;
      8'd160: unorm8_bf16 = 16'h3F21;
      8'd161: unorm8_bf16 = 16'h3F22;
      8'd162: unorm8_bf16 = 16'h3F23;
      8'd163: unorm8_bf16 = 16'h3F24;
      8'd164: unorm8_bf16 = 16'h3F25;
      8'd165: unorm8_bf16 = 16'h3F26;
      8'd166: unorm8_bf16 = 16'h3F27;
      8'd167: unorm8_bf16 = 16'h3F28;
      8'd168: unorm8_bf16 = 16'h3F29;
      8'd169: unorm8_bf16 = 16'h3F2A;
      8'd170: unorm8_bf16 = 16'h3F2B;
      8'd171: unorm8_bf16 = 16'h3F2C;
      8'd172: unorm8_bf16 = 16'h3F2D;
      8'd173: unorm8_bf16 = 16'h3F2E;
      8'd174: unorm8_bf16 = 16'h3F2F;
      8'd175: unorm8_bf16 = 16'h3F30;
      8'd176: unorm8_bf16 = 16'h3F31;
      8'd177: unorm8_bf16 = 16'h3F32;
      8'd178: unorm8_bf16 = 16'h3F33;
      8'd179: unorm8_bf16 = 16'h3F34;
      8'd180: unorm8_bf16 = 16'h3F35;
      8'd181: unorm8_bf16 = 16'h3F36;
      8'd182: unorm8_bf16 = 16'h3F37;
      8'd183: unorm8_bf16 = 16'h3F38;
      8'd184: unorm8_bf16 = 16'h3F39;
      8'd185: unorm8_bf16 = 16'h3F3A;
      8'd186: unorm8_bf16 = 16'h3F3B;
      8'd187: unorm8_bf16 = 16'h3F3C;
      8'd188: unorm8_bf16 = 16'h3F3D;
      8'd189: unorm8_bf16 = 16'h3F3E;
      8'd190: unorm8_bf16 = 16'h3F3F;
      8'd191: unorm8_bf16 = 16'h3F40;
      8'd192: unorm8_bf16 = 16'h3F41;
      8'd193: unorm8_bf16 = 16'h3F42;
      8'd194: unorm8_bf16 = 16'h3F43;
      8'd195: unorm8_bf16 = 16'h3F44;
      8'd196: unorm8_bf16 = 16'h3F45;
      8'd197: unorm8_bf16 = 16'h3F46;
      8'd198: unorm8_bf16 = 16'h3F47;
      8'd199: unorm8_bf16 = 16'h3F48;
      8'd200: unorm8_bf16 = 16'h3F49;
      8'd201: unorm8_bf16 = 16'h3F4A;
      8'd202: unorm8_bf16 = 16'h3F4B;
      8'd203: unorm8_bf16 = 16'h3F4C;
      8'd204: unorm8_bf16 = 16'h3F4D;
      8'd205: unorm8_bf16 = 16'h3F4E;
      8'd206: unorm8_bf16 = 16'h3F4F;
      8'd207: unorm8_bf16 = 16'h3F50;
      8'd208: unorm8_bf16 = 16'h3F51;
      8'd209: unorm8_bf16 = 16'h3F52;
      8'd210: unorm8_bf16 = 16'h3F53;
      8'd211: unorm8_bf16 = 16'h3F54;
      8'd212: unorm8_bf16 = 16'h3F55;
      8'd213: unorm8_bf16 = 16'h3F56;
      8'd214: unorm8_bf16 = 16'h3F57;
      8'd215: unorm8_bf16 = 16'h3F58;
      8'd216: unorm8_bf16 = 16'h3F59;
      8'd217: unorm8_bf16 = 16'h3F5A;
      8'd218: unorm8_bf16 = 16'h3F5B;
      8'd219: unorm8_bf16 = 16'h3F5C;
      8'd220: unorm8_bf16 = 16'h3F5D;
      8'd221: unorm8_bf16 = 16'h3F5E;
      8'd222: unorm8_bf16 = 16'h3F5F;
      8'd223: unorm8_bf16 = 16'h3F60;
      8'd224: unorm8_bf16 = 16'h3F61;
      8'd225: unorm8_bf16 = 16'h3F62;
      8'd226: unorm8_bf16 = 16'h3F63;
      8'd227: unorm8_bf16 = 16'h3F64;
      8'd228: unorm8_bf16 = 16'h3F65;
      8'd229: unorm8_bf16 = 16'h3F66;
      8'd230: unorm8_bf16 = 16'h3F67;
      8'd231: unorm8_bf16 = 16'h3F68;
      8'd232: unorm8_bf16 = 16'h3F69;
      8'd233: unorm8_bf16 = 16'h3F6A;
      8'd234: unorm8_bf16 = 16'h3F6B;
      8'd235: unorm8_bf16 = 16'h3F6C;
      8'd236: unorm8_bf16 = 16'h3F6D;
      8'd237: unorm8_bf16 = 16'h3F6E;
      8'd238: unorm8_bf16 = 16'h3F6F;
      8'd239: unorm8_bf16 = 16'h3F70;
      8'd240: unorm8_bf16 = 16'h3F71;
      8'd241: unorm8_bf16 = 16'h3F72;
      8'd242: unorm8_bf16 = 16'h3F73;
      8'd243: unorm8_bf16 = 16'h3F74;
      8'd244: unorm8_bf16 = 16'h3F75;
      8'd245: unorm8_bf16 = 16'h3F76;
      8'd246: unorm8_bf16 = 16'h3F77;
      8'd247: unorm8_bf16 = 16'h3F78;
      8'd248: unorm8_bf16 = 16'h3F79;
      8'd249: unorm8_bf16 = 16'h3F7A;
      8'd250: unorm8_bf16 = 16'h3F7B;
      8'd251: unorm8_bf16 = 16'h3F7C;
      8'd252: unorm8_bf16 = 16'h3F7D;
      8'd253: unorm8_bf16 = 16'h3F7E;
      8'd254: unorm8_bf16 = 16'h3F7F;
      8'd255: unorm8_bf16 = 16'h3F80;
    endcase
  endfunction

  // Device configurations: <CONFIG>_<Param> (ftpu_top's defaults are DEFAULT_*).
  localparam int unsigned DEFAULT_N = 16;
  localparam int unsigned DEFAULT_AddCuts = 0;
  localparam int unsigned DEFAULT_InFlight = 4;
  localparam int unsigned DEFAULT_UbVectors = 16384;
  localparam int unsigned DEFAULT_WmRows = 16384;
  localparam int unsigned DEFAULT_AccVectors = 65536;
  localparam int unsigned DEFAULT_BiasVectors = 256;
  localparam int unsigned DEFAULT_IqWords = 8192;
  localparam int unsigned DEFAULT_ClockHz = 100000000;
  localparam int unsigned DEFAULT_VectorUnit = 1;
  localparam int unsigned DEFAULT_LinkBytes = 4;
  localparam int unsigned DEFAULT_InOrder = 0;
  localparam int unsigned DEFAULT_ActLanes = 0;
  localparam int unsigned DEFAULT_ColSkew = 1;
  localparam int unsigned DEFAULT_PipeRegs = 0;
  localparam int unsigned DEVICE_16_N = 16;
  localparam int unsigned DEVICE_16_AddCuts = 0;
  localparam int unsigned DEVICE_16_InFlight = 4;
  localparam int unsigned DEVICE_16_UbVectors = 16384;
  localparam int unsigned DEVICE_16_WmRows = 16384;
  localparam int unsigned DEVICE_16_AccVectors = 65536;
  localparam int unsigned DEVICE_16_BiasVectors = 256;
  localparam int unsigned DEVICE_16_IqWords = 8192;
  localparam int unsigned DEVICE_16_ClockHz = 100000000;
  localparam int unsigned DEVICE_16_VectorUnit = 1;
  localparam int unsigned DEVICE_16_LinkBytes = 4;
  localparam int unsigned DEVICE_16_InOrder = 0;
  localparam int unsigned DEVICE_16_ActLanes = 0;
  localparam int unsigned DEVICE_16_ColSkew = 1;
  localparam int unsigned DEVICE_16_PipeRegs = 0;
  localparam int unsigned DEVICE_4P_N = 4;
  localparam int unsigned DEVICE_4P_AddCuts = 7;
  localparam int unsigned DEVICE_4P_InFlight = 8;
  localparam int unsigned DEVICE_4P_UbVectors = 256;
  localparam int unsigned DEVICE_4P_WmRows = 256;
  localparam int unsigned DEVICE_4P_AccVectors = 256;
  localparam int unsigned DEVICE_4P_BiasVectors = 16;
  localparam int unsigned DEVICE_4P_IqWords = 8192;
  localparam int unsigned DEVICE_4P_ClockHz = 100000000;
  localparam int unsigned DEVICE_4P_VectorUnit = 1;
  localparam int unsigned DEVICE_4P_LinkBytes = 4;
  localparam int unsigned DEVICE_4P_InOrder = 0;
  localparam int unsigned DEVICE_4P_ActLanes = 0;
  localparam int unsigned DEVICE_4P_ColSkew = 0;
  localparam int unsigned DEVICE_4P_PipeRegs = 1;
  localparam int unsigned DEVICE_2S_N = 2;
  localparam int unsigned DEVICE_2S_AddCuts = 7;
  localparam int unsigned DEVICE_2S_InFlight = 8;
  localparam int unsigned DEVICE_2S_UbVectors = 512;
  localparam int unsigned DEVICE_2S_WmRows = 512;
  localparam int unsigned DEVICE_2S_AccVectors = 256;
  localparam int unsigned DEVICE_2S_BiasVectors = 16;
  localparam int unsigned DEVICE_2S_IqWords = 8192;
  localparam int unsigned DEVICE_2S_ClockHz = 100000000;
  localparam int unsigned DEVICE_2S_VectorUnit = 0;
  localparam int unsigned DEVICE_2S_LinkBytes = 1;
  localparam int unsigned DEVICE_2S_InOrder = 1;
  localparam int unsigned DEVICE_2S_ActLanes = 1;
  localparam int unsigned DEVICE_2S_ColSkew = 0;
  localparam int unsigned DEVICE_2S_PipeRegs = 0;
  localparam int unsigned DEVICE_2S_Baud = 3000000;
  localparam int unsigned CONTROL_N = 8;
  localparam int unsigned CONTROL_AddCuts = 3;
  localparam int unsigned CONTROL_InFlight = 4;
  localparam int unsigned CONTROL_UbVectors = 1000;
  localparam int unsigned CONTROL_WmRows = 2400;
  localparam int unsigned CONTROL_AccVectors = 700;
  localparam int unsigned CONTROL_BiasVectors = 50;
  localparam int unsigned CONTROL_IqWords = 5000;
  localparam int unsigned CONTROL_ClockHz = 123456789;
  localparam int unsigned CONTROL_VectorUnit = 1;
  localparam int unsigned CONTROL_LinkBytes = 4;
  localparam int unsigned CONTROL_InOrder = 0;
  localparam int unsigned CONTROL_ActLanes = 0;
  localparam int unsigned CONTROL_ColSkew = 1;
  localparam int unsigned CONTROL_PipeRegs = 0;
  localparam int unsigned ICEBREAKER_N = 2;
  localparam int unsigned ICEBREAKER_AddCuts = 7;
  localparam int unsigned ICEBREAKER_InFlight = 8;
  localparam int unsigned ICEBREAKER_UbVectors = 512;
  localparam int unsigned ICEBREAKER_WmRows = 512;
  localparam int unsigned ICEBREAKER_AccVectors = 256;
  localparam int unsigned ICEBREAKER_BiasVectors = 16;
  localparam int unsigned ICEBREAKER_IqWords = 1024;
  localparam int unsigned ICEBREAKER_ClockHz = 21000000;
  localparam int unsigned ICEBREAKER_VectorUnit = 0;
  localparam int unsigned ICEBREAKER_LinkBytes = 1;
  localparam int unsigned ICEBREAKER_InOrder = 1;
  localparam int unsigned ICEBREAKER_ActLanes = 1;
  localparam int unsigned ICEBREAKER_ColSkew = 0;
  localparam int unsigned ICEBREAKER_PipeRegs = 0;
  localparam int unsigned ICEBREAKER_Baud = 3000000;
  localparam int unsigned TANGNANO20K_N = 4;
  localparam int unsigned TANGNANO20K_AddCuts = 2;
  localparam int unsigned TANGNANO20K_InFlight = 4;
  localparam int unsigned TANGNANO20K_UbVectors = 512;
  localparam int unsigned TANGNANO20K_WmRows = 512;
  localparam int unsigned TANGNANO20K_AccVectors = 256;
  localparam int unsigned TANGNANO20K_BiasVectors = 16;
  localparam int unsigned TANGNANO20K_IqWords = 1024;
  localparam int unsigned TANGNANO20K_ClockHz = 27000000;
  localparam int unsigned TANGNANO20K_VectorUnit = 0;
  localparam int unsigned TANGNANO20K_LinkBytes = 1;
  localparam int unsigned TANGNANO20K_InOrder = 1;
  localparam int unsigned TANGNANO20K_ActLanes = 1;
  localparam int unsigned TANGNANO20K_ColSkew = 0;
  localparam int unsigned TANGNANO20K_PipeRegs = 0;
  localparam int unsigned TANGNANO20K_Baud = 3000000;
  localparam int unsigned ULX3S_N = 8;
  localparam int unsigned ULX3S_AddCuts = 7;
  localparam int unsigned ULX3S_InFlight = 8;
  localparam int unsigned ULX3S_UbVectors = 4096;
  localparam int unsigned ULX3S_WmRows = 8192;
  localparam int unsigned ULX3S_AccVectors = 4096;
  localparam int unsigned ULX3S_BiasVectors = 256;
  localparam int unsigned ULX3S_IqWords = 8192;
  localparam int unsigned ULX3S_ClockHz = 50000000;
  localparam int unsigned ULX3S_VectorUnit = 0;
  localparam int unsigned ULX3S_LinkBytes = 1;
  localparam int unsigned ULX3S_InOrder = 0;
  localparam int unsigned ULX3S_ActLanes = 0;
  localparam int unsigned ULX3S_ColSkew = 1;
  localparam int unsigned ULX3S_PipeRegs = 1;
  localparam int unsigned ULX3S_Baud = 3000000;
  localparam int unsigned ULX3S_45F_N = 4;
  localparam int unsigned ULX3S_45F_AddCuts = 7;
  localparam int unsigned ULX3S_45F_InFlight = 8;
  localparam int unsigned ULX3S_45F_UbVectors = 4096;
  localparam int unsigned ULX3S_45F_WmRows = 4096;
  localparam int unsigned ULX3S_45F_AccVectors = 4096;
  localparam int unsigned ULX3S_45F_BiasVectors = 256;
  localparam int unsigned ULX3S_45F_IqWords = 8192;
  localparam int unsigned ULX3S_45F_ClockHz = 50000000;
  localparam int unsigned ULX3S_45F_VectorUnit = 0;
  localparam int unsigned ULX3S_45F_LinkBytes = 1;
  localparam int unsigned ULX3S_45F_InOrder = 0;
  localparam int unsigned ULX3S_45F_ActLanes = 0;
  localparam int unsigned ULX3S_45F_ColSkew = 1;
  localparam int unsigned ULX3S_45F_PipeRegs = 1;
  localparam int unsigned ULX3S_45F_Baud = 3000000;
  localparam int unsigned ULX3S_25F_N = 2;
  localparam int unsigned ULX3S_25F_AddCuts = 7;
  localparam int unsigned ULX3S_25F_InFlight = 8;
  localparam int unsigned ULX3S_25F_UbVectors = 512;
  localparam int unsigned ULX3S_25F_WmRows = 512;
  localparam int unsigned ULX3S_25F_AccVectors = 256;
  localparam int unsigned ULX3S_25F_BiasVectors = 16;
  localparam int unsigned ULX3S_25F_IqWords = 1024;
  localparam int unsigned ULX3S_25F_ClockHz = 50000000;
  localparam int unsigned ULX3S_25F_VectorUnit = 0;
  localparam int unsigned ULX3S_25F_LinkBytes = 1;
  localparam int unsigned ULX3S_25F_InOrder = 1;
  localparam int unsigned ULX3S_25F_ActLanes = 1;
  localparam int unsigned ULX3S_25F_ColSkew = 0;
  localparam int unsigned ULX3S_25F_PipeRegs = 0;
  localparam int unsigned ULX3S_25F_Baud = 3000000;
  localparam int unsigned ARTY_N = 6;
  localparam int unsigned ARTY_AddCuts = 7;
  localparam int unsigned ARTY_InFlight = 8;
  localparam int unsigned ARTY_UbVectors = 4096;
  localparam int unsigned ARTY_WmRows = 8192;
  localparam int unsigned ARTY_AccVectors = 4096;
  localparam int unsigned ARTY_BiasVectors = 256;
  localparam int unsigned ARTY_IqWords = 8192;
  localparam int unsigned ARTY_ClockHz = 100000000;
  localparam int unsigned ARTY_VectorUnit = 0;
  localparam int unsigned ARTY_LinkBytes = 1;
  localparam int unsigned ARTY_InOrder = 0;
  localparam int unsigned ARTY_ActLanes = 0;
  localparam int unsigned ARTY_ColSkew = 1;
  localparam int unsigned ARTY_PipeRegs = 1;
  localparam int unsigned ARTY_Baud = 12000000;
  localparam int unsigned LITEFURY_N = 6;
  localparam int unsigned LITEFURY_AddCuts = 7;
  localparam int unsigned LITEFURY_InFlight = 8;
  localparam int unsigned LITEFURY_UbVectors = 4096;
  localparam int unsigned LITEFURY_WmRows = 8192;
  localparam int unsigned LITEFURY_AccVectors = 4096;
  localparam int unsigned LITEFURY_BiasVectors = 256;
  localparam int unsigned LITEFURY_IqWords = 8192;
  localparam int unsigned LITEFURY_ClockHz = 125000000;
  localparam int unsigned LITEFURY_VectorUnit = 0;
  localparam int unsigned LITEFURY_LinkBytes = 1;
  localparam int unsigned LITEFURY_InOrder = 0;
  localparam int unsigned LITEFURY_ActLanes = 0;
  localparam int unsigned LITEFURY_ColSkew = 1;
  localparam int unsigned LITEFURY_PipeRegs = 0;

endpackage
/* verilator lint_on UNUSEDPARAM */
