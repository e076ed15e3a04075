// SPDX-License-Identifier: Apache-2.0
// ftpu_soc: the soft device (docs/soft_device.md). The control core runs
// the ftpu device as firmware (firmware/soc/): the link protocol, the
// instruction decoder and its checks, the sequencing and the activation
// are C; the hardware keeps what software cannot do at the line's pace or
// the numerics' exactness cheaply: the UART with its FIFOs and the
// systolic array. For FPGAs whose logic cells do not hold the hardware
// device (ftpu_top): the iCE40UP5K.
//
//   ftpu_cpu: ftpu_rv32i, ROM (RomWords, the firmware, block RAM),
//             RAM (RamWords: data, the device's memories; SPRAM on the UP5K)
//   EXT 0x4000_1xxx  ftpu_soc_uart   SOC_UART_RX, SOC_UART_TX, SOC_BUSY
//   EXT 0x4000_2xxx  ftpu_soc_array  SOC_ARRAY_*
//
// The protocol and the instruction set are the hardware device's, so the
// host library, the C model as oracle and the device tests apply as they
// are; what differs is speed (docs/soft_device.md has the numbers).
module ftpu_soc #(
  parameter int          N        = 2,
  parameter int unsigned AddCuts  = 32'b111,
  parameter int          ColSkew  = 0,
  parameter int unsigned ClockHz  = 24000000,
  parameter int unsigned Baud     = 3000000,
  parameter int          RomWords = 2048,
  parameter int          RamWords = 16384,
  parameter              RomInit  = "embedded"
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic uart_rx_i,
  output logic uart_tx_o,
  output logic busy_o,      // the firmware has work, or bytes wait in a FIFO
  output logic rx_byte_o,   // pulses: a byte came in, a byte went out
  output logic tx_byte_o
);
  logic        ext_req, ext_we, ext_ready, ext_err;
  logic [31:0] ext_wdata, ext_rdata;
  /* verilator lint_off UNUSEDSIGNAL */
  logic        reg_req, reg_we, ctl_ready, rsp_valid, core_rst, retire, trap;
  logic [7:0]  reg_addr;
  logic [31:0] reg_wdata, rsp_data;
  logic [3:0]  ext_be;    // the peripherals take whole words
  logic [15:0] ext_addr;  // word addresses: bits 1:0 unused
  /* verilator lint_on UNUSEDSIGNAL */

  // No control-plane registers and no mailbox here: the firmware is the
  // device, and frames reach it through the UART.
  // The firmware times with mcycle alone; the 64-bit counters would be 3%
  // of the UP5K.
  ftpu_cpu #(
    .RomWords(RomWords), .RamWords(RamWords), .RomInit(RomInit), .FullCounters(1'b0)
  ) u_cpu (
    .clk_i,
    .rst_ni,
    .reg_req_o  (reg_req),
    .reg_we_o   (reg_we),
    .reg_addr_o (reg_addr),
    .reg_wdata_o(reg_wdata),
    .reg_rdata_i(32'd0),
    .reg_gnt_i  (1'b1),
    .ctl_valid_i(1'b0),
    .ctl_ready_o(ctl_ready),
    .ctl_data_i (32'd0),
    .rsp_valid_o(rsp_valid),
    .rsp_ready_i(1'b1),
    .rsp_data_o (rsp_data),
    .credit_i   (16'd0),
    .ext_req_o  (ext_req),
    .ext_we_o   (ext_we),
    .ext_addr_o (ext_addr),
    .ext_be_o   (ext_be),
    .ext_wdata_o(ext_wdata),
    .ext_ready_i(ext_ready),
    .ext_err_i  (ext_err),
    .ext_rdata_i(ext_rdata),
    .ld_we_i    (1'b0),
    .ld_addr_i  (30'd0),
    .ld_data_i  (32'd0),
    .core_rst_o (core_rst),
    .retire_o   (retire),
    .trap_o     (trap)
  );

  // ---- EXT decode: 4 KiB pages ---------------------------------------------------------
  // The page decode is registered: a peripheral acts a cycle after the core
  // asks (an MMIO access takes three cycles, not two), so that the core's
  // bus request and address decode do not run on into a peripheral's
  // enables in the same cycle (into the PEs' weight registers it was the
  // iCE40UP5K's longest path). A request counts until it is answered; the
  // core holds we, addr and wdata meanwhile, so those need no register.
  localparam logic [15:12] PageUart  = ftpu_pkg::SOC_UART_RX[15:12];
  localparam logic [15:12] PageArray = ftpu_pkg::SOC_ARRAY_PSUM[15:12];
  logic sel_uart, sel_array, sel_none, uart_q, array_q, none_q, none_ready_q;
  assign sel_uart  = ext_req && ext_addr[15:12] == PageUart && ext_addr[11:4] == '0;
  assign sel_array = ext_req && ext_addr[15:12] == PageArray;
  assign sel_none  = ext_req && !sel_uart && !sel_array;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {uart_q, array_q, none_q} <= '0;
    end else begin
      uart_q  <= sel_uart && !ext_ready;
      array_q <= sel_array && !ext_ready;
      none_q  <= sel_none && !ext_ready;
    end
  end

  logic        uart_ready, array_ready, array_err;
  logic [31:0] uart_rdata, array_rdata;

  ftpu_soc_uart #(.ClockHz(ClockHz), .Baud(Baud)) u_uart (
    .clk_i,
    .rst_ni,
    .uart_rx_i,
    .uart_tx_o,
    .req_i    (uart_q),
    .we_i     (ext_we),
    .addr_i   (ext_addr[3:2]),
    .wdata_i  (ext_wdata[7:0]),
    .ready_o  (uart_ready),
    .rdata_o  (uart_rdata),
    .busy_o,
    .rx_byte_o,
    .tx_byte_o
  );

  ftpu_soc_array #(.N(N), .AddCuts(AddCuts), .ColSkew(ColSkew)) u_array (
    .clk_i,
    .rst_ni,
    .req_i  (array_q),
    .we_i   (ext_we),
    .addr_i (ext_addr[11:2]),
    .wdata_i(ext_wdata),
    .ready_o(array_ready),
    .err_o  (array_err),
    .rdata_o(array_rdata)
  );

  // Anything else in the window is an access fault, answered a cycle after
  // its registered request.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) none_ready_q <= 1'b0;
    else none_ready_q <= none_q && !none_ready_q;
  end

  assign ext_ready = uart_ready || array_ready || none_ready_q;
  assign ext_err   = (array_ready && array_err) || none_ready_q;
  assign ext_rdata = (uart_ready ? uart_rdata : 32'd0) | (array_ready ? array_rdata : 32'd0);
endmodule
