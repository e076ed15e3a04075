# Synthesize one design for one FPGA family and write its cell statistics.
# Run from the repository root as `yosys -c scripts/synth/synth.tcl`; mk/synth.mk
# passes everything through the environment:
#
#   SYNTH_SRCS     SystemVerilog files, packages first (Yosys 0.23 has no `import`)
#   SYNTH_INC      include directory (rtl/include)
#   SYNTH_TOP      top module
#   SYNTH_PARAMS   top-level parameters, "Name=Value ..." (may be empty)
#   SYNTH_CMD      the synth_* command without -top, e.g. "synth_ecp5"
#   SYNTH_OUT      output prefix: writes $SYNTH_OUT.stat.json and .stat.txt
#   SYNTH_NETLIST  optional: write the mapped netlist as JSON here (for nextpnr)
#   SYNTH_IFACE    optional: only elaborate, write the design as Verilog here
#                  (wrap.sh reads the top's ports from it) and stop
#   SYNTH_VFLAGS   optional: more read_verilog flags (-D..., -I...)
#   SYNTH_LIBS     optional: the family's primitive models (PLLs, clock
#                  buffers a board top instantiates), read as black boxes
#
# Fails (and so fails the make rule) on any parse or elaboration error.

proc env_or {name default} {
	if {[info exists ::env($name)]} { return $::env($name) }
	return $default
}

set srcs    $::env(SYNTH_SRCS)
set inc     [env_or SYNTH_INC rtl/include]
set top     $::env(SYNTH_TOP)
set params  [env_or SYNTH_PARAMS ""]
set iface   [env_or SYNTH_IFACE ""]
set netlist [env_or SYNTH_NETLIST ""]

if {[llength $srcs] == 0} { error "synth.tcl: SYNTH_SRCS is empty" }

yosys read_verilog -sv -I$inc {*}[env_or SYNTH_VFLAGS ""] {*}$srcs
foreach lib [env_or SYNTH_LIBS ""] { yosys read_verilog -lib $lib }

# chparam before hierarchy: Yosys 0.23's `hierarchy -chparam` asserts
# (rtlil.cc:663) when the top re-elaborates around a parameterized child,
# as ftpu_matrix_unit does around ftpu_systolic_array.
set chparam {}
foreach p $params {
	lassign [split $p =] name value
	lappend chparam -set $name $value
}
if {[llength $chparam] > 0} { yosys chparam {*}$chparam $top }
yosys hierarchy -check -top $top
# chparam leaves the top as $paramod$...; give it its name back for -top.
yosys rename -top $top
if {$iface ne ""} {
	yosys proc
	yosys write_verilog -noattr $iface
	return
}

set cmd $::env(SYNTH_CMD)
set out $::env(SYNTH_OUT)

yosys {*}$cmd -top $top
yosys tee -q -o $out.stat.txt stat
yosys tee -q -o $out.stat.json stat -json
if {$netlist ne ""} { yosys write_json $netlist }
