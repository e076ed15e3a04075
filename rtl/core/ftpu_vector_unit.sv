// SPDX-License-Identifier: Apache-2.0
`include "ftpu_assert.svh"
// ftpu_vector_unit: executes the vector instructions of docs/vector.md on
// the device's memories, as model/ref_device.c does:
//
//   VADD..VSEED  ACC[d+i] = op(ACC[a+i], ACC[b+i or b], ACC[c+i or c])
//                for i < n, in N ftpu_vector_lane
//   CONVERT      bf16(ACC[src+i]) -> UB or WM[dst+i], TRANSPOSE: per N x N block
//   COPY         UB/WM[src+i] -> UB/WM[dst+i], TRANSPOSE as CONVERT
//
// The instruction is checked upstream (ftpu_core_check: ranges apart or
// equal). A vector op uses only its own ACC ports (the three wide read
// ports and the wide write), so it runs beside MATMULs whose ACC rows it
// does not touch (ftpu_core_hazards). CONVERT reads ACC on the x port too
// (a vector a cycle, the first of its V rows), so a CONVERT into WM, whose
// writes use WM's write port, runs beside them as well; CONVERT into UB and
// COPY share UB's ports and run alone. Each source is read before the
// destination row of the same index is written, which is what "apart or
// equal" needs.
//
// Timing. Vector ops: the FIXED operands are read once first, in one
// cycle, on the y and z ports (the first of their V rows is kept); then
// the streamed operands of V vectors (ftpu_pkg::VECTOR_WIDTH) are read
// together, each on its own V-vector ACC port (x; y unless B_FIXED; z for
// VMAC and VSEL unless C_FIXED), V vectors per cycle. Read data arrive the
// next cycle into the operand registers; the V*N lanes take them the
// cycle after and write them Latency cycles later (the last group masked
// to the instruction's n). CONVERT/COPY: one read per cycle, written the cycle the
// data arrive; transposed, the first block is read into registers (N
// cycles), then each block is written out by columns (N cycles) while the
// next one's rows are read into the cells just written out: a column read
// out frees the cells a row of the next block goes into, if that block is
// stored the other way round (flip_q), so a block takes N + 1 cycles.
module ftpu_vector_unit #(
  parameter int          N        = 16,
  parameter int unsigned AddCuts  = 0,
  parameter int          UbAddrW  = 12,
  parameter int          WmAddrW  = 14,
  parameter int          AccAddrW = 12,
  localparam int         V        = ftpu_pkg::VECTOR_WIDTH  // vectors a cycle
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  // the instruction (taken while idle)
  input  logic                start_i,
  input  logic [7:0]          op_i,
  input  logic [7:0]          flags_i,
  input  logic [15:0]         n_i,
  input  logic [31:0]         w1_i,
  input  logic [31:0]         w2_i,
  output logic                busy_o,
  // ACC (data the cycle after a read): the operands and the results V
  // vectors from the row given on, vector k at [k*N*32 +: N*32]
  output logic                acc_rdx_o,      // x, and CONVERT's source
  output logic [AccAddrW-1:0] acc_rdx_addr_o,
  input  logic [V*N*32-1:0]   acc_datax_i,
  output logic                acc_rd2_o,      // y
  output logic [AccAddrW-1:0] acc_rd2_addr_o,
  input  logic [V*N*32-1:0]   acc_data2_i,
  output logic                acc_rd3_o,      // z
  output logic [AccAddrW-1:0] acc_rd3_addr_o,
  input  logic [V*N*32-1:0]   acc_data3_i,
  output logic                acc_wr_o,
  output logic [AccAddrW-1:0] acc_wr_addr_o,
  output logic [V*N*32-1:0]   acc_wr_data_o,
  output logic [V-1:0]        acc_wr_mask_o,  // which of the V rows
  // UB
  output logic                ub_rd_o,
  output logic [UbAddrW-1:0]  ub_rd_addr_o,
  input  logic [N*16-1:0]     ub_data_i,
  output logic                ub_wr_o,
  output logic [UbAddrW-1:0]  ub_wr_addr_o,
  output logic [N*16-1:0]     ub_wr_data_o,
  // WM
  output logic                wm_rd_o,
  output logic [WmAddrW-1:0]  wm_rd_addr_o,
  input  logic [N*16-1:0]     wm_data_i,
  output logic                wm_wr_o,
  output logic [WmAddrW-1:0]  wm_wr_addr_o,
  output logic [N*16-1:0]     wm_wr_data_o
);
  localparam int Latency = 1 + ftpu_pkg::add_latency(AddCuts);
  localparam logic [7:0] OpVmac = ftpu_pkg::OP_VMAC, OpVsel = ftpu_pkg::OP_VSEL;
  localparam logic [7:0] OpConvert = ftpu_pkg::OP_CONVERT, OpCopy = ftpu_pkg::OP_COPY;
  localparam logic [7:0] BFixed = ftpu_pkg::VECTOR_B_FIXED, CFixed = ftpu_pkg::VECTOR_C_FIXED;
  localparam logic [7:0] Half = ftpu_pkg::VECTOR_HALF;
  localparam logic [7:0] TrConvert = ftpu_pkg::TRANSPOSE_CONVERT;
  localparam logic [7:0] TrCopy = ftpu_pkg::TRANSPOSE_COPY;
  localparam logic [1:0] MemUb = ftpu_pkg::MEM_UB, MemWm = ftpu_pkg::MEM_WM;
  localparam logic [1:0] MemAcc = ftpu_pkg::MEM_ACC;
  localparam int RowW = $clog2(N);
  localparam int RowW1 = RowW + 1;
  localparam logic [RowW:0] LastRow = RowW1'(N - 1);

  typedef enum logic [3:0] {
    StIdle,
    StFixed,   // vector op: reading the FIXED operands (one cycle)
    StStream,  // vector op: reading the streamed operands
    StDrain,   // vector op: the last vectors in the lanes
    StMove,    // CONVERT/COPY: one read per cycle, written as data arrive
    StMvDrain, // ... the last read's data arrive
    StBlkRead, // ... transposed: reading the first block's rows
    StBlkCap,  // ... a block's last row arrives
    StBlkWrite // ... writing its columns (and reading the next block's rows)
  } state_e;
  state_e state_q;

  // ---- the instruction ---------------------------------------------------------
  logic [2:0]  lane_op_q;
  logic        half_q, cstream_q, bstream_q;
  logic        fix_b_q, fix_c_q;   // FIXED operands y, z
  logic        convert_q;
  logic [1:0]  smem_q, dmem_q;
  logic [15:0] n_q;
  logic [16:0] a_q, b_q, c_q, d_q;  // vector ops: ACC rows; a_q/d_q also src/dst

  // read side
  logic [15:0] ri_q;     // next vector (or row) to read
  logic [RowW:0] row_q;  // transposed: row in block / column being written
  logic [15:0] blk_q;    // transposed: first vector of the block
  logic        flip_q;   // transposed: the block in the registers is stored by columns
  // what a read issued last cycle returns: FIXED y / z, moved vector, block
  // row (stored by columns if tag_flip_q)
  logic        tag_fb_q, tag_fc_q, tag_mv_q, tag_blk_q, tag_flip_q;
  logic [RowW-1:0] tag_row_q;
  // write side
  logic [15:0] wi_q;     // next vector to write

  logic start_uses_c;  // the starting op reads operand c
  assign start_uses_c = op_i == OpVmac || op_i == OpVsel;

  // The streamed operands of V vectors are read in the same cycle, each
  // on its own wide port; the FIXED ones before them on the y and z ports
  // (ri_q is 0 then, so the rows are b and c).
  logic [16:0] x_row, y_row, z_row;
  assign x_row = a_q + 17'(ri_q);
  assign y_row = b_q + 17'(ri_q);
  assign z_row = c_q + 17'(ri_q);
  logic move_rd;
  assign acc_rdx_o      = state_q == StStream || (move_rd && convert_q);
  assign acc_rdx_addr_o = x_row[AccAddrW-1:0];  // CONVERT's source row: the same a + i
  assign acc_rd2_o      = (state_q == StStream && bstream_q) || (state_q == StFixed && fix_b_q);
  assign acc_rd2_addr_o = y_row[AccAddrW-1:0];
  assign acc_rd3_o      = (state_q == StStream && cstream_q) || (state_q == StFixed && fix_c_q);
  assign acc_rd3_addr_o = z_row[AccAddrW-1:0];
  logic tag_x_q, tag_y_q, tag_z_q;  // the wide ports read streamed operands last cycle

  // ---- reads ------------------------------------------------------------------------
  logic blk_more;
  assign blk_more = blk_q + 16'(N) != n_q;  // a block follows this one
  assign move_rd = state_q == StMove || state_q == StBlkRead ||
                   (state_q == StBlkWrite && blk_more);

  logic [16:0] src_row;
  assign src_row = a_q + 17'(ri_q);
  assign ub_rd_o       = move_rd && !convert_q && smem_q == MemUb;
  assign ub_rd_addr_o  = src_row[UbAddrW-1:0];
  assign wm_rd_o       = move_rd && !convert_q && smem_q == MemWm;
  assign wm_rd_addr_o  = src_row[WmAddrW-1:0];

  // ---- operands and lanes ---------------------------------------------------------
  logic [V*N*32-1:0] x_q, y_q, z_q, lanes_r;
  logic              fire_q, wr_vec;
  for (genvar l = 0; l < V * N; l++) begin : g_lane
    ftpu_vector_lane #(.AddCuts(AddCuts)) u_lane (
      .clk_i, .rst_ni, .op_i(lane_op_q), .half_i(half_q),
      .x_i(x_q[l*32 +: 32]), .y_i(y_q[l*32 +: 32]), .z_i(z_q[l*32 +: 32]),
      .r_o(lanes_r[l*32 +: 32]));
  end
  // A vector entering the lanes (fire_q) is written Latency cycles later.
  ftpu_delay #(.Width(1), .Depth(Latency), .Reset(1'b1)) u_wr_valid (
    .clk_i, .rst_ni, .d_i(fire_q), .q_o(wr_vec));

  // ---- CONVERT / COPY data ------------------------------------------------------------
  logic [N*16-1:0] moved, column;
  logic [N*16-1:0] blk_rows_q [N];
  for (genvar l = 0; l < N; l++) begin : g_move
    logic [15:0] cvt;
    ftpu_f32_to_bf16 u_cvt (.x_i(acc_datax_i[l*32 +: 32]), .y_o(cvt));
    assign moved[l*16 +: 16] = convert_q ? cvt :
                               (smem_q == MemUb) ? ub_data_i[l*16 +: 16] : wm_data_i[l*16 +: 16];
    // column row_q of the block: element l is row l's element row_q
    // (stored by columns: register row_q holds it)
    assign column[l*16 +: 16] = flip_q ? blk_rows_q[row_q[RowW-1:0]][l*16 +: 16] :
                                         blk_rows_q[l][16*row_q[RowW-1:0] +: 16];
  end

  // ---- writes -------------------------------------------------------------------------
  logic        mv_wr;
  logic [16:0] dst_row;
  logic [N*16-1:0] mv_data;
  assign mv_wr   = tag_mv_q || state_q == StBlkWrite;
  assign dst_row = d_q + 17'(state_q == StBlkWrite ? blk_q + 16'(row_q) : wi_q);
  assign mv_data = state_q == StBlkWrite ? column : moved;

  assign acc_wr_o      = wr_vec;
  assign acc_wr_addr_o = dst_row[AccAddrW-1:0];
  assign acc_wr_data_o = lanes_r;
  for (genvar k = 0; k < V; k++) begin : g_wr_mask
    assign acc_wr_mask_o[k] = 32'(wi_q) + 32'(k) < 32'(n_q);
  end
  assign ub_wr_o       = mv_wr && dmem_q == MemUb;
  assign ub_wr_addr_o  = dst_row[UbAddrW-1:0];
  assign ub_wr_data_o  = mv_data;
  assign wm_wr_o       = mv_wr && dmem_q == MemWm;
  assign wm_wr_addr_o  = dst_row[WmAddrW-1:0];
  assign wm_wr_data_o  = mv_data;

  assign busy_o = state_q != StIdle;

  // Row numbers are 17 bits (ranges checked upstream); memories use fewer.
  logic unused;
  assign unused = ^{src_row, dst_row, x_row, y_row, z_row};

  // ---- control --------------------------------------------------------------------------
  logic last_read;  // this cycle's read is the instruction's (or block's) last
  assign last_read = ri_q == n_q - 16'd1;
  logic last_group, last_write;  // ... of a vector op's V-vector groups
  assign last_group = 32'(ri_q) + 32'(V) >= 32'(n_q);
  assign last_write = 32'(wi_q) + 32'(V) >= 32'(n_q);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q     <= StIdle;
      lane_op_q   <= '0;
      half_q      <= 1'b0;
      bstream_q   <= 1'b0;
      cstream_q   <= 1'b0;
      fix_b_q     <= 1'b0;
      fix_c_q     <= 1'b0;
      convert_q   <= 1'b0;
      smem_q      <= '0;
      dmem_q      <= '0;
      n_q         <= '0;
      a_q         <= '0;
      b_q         <= '0;
      c_q         <= '0;
      d_q         <= '0;
      ri_q        <= '0;
      row_q       <= '0;
      blk_q       <= '0;
      flip_q      <= 1'b0;
      wi_q        <= '0;
      tag_fb_q    <= 1'b0;
      tag_fc_q    <= 1'b0;
      tag_x_q     <= 1'b0;
      tag_y_q     <= 1'b0;
      tag_z_q     <= 1'b0;
      tag_mv_q    <= 1'b0;
      tag_blk_q   <= 1'b0;
      tag_flip_q  <= 1'b0;
      tag_row_q   <= '0;
      fire_q      <= 1'b0;
    end else begin
      // What this cycle's read returns next cycle.
      tag_fb_q    <= state_q == StFixed && fix_b_q;
      tag_fc_q    <= state_q == StFixed && fix_c_q;
      tag_x_q     <= state_q == StStream;
      tag_y_q     <= state_q == StStream && bstream_q;
      tag_z_q     <= state_q == StStream && cstream_q;
      tag_mv_q    <= state_q == StMove;
      tag_blk_q   <= state_q == StBlkRead || (state_q == StBlkWrite && blk_more);
      // the first block as it is; the next one the other way round
      tag_flip_q  <= state_q == StBlkRead ? flip_q : !flip_q;
      tag_row_q   <= row_q[RowW-1:0];
      // The lanes take a group the cycle after its operands arrived.
      fire_q      <= tag_x_q;

      unique case (state_q)
        StIdle: if (start_i) begin
          lane_op_q   <= op_i[2:0];
          half_q      <= (flags_i & Half) != '0;
          bstream_q   <= (flags_i & BFixed) == '0;
          cstream_q   <= start_uses_c && (flags_i & CFixed) == '0;
          fix_b_q     <= (flags_i & BFixed) != '0;
          fix_c_q     <= start_uses_c && (flags_i & CFixed) != '0;
          convert_q   <= op_i == OpConvert;
          smem_q      <= op_i == OpConvert ? MemAcc : flags_i[1:0];
          dmem_q      <= op_i == OpConvert ? flags_i[1:0] : flags_i[3:2];
          n_q         <= n_i;
          a_q         <= (op_i == OpConvert || op_i == OpCopy) ? w1_i[16:0] : {1'b0, w1_i[15:0]};
          b_q         <= {1'b0, w1_i[31:16]};
          c_q         <= {1'b0, w2_i[31:16]};
          d_q         <= (op_i == OpConvert || op_i == OpCopy) ? w2_i[16:0] : {1'b0, w2_i[15:0]};
          ri_q        <= '0;
          row_q       <= '0;
          blk_q       <= '0;
          flip_q      <= 1'b0;
          wi_q        <= '0;
          if (op_i == OpConvert || op_i == OpCopy)
            state_q <= ((op_i == OpConvert ? (flags_i & TrConvert) : (flags_i & TrCopy)) != '0) ?
                       StBlkRead : StMove;
          else
            state_q <= ((flags_i & BFixed) != '0 || (start_uses_c && (flags_i & CFixed) != '0)) ?
                       StFixed : StStream;
        end
        StFixed: state_q <= StStream;
        StStream: begin
          ri_q <= ri_q + 16'(V);
          if (last_group) state_q <= StDrain;
        end
        StDrain: ;
        StMove: begin
          ri_q <= ri_q + 16'd1;
          if (last_read) state_q <= StMvDrain;
        end
        StMvDrain: ;
        StBlkRead: begin
          ri_q  <= ri_q + 16'd1;
          row_q <= row_q + 1'b1;
          if (row_q == LastRow) state_q <= StBlkCap;
        end
        StBlkCap: begin
          row_q   <= '0;
          state_q <= StBlkWrite;
        end
        default: begin  // StBlkWrite
          row_q <= row_q + 1'b1;
          if (blk_more) ri_q <= ri_q + 16'd1;
          if (row_q == LastRow) begin
            row_q   <= '0;
            blk_q   <= blk_q + 16'(N);
            flip_q  <= !flip_q;
            state_q <= blk_more ? StBlkCap : StIdle;
          end
        end
      endcase

      // Writes: the lanes' results (V vectors), or the moved vectors as
      // they arrive.
      if (wr_vec) begin
        wi_q <= wi_q + 16'(V);
        if (last_write) state_q <= StIdle;
      end
      if (tag_mv_q) begin
        wi_q <= wi_q + 16'd1;
        if (wi_q == n_q - 16'd1) state_q <= StIdle;
      end
    end
  end

  // Operand and block registers (no reset: written before they are read).
  always_ff @(posedge clk_i) begin
    // a FIXED operand: its one vector for every lane group
    if (tag_fb_q) y_q <= {V{acc_data2_i[N*32-1:0]}};
    if (tag_fc_q) z_q <= {V{acc_data3_i[N*32-1:0]}};
    if (tag_x_q) x_q <= acc_datax_i;
    if (tag_y_q) y_q <= acc_data2_i;
    if (tag_z_q) z_q <= acc_data3_i;
    if (tag_blk_q && !tag_flip_q)
      blk_rows_q[tag_row_q] <= moved;
    if (tag_blk_q && tag_flip_q)  // row tag_row_q into column tag_row_q
      for (int r = 0; r < N; r++) blk_rows_q[r][16*tag_row_q +: 16] <= moved[r*16 +: 16];
  end

  // Only this unit's instructions start it, and only while it is idle.
  `FTPU_ASSERT(a_start_idle, clk_i, rst_ni, !start_i || state_q == StIdle)
endmodule
