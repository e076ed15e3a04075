#!/usr/bin/env bash
# Synthesize one design for one FPGA family and write its cell statistics.
# Run from the repository root as `bash scripts/synth/synth.sh LOG`; make
# passes everything through the environment. It writes a Yosys script
# (LOG with .ys) and runs $YOSYS on it (the PyPI Yosys has no Tcl).
#
#   YOSYS          the yosys command (build/tools.mk)
#   SYNTH_SRCS     SystemVerilog files
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
#   SYNTH_BLACKBOX optional: a module emptied into a black box after
#                  elaboration (every parameterization of it): the design
#                  without it, for its share (mk/boards.mk, array-share)
#
# Fails on any parse or elaboration error.
set -euo pipefail
log=${1:?usage: synth.sh LOG}
: "${SYNTH_SRCS:?synth.sh: SYNTH_SRCS is empty}" "${SYNTH_TOP:?}" "${YOSYS:?}"
script=${log%.log}.ys
top=$SYNTH_TOP

chparam=
for p in ${SYNTH_PARAMS:-}; do chparam+=" -set ${p%%=*} ${p#*=}"; done
{
  echo "read_verilog -sv -I${SYNTH_INC:-rtl/include} ${SYNTH_VFLAGS:-} $SYNTH_SRCS"
  for lib in ${SYNTH_LIBS:-}; do echo "read_verilog -lib $lib"; done
  # chparam before hierarchy: "hierarchy -chparam" asserts (Yosys 0.23 in
  # rtlil.cc, 0.70 in rtlil_bufnorm.cc) when the top re-elaborates around a
  # parameterized child, as ftpu_matrix_unit does around ftpu_systolic_array.
  if [[ -n $chparam ]]; then echo "chparam$chparam $top"; fi
  echo "hierarchy -check -top $top"
  # chparam leaves the top as \$paramod\$...; give it its name back for -top.
  echo "rename -top $top"
  if [[ -n ${SYNTH_BLACKBOX:-} ]]; then
    # its names as elaborated: NAME, $paramod$<hash>\NAME or
    # $paramod\NAME\<parameters> (one pattern may match nothing)
    echo 'logger -nowarn "did not match any module"'
    echo "blackbox =*\\$SYNTH_BLACKBOX =*\\$SYNTH_BLACKBOX\\*"
  fi
  if [[ -n ${SYNTH_IFACE:-} ]]; then
    echo "proc"
    echo "write_verilog -noattr $SYNTH_IFACE"
  else
    echo "${SYNTH_CMD:?} -top $top"
    echo "tee -q -o $SYNTH_OUT.stat.txt stat"
    echo "tee -q -o $SYNTH_OUT.stat.json stat -json"
    if [[ -n ${SYNTH_NETLIST:-} ]]; then echo "write_json $SYNTH_NETLIST"; fi
  fi
} >"$script"
exec "$YOSYS" -q -l "$log" -s "$script"
