#!/usr/bin/env bash
# Print the synthesis report (docs/synth.md) from the results mk/synth.mk wrote.
#
#   report.sh "design|top|Name=Value ..." ...
#
# Environment (set by mk/synth.mk):
#   SYNTH_DIR        results: <design>.<family>.stat.json, pnr/<design>.log
#   SYNTH_FAMILIES   families, columns of the legend (ice40 ecp5 xc7)
#   SYNTH_CMD_<fam>  the Yosys command used for each family
#   SYNTH_PNR        designs that were placed and routed (may be empty)
#   SYNTH_PNR_CMD    the nextpnr command line, for the text
#
# Fails if a result file is missing or has no statistics in it.
set -euo pipefail

: "${SYNTH_DIR:?}" "${SYNTH_FAMILIES:?}"
SYNTH_PNR=${SYNTH_PNR:-}

# Per family: display name, then primitives counted as LUT, carry, DSP, FF and
# BRAM, as awk regular expressions over Yosys cell names.
declare -A fam_name=([ice40]="iCE40" [ecp5]="ECP5" [xc7]="Xilinx 7-series")
declare -A fam_cells=(
	[ice40]='^SB_LUT4$ ^SB_CARRY$ ^SB_MAC16$ ^SB_DFF ^SB_RAM40_4K'
	[ecp5]='^LUT4$ ^CCU2C$ ^MULT18X18D$ ^TRELLIS_FF$ ^DP16KD$'
	[xc7]='^LUT[1-6]$ ^CARRY4$ ^DSP48E1$ ^FD[RSCP]E$ ^RAMB(18|36)E1$'
)
declare -A fam_legend=(
	[ice40]='SB_LUT4|SB_CARRY|SB_MAC16|SB_DFF*|SB_RAM40_4K'
	[ecp5]='LUT4|CCU2C|MULT18X18D|TRELLIS_FF|DP16KD'
	[xc7]='LUT1..LUT6|CARRY4|DSP48E1|FDRE, FDSE, FDCE, FDPE|RAMB18E1, RAMB36E1'
)

# One table row from a Yosys `stat -json` file: the totals of the "design"
# section (submodules included), sorted into the family's classes; every
# other cell of the part goes to "other".
stat_row() { # file family label
	local file=$1 fam=$2 label=$3
	[[ -s $file ]] || { echo "report.sh: missing $file" >&2; return 1; }
	awk -v pats="${fam_cells[$fam]}" -v label="$label" -v fam="${fam_name[$fam]}" '
	/^ *"design": *\{/ { in_design = 1 }
	in_design && /"num_cells_by_type"/ { in_cells = 1; next }
	in_cells && /\}/ { in_cells = 0; in_design = 0 }
	in_cells {
		line = $0
		gsub(/[",]/, "", line)
		split(line, kv, ":")
		name = kv[1]; gsub(/ /, "", name)
		count = kv[2] + 0
		found = 1
		for (i = 1; i <= ncls; i++)
			if (name ~ cls[i]) { sum[i] += count; next }
		# Not cells of the part: hierarchy notes (Yosys >= 0.39) and, in a
		# design kept hierarchical, its own submodules (counted inside).
		if (name ~ /^\$scopeinfo$|^\$paramod|^\\?ftpu_/) next
		other = other (other == "" ? "" : ", ") name " " count
	}
	BEGIN { ncls = split(pats, cls, " ") }
	END {
		if (!found) { print "report.sh: no cell statistics in " FILENAME > "/dev/stderr"; exit 1 }
		printf "| %s | %s |", label, fam
		for (i = 1; i <= ncls; i++) printf " %d |", sum[i]
		printf " %s |\n", (other == "" ? "-" : other)
	}' "$file"
}

# The P&R row from nextpnr's log: utilisation after packing, and from the last
# (post-route) timing report the Fmax of the wrapper clock, its critical path
# (length, the RTL files it runs through) and the split path through a
# combinational SB_MAC16, which nextpnr 0.4 times as a clock domain of its own.
pnr_row() { # design label
	local log=$SYNTH_DIR/pnr/$1.log wrap=$SYNTH_DIR/pnr/$1.wrap.sv
	[[ -s $log && -s $wrap ]] || { echo "report.sh: missing $log or $wrap" >&2; return 1; }
	local regs
	regs=$(awk '/^ *reg *\[/ { w = $2; gsub(/[^0-9:]/, "", w); split(w, r, ":"); n += r[1] - r[2] + 1 }
		END { print n + 0 }' "$wrap")
	awk -v label="$2 + wrapper ($regs FFs)" '
	function used(line,   a) { split(line, a, /[:\/ \t]+/); return a[3] " / " a[4] }
	function ns(line,   a) { n = split(line, a, " "); return a[n - 1] + 0 }
	/ICESTORM_LC:/ && !lc { lc = used($0) }
	/ICESTORM_DSP:/ && !dsp { dsp = used($0) }
	/ICESTORM_RAM:/ && !ram { ram = used($0) }
	/ SB_IO:/ && !io { io = used($0) }
	# A clock critical path report: remember its files and length.
	/Critical path report for clock .clk/ { in_path = 1; files = ""; delete seen; next }
	/Critical path report for/ { in_path = 0 }
	in_path && /rtl\/[a-z]+\/[A-Za-z0-9_]+\.sv/ {
		f = $0; sub(/.*rtl\/[a-z]+\//, "", f); sub(/:.*/, "", f)
		if (!(f in seen)) { seen[f] = 1; files = files (files == "" ? "" : ", ") f }
	}
	in_path && /ns logic, .* ns routing/ {
		path = $0; sub(/^Info: */, "", path)
		split(path, t, " ")
		total = sprintf("%.1f ns (%s)", t[1] + t[4], path)
		crit_files = files; in_path = 0
	}
	/Max delay posedge .PACKER_GND_NET.*-> posedge clk/ { dsp_out = ns($0) }
	/Max delay posedge clk.*-> posedge .PACKER_GND_NET/ { dsp_in = ns($0) }
	/Max frequency for clock .clk/ {
		f = $0
		sub(/.*: /, "", f)          # "12.39 MHz (FAIL at 20.00 MHz)"
		fmax = f
	}
	END {
		if (fmax == "") { print "report.sh: no Fmax in " FILENAME > "/dev/stderr"; exit 1 }
		split(fmax, p, " ")
		verdict = fmax; sub(/^[^(]*\(/, "", verdict); sub(/\)$/, "", verdict)
		printf "| %s | %s | %s | %s | %s | **%s MHz** | %s | %s through %s |\n",
			label, lc, dsp, ram, io, p[1], verdict, total, crit_files
		if (dsp_in != "" || dsp_out != "")
			printf "\nThrough the combinational SB_MAC16 (timed by nextpnr as two paths, " \
				"not in the Fmax above): %.1f ns to its inputs + %.1f ns from its outputs = %.1f ns (%.1f MHz).\n",
				dsp_in, dsp_out, dsp_in + dsp_out, 1000 / (dsp_in + dsp_out)
	}' "$log"
}

# Versions and commands as a reader would type them: no build paths.
yosys_version=$( (${YOSYS:-yosys} -V 2>/dev/null || echo "yosys: not found") | sed 's/, Release.*)/)/')
nextpnr_version=$(${NEXTPNR_ICE40:-nextpnr-ice40} --version 2>&1 | head -n 1 | tr -d '"' || true)
pnr_cmd=${SYNTH_PNR_CMD:-nextpnr-ice40}
pnr_cmd="$(basename "${pnr_cmd%% *}") ${pnr_cmd#* }"

cat <<EOF
# Synthesis report

<!-- Generated by \`make synth\` (mk/synth.mk, scripts/synth/); do not edit. -->

Resource estimates for the core's arithmetic, from Yosys' generic FPGA
flows, and one place and route on the iCE40UP5K (its target is 20 MHz:
docs/boards.md, iCEBreaker). Regenerate with

    make synth

which writes its netlists and logs under \`build/synth/\` and this file.
Yosys counts mapped cells after synthesis (no place and route) except in the
last table; the FPGA's own vendor tools may pack differently.

Tools: ${yosys_version}; ${nextpnr_version}.

## Resources per design and family

| design | family | LUT | carry | DSP | FF | BRAM | other cells |
|---|---|--:|--:|--:|--:|--:|---|
EOF

for spec in "$@"; do
	IFS='|' read -r design top params <<<"$spec"
	label="\`$top\`${params:+ $params}"
	for fam in $SYNTH_FAMILIES; do
		stat_row "$SYNTH_DIR/$design.$fam.stat.json" "$fam" "$label"
	done
done

cat <<EOF

What each column counts, and the Yosys command (always with \`-top <design>\`):

| family | Yosys command | LUT | carry | DSP | FF | BRAM |
|---|---|---|---|---|---|---|
EOF
for fam in $SYNTH_FAMILIES; do
	cmd_var=SYNTH_CMD_$fam
	echo "| ${fam_name[$fam]} | \`${!cmd_var:-?}\` | ${fam_legend[$fam]//|/ | } |"
done

cat <<'EOF'

Notes: the iCE40 flow runs with `-dsp`, so multipliers map to SB_MAC16. An
iCE40 logic cell (LC) holds one LUT4, one carry and one FF, so LCs are at least
the LUT count; the UP5K has 5280 LCs, 8 SB_MAC16, 30 SB_RAM40_4K. ECP5 LUT
counts exclude the PFUMX / L6MUX21 wide-function muxes (in "other cells"),
which combine LUTs of one slice and take none themselves. Xilinx LUT counts
are LUT1 to LUT6; SRL16E (delay lines as shift-register LUTs) and INV
(inverters the vendor tools fold into LUTs) are in "other cells".
EOF

if [[ -n $SYNTH_PNR ]]; then
	cat <<EOF

## iCE40UP5K place and route

\`${pnr_cmd}\`, I/O placed by nextpnr (no PCF).

The design's ports do not fit the 39 pins of the sg48 package, so it is placed
inside a generated synthesis-only wrapper (\`scripts/synth/wrap.sh\`): a shift
register fed from one pin drives all data inputs, and every output is
registered and XOR-reduced to one pin, so nothing can be optimized away and
every path of the design ends in a register. **The wrapper's registers are
included in the LC count below**, and the design's input-to-output paths
count towards its Fmax.

| design | LCs | DSP | BRAM | I/O | Fmax (clk_i) | vs. target | critical path |
|---|--:|--:|--:|--:|--:|---|---|
EOF
	for spec in "$@"; do
		IFS='|' read -r design top params <<<"$spec"
		[[ " $SYNTH_PNR " == *" $design "* ]] || continue
		pnr_row "$design" "\`$top\`${params:+ $params}"
	done
fi
