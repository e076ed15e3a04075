// SPDX-License-Identifier: Apache-2.0
// ftpu_soc_array: the systolic array as an MMIO peripheral of the control
// core, for the soft device (registers SOC_ARRAY_* of spec/ftpu.toml,
// docs/soft_device.md). The firmware loads weight rows, then sends one
// vector at a time with the partial sums that enter the columns' tops and
// reads the result: the same ftpu_systolic_array as the hardware device,
// so the numerics are the PE's, bit for bit.
//
// One vector is in flight at a time: the result registers hold the last
// result (Latency cycles after its vector), and sending a vector clears
// ARRAY_STATUS until its result is there. That costs the array's
// throughput, which a UART does not need, and keeps this port to N column
// registers: ARRAY_PSUM writes the same registers ARRAY_RESULT reads (the
// array takes the partial sums in the cycle the vector is sent, and the
// result comes back long after).
//
// Bus: an access is held (req_i, we_i, addr_i, wdata_i) until ready_o; it
// acts in its first cycle and is ready in the next, with rdata_o; err_o with
// ready_o for an address that is not a register.
module ftpu_soc_array #(
  parameter int          N       = 2,
  parameter int unsigned AddCuts = 32'b111,
  parameter int          ColSkew = 0,
  localparam int Words   = N / 2,               // bf16 pairs in a vector
  localparam int RowIdxW = (N > 1) ? $clog2(N) : 1
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        req_i,
  input  logic        we_i,
  input  logic [11:2] addr_i,   // offset in the 0x4000_2000 page
  input  logic [31:0] wdata_i,
  output logic        ready_o,
  output logic        err_o,
  output logic [31:0] rdata_o
);
  if (N < 2 || N % 2 != 0 || N > 64) begin : g_bad_n
    $error("ftpu_soc_array: N must be even, 2..64 (a register page)");
  end

  // The register blocks: bits 11:8 of the offset pick one, 7:2 the index.
  localparam logic [11:8] BlkPsum   = ftpu_pkg::SOC_ARRAY_PSUM[11:8];
  localparam logic [11:8] BlkAct    = ftpu_pkg::SOC_ARRAY_ACT[11:8];
  localparam logic [11:8] BlkWrow   = ftpu_pkg::SOC_ARRAY_WROW[11:8];
  localparam logic [11:8] BlkWdata  = ftpu_pkg::SOC_ARRAY_WDATA[11:8];
  localparam logic [11:8] BlkResult = ftpu_pkg::SOC_ARRAY_RESULT[11:8];
  localparam logic [11:8] BlkStatus = ftpu_pkg::SOC_ARRAY_STATUS[11:8];

  logic [11:8] blk;
  logic [5:0]  idx;    // column or word
  logic        act_buf; // ARRAY_ACT + 0x80: weight buffer 1
  assign blk     = addr_i[11:8];
  assign idx     = addr_i[7:2];
  assign act_buf = addr_i[7];

  logic act, acted_q, bad;
  assign act = req_i && !acted_q;
  always_comb begin
    unique case (blk)
      BlkPsum, BlkResult: bad = 32'(idx) >= N;
      BlkAct:             bad = 32'(addr_i[6:2]) >= Words;
      BlkWdata:           bad = 32'(idx) >= Words;
      BlkWrow, BlkStatus: bad = idx != '0;
      default:            bad = 1'b1;
    endcase
  end

  // ---- operands ---------------------------------------------------------------------
  logic [N*32-1:0]      col_q;       // partial sums in, then the result
  logic                 out_valid;
  logic [N*32-1:0]      out_psum;
  // Words of a vector or weight row before its last one: (Words - 1) x 32.
  logic [N*16-1:0]      act_vec, wl_vec;
  logic [RowIdxW:0]     wrow_q;      // {row, buffer}
  logic                 send, wl_valid;

  assign send     = act && we_i && !bad && blk == BlkAct && 32'(addr_i[6:2]) == Words - 1;
  assign wl_valid = act && we_i && !bad && blk == BlkWdata && 32'(idx) == Words - 1;

  if (Words > 1) begin : g_stage
    logic [(Words-1)*32-1:0] act_stage_q, wl_stage_q;
    always_ff @(posedge clk_i) begin
      for (int k = 0; k < Words - 1; k++) begin
        if (act && we_i && blk == BlkAct && 32'(addr_i[6:2]) == k) act_stage_q[k*32 +: 32] <= wdata_i;
        if (act && we_i && blk == BlkWdata && 32'(idx) == k) wl_stage_q[k*32 +: 32] <= wdata_i;
      end
    end
    assign act_vec = {wdata_i, act_stage_q};
    assign wl_vec  = {wdata_i, wl_stage_q};
  end else begin : g_no_stage
    assign act_vec = wdata_i;
    assign wl_vec  = wdata_i;
  end

  always_ff @(posedge clk_i) begin
    if (out_valid) col_q <= out_psum;
    else
      for (int c = 0; c < N; c++)
        if (act && we_i && blk == BlkPsum && 32'(idx) == c) col_q[c*32 +: 32] <= wdata_i;
    if (act && we_i && blk == BlkWrow) wrow_q <= wdata_i[RowIdxW:0];
  end

  // ---- the array ----------------------------------------------------------------------

  ftpu_systolic_array #(.Rows(N), .Cols(N), .AddCuts(AddCuts), .ColSkew(ColSkew)) u_array (
    .clk_i,
    .rst_ni,
    .in_valid_i (send),
    .in_wsel_i  (act_buf),
    .in_act_i   (act_vec),
    .in_psum_i  (col_q),
    .wl_valid_i (wl_valid),
    .wl_buf_i   (wrow_q[0]),
    .wl_row_i   (wrow_q[RowIdxW:1]),
    .wl_data_i  (wl_vec),
    .out_valid_o(out_valid),
    .out_psum_o (out_psum)
  );

  // ---- status and bus -----------------------------------------------------------------
  logic            done_q;

  // What a read reads is registered when it acts, and the data comes from
  // registers through one small mux: the core decodes a fetched word's
  // registers straight off the bus, which carries this too.
  localparam int ColW = $clog2(N);
  logic            bad_q, rd_status_q, rd_col_valid_q;
  logic [ColW-1:0] rd_col_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      acted_q <= 1'b0;
      done_q  <= 1'b0;
      bad_q   <= 1'b0;
    end else begin
      acted_q <= act;
      if (act) bad_q <= bad;
      if (send) done_q <= 1'b0;
      else if (out_valid) done_q <= 1'b1;
    end
  end
  always_ff @(posedge clk_i) begin
    if (act) begin
      rd_status_q    <= blk == BlkStatus;
      rd_col_valid_q <= blk == BlkResult && !bad;
      rd_col_q       <= idx[ColW-1:0];
    end
  end

  assign ready_o = acted_q;
  assign err_o   = bad_q;
  always_comb begin
    rdata_o = '0;
    if (rd_status_q) rdata_o[0] = done_q;
    else if (rd_col_valid_q) rdata_o = col_q[rd_col_q*32 +: 32];
  end
endmodule
