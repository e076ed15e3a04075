// SPDX-License-Identifier: Apache-2.0
// ftpu_systolic_array: Rows x Cols weight-stationary array of ftpu_pe.
//
// All ports are unskewed: one activation vector (one row of A, Rows wide)
// and one partial-sum vector (Cols wide, entering at the top of each column)
// per cycle; one result vector per cycle at the bottom, in input order,
// Latency cycles later. The skew and de-skew triangles are inside.
//
//   a vector presented at cycle t   -> activation reaches PE(r,c) at t+1+r*D+c*S
//                                   -> its psum enters row 0 of column c at t+2+c*S
//   its result (sum over the rows)  -> out_psum_o during cycle t+Latency
// where D = RowDelay, the cycles a partial sum spends in one PE, and S =
// ColSkew. With ColSkew 1 (the TPU's systolic array) an activation moves one
// column a cycle, so no wire is longer than one PE however wide the array.
// With ColSkew 0 each row's activation goes to all its columns in the same
// cycle from one register: for the few columns of a small FPGA's array that
// fan-out is cheap, and the column skew, its de-skew and the PEs' own
// activation registers are gone (docs/array.md).
//
// Weights: each PE holds two tiles (buffers 0 and 1) and every vector names
// the buffer it multiplies (in_wsel_i). A tile row is written by presenting
// it on wl_* for one cycle; the write travels with the same column skew as
// the data's column skew, so a write of row r presented at cycle T is seen by
// exactly the vectors presented at cycle T - r*D or later. Presenting rows
// 0..Rows-1 on consecutive cycles from T on, row r takes effect at
// T - r*(D-1): the buffer's previous users must all have been presented
// before T - (Rows-1)*(D-1), and its new users may start at T
// (docs/array.md has the schedule).
module ftpu_systolic_array #(
  parameter int Rows = 16,
  parameter int Cols = 16,
  parameter int unsigned AddCuts = 32'b111,  // see ftpu_pe
  parameter int ColSkew = 1,                 // 0 or 1: cycles an activation takes a column
  localparam int RowDelay = ftpu_pkg::row_delay(AddCuts),
  localparam int RowIdxW = (Rows > 1) ? $clog2(Rows) : 1,
  localparam int Latency = Rows * RowDelay + ColSkew * (Cols - 1) + 2
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // activation and partial-sum stream
  input  logic                 in_valid_i,
  input  logic                 in_wsel_i,
  input  logic [Rows*16-1:0]   in_act_i,    // element r at [r*16 +: 16], bf16
  input  logic [Cols*32-1:0]   in_psum_i,   // element c at [c*32 +: 32], fp32
  // weight tile rows
  input  logic                 wl_valid_i,
  input  logic                 wl_buf_i,
  input  logic [RowIdxW-1:0]   wl_row_i,
  input  logic [Cols*16-1:0]   wl_data_i,   // column c at [c*16 +: 16], bf16
  // result stream
  output logic                 out_valid_o,
  output logic [Cols*32-1:0]   out_psum_o
);
  localparam int WlW = 1 + RowIdxW + 16;  // buf, row, data of one column

  // Horizontal activation links: entry (r, c) feeds PE(r,c); c == Cols is the
  // right edge. Vertical partial-sum links: entry (r, c) feeds PE(r,c);
  // r == Rows is the bottom edge.
  logic [Rows*(Cols+1)*16-1:0] act_link;
  logic [Rows*(Cols+1)-1:0]    sel_link;
  logic [(Rows+1)*Cols*32-1:0] psum_link;

  if (ColSkew != 0 && ColSkew != 1) begin : g_bad_skew
    $error("ftpu_systolic_array: ColSkew is 0 or 1");
  end
  localparam bit ActReg = (ColSkew != 0);

  // Input skew: row r waits r*RowDelay cycles, and one more without the
  // PEs' own activation registers (the row's register stands for them).
  for (genvar r = 0; r < Rows; r++) begin : g_act_skew
    ftpu_delay #(.Width(17), .Depth(r * RowDelay + (ActReg ? 0 : 1))) u_skew (
      .clk_i,
      .rst_ni,
      .d_i ({in_wsel_i, in_act_i[r*16 +: 16]}),
      .q_o ({sel_link[r*(Cols+1)], act_link[r*(Cols+1)*16 +: 16]})
    );
    // The right edge's activations and selects have nowhere to go; without
    // ActReg no PE takes its left neighbour's.
    localparam int Unused = ActReg ? Cols : 1;
    logic unused;
    assign unused = ^{act_link[(r*(Cols+1)+Unused)*16 +: (Cols+1-Unused)*16],
                      sel_link[r*(Cols+1)+Unused +: Cols+1-Unused]};
  end

  for (genvar c = 0; c < Cols; c++) begin : g_col
    // Partial sums enter column c when its row-0 product is ready: c*S + 2.
    ftpu_delay #(.Width(32), .Depth(c * ColSkew + 2)) u_psum_skew (
      .clk_i,
      .rst_ni,
      .d_i (in_psum_i[c*32 +: 32]),
      .q_o (psum_link[c*32 +: 32])
    );

    // Weight rows travel with the data's column skew, then go down the
    // column to the PE of their row.
    logic               wl_valid;
    logic [WlW-1:0]     wl;
    ftpu_delay #(.Width(1), .Depth(c * ColSkew), .Reset(1'b1)) u_wl_valid_skew (
      .clk_i,
      .rst_ni,
      .d_i (wl_valid_i),
      .q_o (wl_valid)
    );
    ftpu_delay #(.Width(WlW), .Depth(c * ColSkew)) u_wl_skew (
      .clk_i,
      .rst_ni,
      .d_i ({wl_buf_i, wl_row_i, wl_data_i[c*16 +: 16]}),
      .q_o (wl)
    );

    // Without ActReg every PE of a row takes the row's register (link c = 0).
    localparam int ActCol = ActReg ? c : 0;
    for (genvar r = 0; r < Rows; r++) begin : g_row
      ftpu_pe #(.AddCuts(AddCuts), .ActReg(ActReg)) u_pe (
        .clk_i,
        .act_i    (act_link[(r*(Cols+1)+ActCol)*16 +: 16]),
        .sel_i    (sel_link[r*(Cols+1)+ActCol]),
        .act_o    (act_link[(r*(Cols+1)+c+1)*16 +: 16]),
        .sel_o    (sel_link[r*(Cols+1)+c+1]),
        .psum_i   (psum_link[(r*Cols+c)*32 +: 32]),
        .psum_o   (psum_link[((r+1)*Cols+c)*32 +: 32]),
        .w_en_i   (wl_valid && (wl[16 +: RowIdxW] == RowIdxW'(r))),
        .w_buf_i  (wl[WlW-1]),
        .w_data_i (wl[15:0])
      );
    end

    // De-skew: column c leaves the bottom at t+Rows*RowDelay+c*S+2; align
    // all to Latency.
    ftpu_delay #(.Width(32), .Depth((Cols - 1 - c) * ColSkew)) u_deskew (
      .clk_i,
      .rst_ni,
      .d_i (psum_link[(Rows*Cols+c)*32 +: 32]),
      .q_o (out_psum_o[c*32 +: 32])
    );
  end

  ftpu_delay #(.Width(1), .Depth(Latency), .Reset(1'b1)) u_valid (
    .clk_i,
    .rst_ni,
    .d_i (in_valid_i),
    .q_o (out_valid_o)
  );
endmodule
