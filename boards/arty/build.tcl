# Arty A7-100T bitstream with Vivado in non-project mode, from the repository
# root, after `make firmware` (the control core's ROM, build/fw/):
#        vivado -mode batch -source boards/arty/build.tcl
# Writes build/boards/arty/ftpu.bit and timing/utilization reports there.
# Flash: openFPGALoader -b arty_a7_100t build/boards/arty/ftpu.bit
set out build/boards/arty
file mkdir $out
set_part xc7a100tcsg324-1
read_verilog -sv [concat rtl/ftpu_pkg.sv [glob rtl/core/*.sv] [glob rtl/link/*.sv] [glob boards/common/*.sv] [glob rtl/cpu/*.sv] rtl/ftpu_top.sv \
	boards/arty/ftpu_arty.sv]
read_xdc boards/arty/arty.xdc
synth_design -top ftpu_arty -include_dirs {rtl/include build/fw} \
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
