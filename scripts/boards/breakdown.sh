#!/usr/bin/env bash
# Where a board's cells go: for each module, the board's design synthesized
# with that module emptied into a black box and packed by nextpnr
# (--pack-only); the cells it saves are the module's share in context
# (after optimization across its boundary, as the bitstream is built).
# Run from the repository root by `make breakdown BOARD=<b>` (mk/boards.mk),
# which passes synth.sh's variables and these through the environment:
#
#   BREAKDOWN_DIR     the board's build folder (its ftpu.pack.json is the whole)
#   BREAKDOWN_PACK    the nextpnr command with its device and pin flags
#   BREAKDOWN_FAMILY  ice40, ecp5 or gowin
#   $@                the modules
#
# Writes BREAKDOWN_DIR/breakdown.md (scripts/boards/share_table.py --modules).
set -euo pipefail
: "${BREAKDOWN_DIR:?}" "${BREAKDOWN_PACK:?}" "${BREAKDOWN_FAMILY:?}"
for m in "$@"; do
  out=$BREAKDOWN_DIR/without-$m
  if [[ ! -e $out.pack.json || $out.pack.json -ot $BREAKDOWN_DIR/ftpu.json ]]; then
    echo "YOSYS  without $m"
    SYNTH_BLACKBOX=$m SYNTH_OUT=$out SYNTH_NETLIST=$out.json \
      bash scripts/synth/synth.sh "$out.log" 2>/dev/null \
      || { echo "breakdown: Yosys failed, see $out.log" >&2; exit 1; }
    $BREAKDOWN_PACK --pack-only --json "$out.json" --report "$out.pack.json.tmp" \
      >"$out.pack.log" 2>&1 \
      || { echo "breakdown: nextpnr could not pack, see $out.pack.log" >&2; exit 1; }
    mv "$out.pack.json.tmp" "$out.pack.json"
    rm -f "$out.json"  # tens of MB each; the pack report is what is read
  fi
done
python3 scripts/boards/share_table.py --modules "$BREAKDOWN_DIR" "$BREAKDOWN_FAMILY" "$@" \
  >"$BREAKDOWN_DIR/breakdown.md"
