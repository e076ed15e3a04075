// SPDX-License-Identifier: Apache-2.0
// ftpu_phy_ft245_tb: ftpu_phy_ft245 for its tests (test harness only), with
// the data bus resolved here as the board's tristate pins and the chip's
// output enable would: the chip drives chip_d_i while OE# is low, the PHY
// drives ft_data_o while ft_data_oe_o is high, and an undriven bus reads
// float_d_i (the test varies it, so a read of a floating bus shows). Both
// driving at once reads as their XOR and raises contention_o. bus_o is what
// the chip sees on D (for its writes). With loop_i high the received bytes
// go straight back out and the outer byte ports are idle.
module ftpu_phy_ft245_tb #(
  parameter int RxDepth   = 16,
  parameter int TxDepth   = 16,
  parameter int Burst     = 64,
  parameter int FlushIdle = 16
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       ft_clk_i,
  input  logic       ft_rst_ni,
  input  logic       loop_i,
  output logic       out_valid_o,
  input  logic       out_ready_i,
  output logic [7:0] out_data_o,
  input  logic       in_valid_i,
  output logic       in_ready_o,
  input  logic [7:0] in_data_i,
  input  logic       ft_rxf_ni,
  input  logic       ft_txe_ni,
  output logic       ft_rd_no,
  output logic       ft_wr_no,
  output logic       ft_oe_no,
  output logic       ft_siwu_no,
  input  logic [7:0] chip_d_i,
  input  logic [7:0] float_d_i,
  output logic [7:0] bus_o,
  output logic       ft_data_oe_o,
  output logic       contention_o
);
  logic       out_valid, out_ready, in_valid, in_ready;
  logic [7:0] out_data, in_data, data_o, bus;

  ftpu_phy_ft245 #(
    .RxDepth(RxDepth), .TxDepth(TxDepth), .Burst(Burst), .FlushIdle(FlushIdle)
  ) u_phy (
    .clk_i,
    .rst_ni,
    .out_valid_o(out_valid),
    .out_ready_i(out_ready),
    .out_data_o (out_data),
    .in_valid_i (in_valid),
    .in_ready_o (in_ready),
    .in_data_i  (in_data),
    .ft_clk_i,
    .ft_rst_ni,
    .ft_rxf_ni,
    .ft_txe_ni,
    .ft_rd_no,
    .ft_wr_no,
    .ft_oe_no,
    .ft_siwu_no,
    .ft_data_i  (bus),
    .ft_data_o  (data_o),
    .ft_data_oe_o
  );

  always_comb begin
    unique case ({!ft_oe_no, ft_data_oe_o})
      2'b10:   bus = chip_d_i;
      2'b01:   bus = data_o;
      2'b11:   bus = chip_d_i ^ data_o;
      default: bus = float_d_i;
    endcase
  end
  assign bus_o        = bus;
  assign contention_o = !ft_oe_no && ft_data_oe_o;

  assign out_ready   = loop_i ? in_ready : out_ready_i;
  assign in_valid    = loop_i ? out_valid : in_valid_i;
  assign in_data     = loop_i ? out_data : in_data_i;
  assign out_valid_o = !loop_i && out_valid;
  assign out_data_o  = out_data;
  assign in_ready_o  = !loop_i && in_ready;
endmodule
