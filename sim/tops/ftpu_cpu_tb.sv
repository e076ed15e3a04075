// SPDX-License-Identifier: Apache-2.0
// ftpu_cpu_tb: the control core (ftpu_cpu) for tests, with a test device in
// its EXT window and everything else brought out to the simulator
// (sim/cpu_shim.cpp): the load port, the register port (the shim answers as
// the control plane would), the CONTROL/RESPONSE streams and the credit.
//
// Test device (MMIO window offsets, i.e. at 0x4000_0000 + offset):
//   0x1000 EXIT     W  ends the test: exit_valid_o for one cycle, exit_code_o
//   0x1004 CONSOLE  W  one character: con_valid_o for one cycle, con_data_o
//   0x1008 SCRATCH  RW a plain 32-bit register (byte enables honoured)
//   any other EXT address: access fault
// It answers ext_delay_i + 1 cycles after a request (ext_delay_i 0..15).
module ftpu_cpu_tb #(
  parameter int RomWords = 2048,
  parameter int RamWords = 4096
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        ld_we_i,
  input  logic [31:2] ld_addr_i,  // word address
  input  logic [31:0] ld_data_i,
  input  logic [3:0]  ext_delay_i,
  output logic        reg_req_o,
  output logic        reg_we_o,
  output logic [7:0]  reg_addr_o,
  output logic [31:0] reg_wdata_o,
  input  logic [31:0] reg_rdata_i,
  input  logic        ctl_valid_i,
  output logic        ctl_ready_o,
  input  logic [31:0] ctl_data_i,
  output logic        rsp_valid_o,
  input  logic        rsp_ready_i,
  output logic [31:0] rsp_data_o,
  input  logic [15:0] credit_i,
  output logic        exit_valid_o,
  output logic [31:0] exit_code_o,
  output logic        con_valid_o,
  output logic [7:0]  con_data_o,
  output logic        core_rst_o,
  output logic        retire_o,
  output logic        trap_o
);
  logic        ext_req, ext_we, ext_ready, ext_err;
  logic [15:0] ext_addr;
  logic [3:0]  ext_be;
  logic [31:0] ext_wdata, ext_rdata;

  ftpu_cpu #(.RomWords(RomWords), .RamWords(RamWords), .LoadPort(1'b1)) u_cpu (
    .clk_i,
    .rst_ni,
    .reg_req_o,
    .reg_we_o,
    .reg_addr_o,
    .reg_wdata_o,
    .reg_rdata_i,
    .reg_gnt_i  (1'b1),
    .ctl_valid_i,
    .ctl_ready_o,
    .ctl_data_i,
    .rsp_valid_o,
    .rsp_ready_i,
    .rsp_data_o,
    .credit_i,
    .ext_req_o  (ext_req),
    .ext_we_o   (ext_we),
    .ext_addr_o (ext_addr),
    .ext_be_o   (ext_be),
    .ext_wdata_o(ext_wdata),
    .ext_ready_i(ext_ready),
    .ext_err_i  (ext_err),
    .ext_rdata_i(ext_rdata),
    .ld_we_i,
    .ld_addr_i,
    .ld_data_i,
    .core_rst_o,
    .retire_o,
    .trap_o
  );

  // ---- test device ---------------------------------------------------------------
  logic [4:0]  wait_q;     // cycles the current request has waited
  logic [31:0] scratch_q;
  logic        done;       // the request is answered in this cycle

  assign done      = ext_req && wait_q == 5'(ext_delay_i) + 5'd1;
  assign ext_ready = done;
  assign ext_err   = !(ext_addr == 16'h1000 || ext_addr == 16'h1004 || ext_addr == 16'h1008);
  assign ext_rdata = ext_addr == 16'h1008 ? scratch_q : 32'd0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wait_q       <= 5'd0;
      scratch_q    <= 32'd0;
      exit_valid_o <= 1'b0;
      exit_code_o  <= 32'd0;
      con_valid_o  <= 1'b0;
      con_data_o   <= 8'd0;
    end else begin
      wait_q       <= (ext_req && !done) ? wait_q + 5'd1 : 5'd0;
      exit_valid_o <= done && ext_we && ext_addr == 16'h1000;
      con_valid_o  <= done && ext_we && ext_addr == 16'h1004;
      if (done && ext_we && ext_addr == 16'h1000) exit_code_o <= ext_wdata;
      if (done && ext_we && ext_addr == 16'h1004) con_data_o <= ext_wdata[7:0];
      if (done && ext_we && ext_addr == 16'h1008) begin
        if (ext_be[0]) scratch_q[7:0]   <= ext_wdata[7:0];
        if (ext_be[1]) scratch_q[15:8]  <= ext_wdata[15:8];
        if (ext_be[2]) scratch_q[23:16] <= ext_wdata[23:16];
        if (ext_be[3]) scratch_q[31:24] <= ext_wdata[31:24];
      end
    end
  end
endmodule
