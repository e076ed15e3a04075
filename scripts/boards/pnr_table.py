#!/usr/bin/env python3
"""The placed-and-routed boards table (docs/boards.md, "boards-pnr"): one row
per board that has a nextpnr report (build/boards/<board>/pnr.report.json),
read from that report, never typed.

    pnr_table.py [--keep DOC] BOARD_DIR "board|family|part|params|freq" ... > table.md

A board without a report in BOARD_DIR keeps its row from DOC's table (made
from its report by an earlier run, so that one board's bitstream does not
erase the others' rows) or, without one, is listed as not built.
"""
import json
import os
import sys

# nextpnr's utilisation keys, per family: logic (LUT4 with the cells that
# take a LUT's place), flip-flops, multipliers, block RAM.
KEYS = {
    "ice40": (["ICESTORM_LC"], ["ICESTORM_LC"], ["ICESTORM_DSP"], ["ICESTORM_RAM"]),
    "ecp5": (["TRELLIS_COMB"], ["TRELLIS_FF"], ["MULT18X18D"], ["DP16KD"]),
    "gowin": (["LUT4"], ["DFF"], ["MULT9X9", "MULT18X18", "MULT36X36"], ["BSRAM"]),
}


def used_of(util, keys):
    used = sum(util[k]["used"] for k in keys if k in util)
    avail = max((util[k]["available"] for k in keys if k in util), default=0)
    return used, avail


def cell(used, avail):
    return f"{used} / {avail} ({100 * used / avail:.0f}%)" if avail else "-"


def old_rows(doc, marker="boards-pnr"):
    """{board: row} of the table in DOC between its MARKER markers."""
    rows, inside = {}, False
    with open(doc, encoding="utf-8") as f:
        for line in f:
            if line.startswith(f"<!-- begin {marker}:"):
                inside = True
            elif line.startswith(f"<!-- end {marker} "):
                inside = False
            elif inside and line.startswith("| ") and not line.startswith("| board |"):
                rows[line.split("|")[1].strip()] = line.rstrip("\n")
    return rows


def main():
    args = sys.argv[1:]
    keep = {}
    if args[:1] == ["--keep"]:
        keep, args = old_rows(args[1]), args[2:]
    board_dir, boards = args[0], args[1:]
    print("| board | part | array | logic | FF | multipliers | block RAM "
          "| Fmax (target) | P&R time |")
    print("|---|---|---|--:|--:|--:|--:|---|--:|")
    for arg in boards:
        board, family, part, params, freq = arg.split("|")
        n = dict(p.split("=") for p in params.split()).get("N", "?")
        report = os.path.join(board_dir, board, "pnr.report.json")
        if not os.path.exists(report) and board in keep and \
                not os.path.exists(os.path.join(board_dir, board, "pnr.log")):
            print(keep[board])
            continue
        if not os.path.exists(report):
            failed = os.path.exists(os.path.join(board_dir, board, "pnr.log"))
            what = "place and route failed (its pnr.log says why)" if failed else \
                f"not built here yet (`make bitstream BOARD={board}`)"
            print(f"| {board} | {part} | {n}x{n} | {what} | | | | | |")
            continue
        with open(report) as f:
            r = json.load(f)
        util = r["utilization"]
        logic, ff, dsp, ram = (used_of(util, k) for k in KEYS[family])
        if family == "gowin":  # an ALU cell takes a LUT's place in the slice
            alu = util.get("ALU", {}).get("used", 0)
            logic = (logic[0] + alu, logic[1])
        fmax = min(c["achieved"] for c in r["fmax"].values())
        target = float(freq)
        verdict = "met" if fmax >= target else f"**missed by {target - fmax:.1f} MHz**"
        secs_file = os.path.join(board_dir, board, "pnr.seconds")
        secs = open(secs_file).read().strip() if os.path.exists(secs_file) else "?"
        print(f"| {board} | {part} | {n}x{n} | {cell(*logic)} | {cell(*ff)} | {cell(*dsp)} "
              f"| {cell(*ram)} | {fmax:.1f} MHz ({target:g} MHz, {verdict}) | {secs} s |")


if __name__ == "__main__":
    main()
