// SPDX-License-Identifier: Apache-2.0
// ftpu_matrix_unit_tb: ftpu_matrix_unit with behavioural memories for the
// matrix unit tests (test harness only, not synthesized).
//
// UB, WM and ACC are arrays with one cycle of read latency (read-first when
// ACC is read and written in one cycle), as the block RAMs of the core will
// be. The test fills and reads them through a backdoor: bd_we_i writes
// bd_wdata_i to memory bd_mem_i (0 UB, 1 WM, 2 ACC) at bd_addr_i at the
// clock edge; bd_rdata_o shows that word combinationally. Use the backdoor
// only while the unit is idle (the unit's ACC write wins a collision).
// bf16 vectors use the low N*16 bits of bd_wdata_i / bd_rdata_o.
module ftpu_matrix_unit_tb #(
  parameter int          N        = 16,
  parameter int unsigned AddCuts  = 32'b000,
  parameter int          ColSkew  = 1,
  parameter int          UbAddrW  = 12,
  parameter int          WmAddrW  = 14,
  parameter int          AccAddrW = 12,
  parameter int          InFlight = 4,
  parameter int          PipeRegs = 0
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  // commands, passed through
  input  logic                cmd_valid_i,
  output logic                cmd_ready_o,
  input  logic                cmd_op_i,
  input  logic [WmAddrW-1:0]  cmd_wm_addr_i,
  input  logic [UbAddrW-1:0]  cmd_ub_addr_i,
  input  logic [AccAddrW-1:0] cmd_acc_addr_i,
  input  logic [15:0]         cmd_n_i,
  input  logic                cmd_accumulate_i,
  input  logic                cmd_swap_i,
  // backdoor
  input  logic                bd_we_i,
  input  logic [1:0]          bd_mem_i,
  input  logic [15:0]         bd_addr_i,
  input  logic [N*32-1:0]     bd_wdata_i,
  output logic [N*32-1:0]     bd_rdata_o,
  // status
  output logic                busy_o,
  output logic                mac_o,
  output logic                weight_stall_o,
  output logic                input_stall_o,
  output logic                acc_wr_o
);
  logic                wm_rd, ub_rd, acc_rd, acc_wr;
  logic                loading;  // for the core's hazard checks, not the tests'
  logic [WmAddrW-1:0]  wm_addr;
  logic [UbAddrW-1:0]  ub_addr;
  logic [AccAddrW-1:0] acc_rd_addr, acc_wr_addr;
  logic [N*16-1:0]     wm_data_q, ub_data_q;
  logic [N*32-1:0]     acc_data_q, acc_wr_data;

  logic [N*16-1:0] ub_mem  [1 << UbAddrW];
  logic [N*16-1:0] wm_mem  [1 << WmAddrW];
  logic [N*32-1:0] acc_mem [1 << AccAddrW];

  ftpu_matrix_unit #(
    .Rows(N), .Cols(N), .AddCuts(AddCuts), .ColSkew(ColSkew),
    .UbAddrW(UbAddrW), .AccAddrW(AccAddrW), .WmAddrW(WmAddrW),
    .InFlight(InFlight), .PipeRegs(PipeRegs)
  ) u_unit (
    .clk_i,
    .rst_ni,
    .cmd_valid_i,
    .cmd_ready_o,
    .cmd_op_i,
    .cmd_wm_addr_i,
    .cmd_ub_addr_i,
    .cmd_acc_addr_i,
    .cmd_n_i,
    .cmd_accumulate_i,
    .cmd_swap_i,
    .wm_rd_o        (wm_rd),
    .wm_addr_o      (wm_addr),
    .wm_data_i      (wm_data_q),
    .ub_rd_o        (ub_rd),
    .ub_addr_o      (ub_addr),
    .ub_data_i      (ub_data_q),
    .acc_rd_o       (acc_rd),
    .acc_rd_addr_o  (acc_rd_addr),
    .acc_data_i     (acc_data_q),
    .acc_wr_o       (acc_wr),
    .acc_wr_addr_o  (acc_wr_addr),
    .acc_wr_data_o  (acc_wr_data),
    .busy_o,
    .loading_o      (loading),
    .hold_i         (1'b0),
    .mac_o,
    .weight_stall_o,
    .input_stall_o
  );
  assign acc_wr_o = acc_wr;

  // Addresses beyond the widest memory are the caller's to avoid.
  logic unused;
  assign unused = ^{bd_addr_i, loading};

  always_ff @(posedge clk_i) begin
    if (wm_rd)  wm_data_q  <= wm_mem[wm_addr];
    if (ub_rd)  ub_data_q  <= ub_mem[ub_addr];
    if (acc_rd) acc_data_q <= acc_mem[acc_rd_addr];
    if (acc_wr) begin
      acc_mem[acc_wr_addr] <= acc_wr_data;
    end else if (bd_we_i && bd_mem_i == 2'd2) begin
      acc_mem[bd_addr_i[AccAddrW-1:0]] <= bd_wdata_i;
    end
    if (bd_we_i && bd_mem_i == 2'd0) ub_mem[bd_addr_i[UbAddrW-1:0]] <= bd_wdata_i[N*16-1:0];
    if (bd_we_i && bd_mem_i == 2'd1) wm_mem[bd_addr_i[WmAddrW-1:0]] <= bd_wdata_i[N*16-1:0];
  end

  always_comb begin
    unique case (bd_mem_i)
      2'd0:    bd_rdata_o = {{(N*16){1'b0}}, ub_mem[bd_addr_i[UbAddrW-1:0]]};
      2'd1:    bd_rdata_o = {{(N*16){1'b0}}, wm_mem[bd_addr_i[WmAddrW-1:0]]};
      default: bd_rdata_o = acc_mem[bd_addr_i[AccAddrW-1:0]];
    endcase
  end
endmodule
