#!/usr/bin/env bash
# The boards table (docs/boards.md): each board's Yosys estimate against its
# part, and a verdict. Fails when a board that must fit does not.
#
#   check.sh "board|family|part|LUT FF DSP BRAM|fit|params|design" ...
#
# Environment: BOARD_DIR (build/boards), holding <design>/estimate.stat.json
# (design: the board whose netlist this board uses, itself unless shared).
# Units per family: iCE40 SB_LUT4 (one per logic cell), SB_DFF*, SB_MAC16,
# SB_RAM40_4K; ECP5 LUT4, TRELLIS_FF, MULT18X18D, DP16KD; Gowin LUT1..4 and
# ALU (an ALU takes a LUT's place in the slice), DFF*, MULT*, the 18-kbit
# BSRAM modes; Xilinx LUT1..6,
# flip-flops, DSP48E1, RAMB36E1 (a RAMB18E1 counts one half).
set -euo pipefail
: "${BOARD_DIR:?}"

declare -A pats=(
	[ice40]='^SB_LUT4$ ^SB_DFF ^SB_MAC16$ ^SB_RAM40_4K$'
	[ecp5]='^LUT4$ ^TRELLIS_FF$ ^MULT18X18D$ ^DP16KD$'
	[gowin]='^(LUT[1-4]|ALU)$ ^DFF ^MULT ^(SDPB|DPB|SP|pROM|SDPX9B|DPX9B|SPX9|pROMX9)$'
	[xc7]='^LUT[1-6]$ ^FD[RSCP]E$ ^DSP48E1$ ^RAMB36E1$ ^RAMB18E1$'
)

# LUT FF DSP BRAM of a Yosys stat -json file's "design" totals.
totals() { # file family
	awk -v pats="${pats[$2]}" '
	BEGIN { n = split(pats, cls, " ") }
	/^ *"design": *\{/ { d = 1 }
	d && /"num_cells_by_type"/ { c = 1; next }
	c && /\}/ { c = 0; d = 0 }
	c {
		line = $0; gsub(/[",]/, "", line); split(line, kv, ":")
		name = kv[1]; gsub(/ /, "", name)
		for (i = 1; i <= n; i++) if (name ~ cls[i]) sum[i] += kv[2]
		found = 1
	}
	END {
		if (!found) exit 1
		bram = sum[4] + (n > 4 ? sum[5] / 2 : 0)
		printf "%d %d %d %g\n", sum[1], sum[2], sum[3], bram
	}' "$1"
}

param() { # name params
	local p
	for p in $2; do [[ ${p%%=*} == "$1" ]] && { echo "${p#*=}"; return; }; done
	echo "?"
}

fail=0
echo "| board | part | array | LUT | FF | DSP | BRAM | verdict |"
echo "|---|---|---|--:|--:|--:|--:|---|"
for arg in "$@"; do
	IFS='|' read -r board fam part cap fit params design <<< "$arg"
	file=$BOARD_DIR/${design:-$board}/estimate.stat.json
	if ! used=$(totals "$file" "$fam"); then
		echo "boards: no statistics in $file" >&2
		exit 1
	fi
	read -r -a u <<< "$used"
	read -r -a c <<< "$cap"
	over=()
	cells=()
	names=(LUT FF DSP BRAM)
	for i in 0 1 2 3; do
		pct=$(awk -v a="${u[$i]}" -v b="${c[$i]}" 'BEGIN { printf "%.0f", 100 * a / b }')
		cells+=("${u[$i]} / ${c[$i]} ($pct%)")
		awk -v a="${u[$i]}" -v b="${c[$i]}" 'BEGIN { exit !(a > b) }' && over+=("${names[$i]}")
	done
	n=$(param N "$params")
	if ((${#over[@]})); then
		verdict="does not fit (${over[*]})"
		[[ $fit == yes ]] && { verdict="$verdict: FAIL, must fit"; fail=1; }
	else
		verdict="fits"
	fi
	printf '| %s | %s | %sx%s | %s | %s | %s | %s | %s |\n' "$board" "$part" "$n" "$n" \
		"${cells[0]}" "${cells[1]}" "${cells[2]}" "${cells[3]}" "$verdict"
done
exit $fail
