#!/usr/bin/env python3
"""The array in context (docs/boards.md, "boards-share"): per board, the
cells nextpnr packs for the whole device and for the same design with
ftpu_systolic_array emptied into a black box (build/boards/<board>/
ftpu.pack.json and noarray.pack.json, `make array-share BOARD=<board>`).
The difference is the array as the board has it, after optimization across
its boundary; over its N x N PEs, one PE.

    share_table.py [--keep DOC] BOARD_DIR "board|family|params" ... > table.md
    share_table.py --modules DIR FAMILY MODULE ... > breakdown.md

The second form is one board's breakdown by module (scripts/boards/
breakdown.sh): the cells each module's black box saves.

A board without both reports keeps its row from DOC's table or, without
one, is listed as not measured.
"""
import json
import os
import sys

from pnr_table import KEYS, old_rows, used_of

# issue 15's target for one PE: LUT4 (with the cells taking a LUT's place)
# and multipliers
PE_LOGIC_GOAL, PE_DSP_GOAL = 450, 1


def counts(path, family):
    """(logic, FF, multipliers) used in one pack report."""
    with open(path) as f:
        util = json.load(f)["utilization"]
    logic, ff, dsp, _ = (used_of(util, k)[0] for k in KEYS[family])
    if family == "gowin":  # an ALU cell takes a LUT's place in the slice
        logic += util.get("ALU", {}).get("used", 0)
    return logic, ff, dsp, any("ftpu_systolic_array" in k for k in util)


def ff_in_logic(family):
    """iCE40: a logic cell has its flip-flop, so there is no FF count."""
    return KEYS[family][1] == KEYS[family][0]


# modules the breakdown lists that contain another listed one: their row
# is what they hold beside it
CONTAINS = {"ftpu_matrix_unit": "ftpu_systolic_array", "ftpu_soc_array": "ftpu_systolic_array"}


def modules(board_dir, family, names):
    """The breakdown (scripts/boards/breakdown.sh): a row per module."""
    whole = counts(os.path.join(board_dir, "ftpu.pack.json"), family)[:3]
    share = {}
    for m in names:
        without = counts(os.path.join(board_dir, f"without-{m}.pack.json"), family)[:3]
        share[m] = [w - o for w, o in zip(whole, without)]
    for m, inner in CONTAINS.items():
        if m in share and inner in share:
            share[m] = [a - b for a, b in zip(share[m], share[inner])]
    no_ff = ff_in_logic(family)
    print("| module | logic | FF | multipliers |")
    print("|---|--:|--:|--:|")
    for m in names:
        logic, ff, dsp = share[m]
        if not (logic or ff or dsp):
            continue  # not in this board's device (the control core)
        what = f"`{m}`" + (f" without `{CONTAINS[m]}`" if m in CONTAINS else "")
        if logic < 0:  # see the note under the table in docs/boards.md
            what += " (negative: the note under the iCEBreaker's table)"
        print(f"| {what} | {logic} | {'-' if no_ff else ff} | {dsp} |")
    rest = [w - sum(share[m][i] for m in names) for i, w in enumerate(whole)]
    print(f"| the rest (top, core glue, board) | {rest[0]} | {'-' if no_ff else rest[1]} "
          f"| {rest[2]} |")
    print(f"| **the device** | **{whole[0]}** | {'-' if no_ff else whole[1]} | {whole[2]} |")


def main():
    args = sys.argv[1:]
    if args[:1] == ["--modules"]:
        modules(args[1], args[2], args[3:])
        return
    keep = {}
    if args[:1] == ["--keep"]:
        keep, args = old_rows(args[1], "boards-share"), args[2:]
    board_dir, boards = args[0], args[1:]
    print("| board | array | profile | device: logic / FF / mult. "
          "| outside the array | the array | one PE: logic | FF | mult. |")
    print("|---|---|---|--:|--:|--:|--:|--:|--:|")
    for arg in boards:
        board, family, params, profile = arg.split("|")
        p = dict(kv.split("=") for kv in params.split())
        n = int(p["N"])
        profile = profile or ("small" if p.get("InOrder") == "1" else "full")
        whole = os.path.join(board_dir, board, "ftpu.pack.json")
        rest = os.path.join(board_dir, board, "noarray.pack.json")
        if not (os.path.exists(whole) and os.path.exists(rest)):
            print(keep.get(board, f"| {board} | {n}x{n} | {profile} | not measured here "
                  f"(`make array-share BOARD={board}`) | | | | | |"))
            continue
        lw, fw, dw, box_w = counts(whole, family)
        lr, fr, dr, box_r = counts(rest, family)
        if box_w or not box_r:
            sys.exit(f"share_table: {rest} does not have the array as a black box "
                     f"(or {whole} does)")
        pes = n * n
        la, fa, da = lw - lr, fw - fr, dw - dr
        pe_logic = la / pes
        met = pe_logic <= PE_LOGIC_GOAL and da / pes <= PE_DSP_GOAL
        mark = "" if met else f" (goal {PE_LOGIC_GOAL})"
        if ff_in_logic(family):
            fw = fr = fa = pe_ff = "-"
        else:
            pe_ff = f"{fa / pes:.0f}"
        print(f"| {board} | {n}x{n} | {profile} | {lw} / {fw} / {dw} "
              f"| {lr} / {fr} / {dr} | {la} / {fa} / {da} "
              f"| **{pe_logic:.0f}**{mark} | {pe_ff} | {da / pes:g} |")


if __name__ == "__main__":
    main()
