# LiteFury bitstream with Vivado in non-project mode, from the repository
# root, after `make firmware` (the control core's ROM, build/fw/):
#        vivado -mode batch -source boards/litefury/build.tcl
# Generates the XDMA IP (PCIe x4 Gen2, AXI4-Stream, 128-bit at 125 MHz, one
# H2C and one C2H channel) as xdma_0, then builds build/boards/litefury/ftpu.bit.
# Not run here (no Vivado on the build machine): check docs/boards.md.
set out build/boards/litefury
file mkdir $out/ip
set_part xc7a100tfgg484-2L
create_ip -name xdma -vendor xilinx.com -library ip -module_name xdma_0 -dir $out/ip
set_property -dict [list \
	CONFIG.mode_selection {Advanced} \
	CONFIG.pl_link_cap_max_link_width {X4} \
	CONFIG.pl_link_cap_max_link_speed {5.0_GT/s} \
	CONFIG.axi_data_width {128_bit} \
	CONFIG.axisten_freq {125} \
	CONFIG.xdma_axi_intf_mm {AXI_Stream} \
	CONFIG.xdma_rnum_chnl {1} \
	CONFIG.xdma_wnum_chnl {1} \
	CONFIG.pf0_device_id {7024} \
] [get_ips xdma_0]
generate_target all [get_ips xdma_0]
synth_ip [get_ips xdma_0]
read_verilog -sv [concat rtl/ftpu_pkg.sv [glob rtl/core/*.sv] [glob rtl/link/*.sv] [glob boards/common/*.sv] [glob rtl/cpu/*.sv] rtl/ftpu_top.sv \
	boards/litefury/ftpu_litefury.sv]
read_xdc boards/litefury/litefury.xdc
synth_design -top ftpu_litefury -include_dirs {rtl/include build/fw} \
	-verilog_define FTPU_FW_ROM_SVH
opt_design
place_design
phys_opt_design
route_design
report_utilization -file $out/utilization.rpt
report_timing_summary -file $out/timing.rpt
if {[get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -setup]] < 0} {
	puts "ftpu: timing not met, see $out/timing.rpt"
	exit 1
}
write_bitstream -force $out/ftpu.bit
