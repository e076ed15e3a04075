// SPDX-License-Identifier: Apache-2.0
// ftpu_board_uart: the device behind a serial line, as the UART boards
// (ULX3S, Tang Nano 20K, Arty) carry it: ftpu_phy_uart <-> ftpu_top, and the
// LED signals (ftpu_board_leds). The board top adds its clock, reset and pins.
// The register port is idle until the control core (issue 7) drives it.
module ftpu_board_uart #(
  parameter int          N           = 2,
  parameter int unsigned AddCuts     = 7,
  parameter int          InFlight    = 8,
  parameter int          UbVectors   = 512,
  parameter int          WmRows      = 512,
  parameter int          AccVectors  = 256,
  parameter int          BiasVectors = 16,
  parameter int          IqWords     = 1024,
  parameter int unsigned ClockHz     = 24000000,
  parameter int unsigned VectorUnit  = 0,
  parameter int unsigned InOrder     = 0,
  parameter int          ActLanes    = 0,
  parameter int          ColSkew     = 1,
  parameter int          PipeRegs    = 0,
  parameter int          LinkBytes   = 1,  // the UART PHY moves a byte
  parameter int unsigned Baud        = 3000000,
  // ftpu_top ControlCore: 1, the RV32I core's firmware answers CONTROL
  // frames, its ROM compiled into the design (ftpu_cpu_mem "embedded");
  // 0, the hardware state machine (ftpu_control), for parts too small.
  parameter int unsigned ControlCore = 1,
  parameter              RomInit     = "embedded"
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       uart_rx_i,
  output logic       uart_tx_o,
  output logic [3:0] leds_o   // {line error, tx, rx, busy}, active high
);
  // ---- UART <-> device byte stream ------------------------------------------------
  logic       in_valid, in_ready, out_valid, out_ready, idle;
  logic [7:0] in_data, out_data;
  logic       frame_err, overrun;
  // Outputs no board uses yet: the register port waits for the control
  // core (issue 7); the error counters for a register to read them by.
  /* verilator lint_off UNUSEDSIGNAL */
  logic              line_break;
  logic [15:0]       frame_errs, overruns;
  logic [31:0]       reg_rdata, credit;
  /* verilator lint_on UNUSEDSIGNAL */

  ftpu_phy_uart #(.ClockHz(ClockHz), .Baud(Baud)) u_uart (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .uart_rx_i,
    .uart_tx_o,
    .out_valid_o  (in_valid),
    .out_ready_i  (in_ready),
    .out_data_o   (in_data),
    .in_valid_i   (out_valid),
    .in_ready_o   (out_ready),
    .in_data_i    (out_data),
    .frame_err_o  (frame_err),
    .break_o      (line_break),
    .overrun_o    (overrun),
    .frame_errs_o (frame_errs),
    .overruns_o   (overruns)
  );

  if (LinkBytes != 1) begin : g_link_bytes_check
    $error("the UART PHY is byte-wide: the spec's LinkBytes must be 1");
  end

  ftpu_top #(
    .N(N), .AddCuts(AddCuts), .UbVectors(UbVectors), .WmRows(WmRows),
    .AccVectors(AccVectors), .BiasVectors(BiasVectors), .IqWords(IqWords),
    .ClockHz(ClockHz), .VectorUnit(VectorUnit), .InOrder(InOrder), .ActLanes(ActLanes), .ColSkew(ColSkew), .PipeRegs(PipeRegs), .LinkBytes(LinkBytes), .InFlight(InFlight), .ControlCore(ControlCore), .RomInit(RomInit)
  ) u_device (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (in_valid),
    .in_ready_o  (in_ready),
    .in_data_i   (in_data),
    .in_count_i  (1'b1),
    .out_valid_o (out_valid),
    .out_ready_i (out_ready),
    .out_data_o  (out_data),
    .reg_req_i   (1'b0),
    .reg_we_i    (1'b0),
    .reg_addr_i  (8'd0),
    .reg_wdata_i (32'd0),
    .reg_rdata_o (reg_rdata),
    .credit_o    (credit),
    .idle_o      (idle)
  );

  ftpu_board_leds #(.ClockHz(ClockHz)) u_leds (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .busy_i     (!idle),
    .rx_i       (in_valid && in_ready),
    .tx_i       (out_valid && out_ready),
    .line_err_i (frame_err || overrun),
    .led_o      (leds_o)
  );
endmodule
