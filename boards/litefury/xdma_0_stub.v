// xdma_0_stub.v - the ports of the Xilinx XDMA IP as boards/litefury/build.tcl
// configures it (PCIe x4, AXI4-Stream, 128-bit, one H2C and one C2H channel),
// as a black box, so that Yosys can estimate the rest of the design. Vivado
// uses the generated IP instead; this file is not read there.
(* blackbox *)
module xdma_0 (
  input  wire         sys_clk,
  input  wire         sys_rst_n,
  output wire         user_lnk_up,
  output wire [3:0]   pci_exp_txp,
  output wire [3:0]   pci_exp_txn,
  input  wire [3:0]   pci_exp_rxp,
  input  wire [3:0]   pci_exp_rxn,
  output wire         axi_aclk,
  output wire         axi_aresetn,
  input  wire [0:0]   usr_irq_req,
  output wire [0:0]   usr_irq_ack,
  output wire         msi_enable,
  output wire [2:0]   msi_vector_width,
  // H2C: host to card
  output wire [127:0] m_axis_h2c_tdata_0,
  output wire [15:0]  m_axis_h2c_tkeep_0,
  output wire         m_axis_h2c_tlast_0,
  output wire         m_axis_h2c_tvalid_0,
  input  wire         m_axis_h2c_tready_0,
  // C2H: card to host
  input  wire [127:0] s_axis_c2h_tdata_0,
  input  wire [15:0]  s_axis_c2h_tkeep_0,
  input  wire         s_axis_c2h_tlast_0,
  input  wire         s_axis_c2h_tvalid_0,
  output wire         s_axis_c2h_tready_0
);
endmodule
