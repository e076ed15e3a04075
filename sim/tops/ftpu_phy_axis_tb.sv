// SPDX-License-Identifier: Apache-2.0
// ftpu_phy_axis_tb: ftpu_phy_axis for its tests (test harness only). With
// loop_i high the received bytes go straight back out (a device that
// echoes) and the outer byte ports are idle.
module ftpu_phy_axis_tb #(
  parameter int DataW     = 64,
  parameter int Async     = 0,
  parameter int FifoDepth = 16,
  parameter int FlushIdle = 8,
  localparam int KeepW = DataW / 8
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             aclk_i,
  input  logic             arst_ni,
  input  logic             loop_i,
  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [7:0]       out_data_o,
  input  logic             in_valid_i,
  output logic             in_ready_o,
  input  logic [7:0]       in_data_i,
  input  logic             s_axis_tvalid_i,
  output logic             s_axis_tready_o,
  input  logic [DataW-1:0] s_axis_tdata_i,
  input  logic [KeepW-1:0] s_axis_tkeep_i,
  input  logic             s_axis_tlast_i,
  output logic             m_axis_tvalid_o,
  input  logic             m_axis_tready_i,
  output logic [DataW-1:0] m_axis_tdata_o,
  output logic [KeepW-1:0] m_axis_tkeep_o,
  output logic             m_axis_tlast_o
);
  logic       out_valid, out_ready, in_valid, in_ready;
  logic [7:0] out_data, in_data;

  ftpu_phy_axis #(
    .DataW(DataW), .Async(Async), .FifoDepth(FifoDepth), .FlushIdle(FlushIdle)
  ) u_phy (
    .clk_i,
    .rst_ni,
    .out_valid_o(out_valid),
    .out_ready_i(out_ready),
    .out_data_o (out_data),
    .in_valid_i (in_valid),
    .in_ready_o (in_ready),
    .in_data_i  (in_data),
    .aclk_i,
    .arst_ni,
    .s_axis_tvalid_i,
    .s_axis_tready_o,
    .s_axis_tdata_i,
    .s_axis_tkeep_i,
    .s_axis_tlast_i,
    .m_axis_tvalid_o,
    .m_axis_tready_i,
    .m_axis_tdata_o,
    .m_axis_tkeep_o,
    .m_axis_tlast_o
  );

  assign out_ready   = loop_i ? in_ready : out_ready_i;
  assign in_valid    = loop_i ? out_valid : in_valid_i;
  assign in_data     = loop_i ? out_data : in_data_i;
  assign out_valid_o = !loop_i && out_valid;
  assign out_data_o  = out_data;
  assign in_ready_o  = !loop_i && in_ready;
endmodule
