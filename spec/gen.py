#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""gen.py - writes every file derived from spec/ftpu.toml (its header says
which). Python 3.11 standard library only.

    python3 spec/gen.py            write what differs
    python3 spec/gen.py --check    write nothing; exit 1 and show the first
                                   difference when a generated file (or a
                                   generated table in docs/) disagrees
"""
import difflib
import os
from fractions import Fraction
import sys
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEC = "spec/ftpu.toml"
NOTE = f"generated from {SPEC} by spec/gen.py - do not edit"

# Device parameters in the order ftpu_top declares them, with the C define
# suffix each becomes (FTPU_DEV_<suffix>).
DEVICE_PARAMS = [
    ("N", "N"), ("AddCuts", "ADD_CUTS"), ("InFlight", "IN_FLIGHT"),
    ("UbVectors", "UB_VECTORS"), ("WmRows", "WM_ROWS"),
    ("AccVectors", "ACC_VECTORS"), ("BiasVectors", "BIAS_VECTORS"),
    ("IqWords", "IQ_WORDS"), ("ClockHz", "CLOCK_HZ"), ("VectorUnit", "VECTOR_UNIT"),
    ("LinkBytes", "LINK_BYTES"), ("InOrder", "IN_ORDER"),
    ("ActLanes", "ACT_LANES"), ("ColSkew", "COL_SKEW"),
    ("PipeRegs", "PIPE_REGS"),
]
OPTIONAL_PARAMS = [("Baud", "BAUD")]


def load():
    with open(os.path.join(ROOT, SPEC), "rb") as f:
        return tomllib.load(f)


def row_delay(add_cuts):
    """Cycles a partial sum spends in a PE: one, plus one per adder cut
    (rtl/ftpu_top.sv computes the same from its AddCuts)."""
    return 1 + bin(add_cuts & 7).count("1")


def enum_values(e):
    """The enum's rows with value filled in (index when absent)."""
    rows = []
    for i, v in enumerate(e["values"]):
        r = dict(v)
        r.setdefault("value", i)
        rows.append(r)
    return rows


def devices(spec):
    """Each configuration with 'like' resolved and derived values added."""
    raw = spec["device"]
    out = {}

    def resolve(name, seen=()):
        d = raw[name]
        if name in seen:
            sys.exit(f"{SPEC}: device {name}: 'like' loops")
        base = resolve(d["like"], seen + (name,)) if "like" in d else {}
        r = dict(base)
        r.update({k: v for k, v in d.items() if k not in ("like", "doc")})
        return r

    for name, d in raw.items():
        r = resolve(name)
        for p, _ in DEVICE_PARAMS:
            if p not in r:
                sys.exit(f"{SPEC}: device {name} has no {p}")
        if r["LinkBytes"] not in (1, 4):
            sys.exit(f"{SPEC}: device {name}: LinkBytes must be 1 or 4 (a byte or a word a cycle)")
        for p in ("VectorUnit", "InOrder", "ColSkew", "PipeRegs"):
            if r[p] not in (0, 1):
                sys.exit(f"{SPEC}: device {name}: {p} must be 0 or 1")
        if r["ActLanes"] and (r["ActLanes"] > r["N"] or r["N"] % r["ActLanes"]):
            sys.exit(f"{SPEC}: device {name}: ActLanes must be 0 (N) or divide N")
        r["RowDelay"] = row_delay(r["AddCuts"])
        r["WeightTiles"] = r["WmRows"] // r["N"]
        r["doc"] = d.get("doc", "")
        out[name] = r
    return out


def registers(spec):
    """The control-plane register map: (addr, name, access, content) rows,
    laid out from the CONTROL responses' words (spec [registers])."""
    g = spec["registers"]
    en = spec["enum"]
    rows = [(g["id"], "ID", "R", f"0x{spec['const']['LINK_SYNC']['value']:08X} ('F','T','P','U')")]
    for k in enum_values(en["link_info"]):
        if k["name"] == "VERSION":
            text = f"INFO key {k['value']}: protocol version, 0x{spec['const']['LINK_VERSION_MAJOR']['value'] << 16 | spec['const']['LINK_VERSION_MINOR']['value']:08X}"
        else:
            text = f"INFO key {k['value']} (parameter {k['param']})"
        rows.append((g["info_base"] + k["value"], k["name"], "R", text))
    for w in enum_values(en["link_status"]):
        port = f"`{w['port']}`" if w["port"] != "—" else w["meaning"]
        rows.append((g["status_base"] + w["value"], w["name"], "R",
                     f"STATUS w{w['value'] + 2}: {port}"))
    for c in enum_values(en["link_counter"]):
        text = f"READ_COUNTERS w{c['value'] + 2}"
        if "latch" in c:
            text += f"; the read latches {c['latch']}"
        if c["name"].endswith("_HI"):
            text = "the latched high word"
        rows.append((g["counter_base"] + c["value"], c["name"], "R", text))
    for f in enum_values(en["link_fault_word"]):
        rows.append((g["fault_base"] + f["value"], f["reg"], "R",
                     f"READ_FAULTS w{f['value'] + 2}: {f['meaning']}"))
    bits = "; ".join(f"bit {f['lsb']} {f['name']}: {f['meaning']}"
                     for f in en["cmd_field"]["values"])
    rows.append((g["cmd"], "CMD", "W1", bits + "; reads 0"))
    n = len(en["link_counter"]["values"])
    rows.append((g["snap_base"], "SNAP", "R",
                 f"0x{g['snap_base']:02X} + i (i < {n}): READ_COUNTERS w(2 + i) as the "
                 "last SNAPSHOT took them (`_HI` words included, no latch)"))
    seen = {}
    for a, name, _, _ in rows:
        if a in seen or a >= 1 << g["addr_bits"]:
            sys.exit(f"{SPEC}: register {name} at 0x{a:02X} overlaps {seen.get(a)} or is out of range")
        seen[a] = name
    if g["snap_base"] + n > 1 << g["addr_bits"]:
        sys.exit(f"{SPEC}: SNAP runs past the address space")
    return sorted(rows)


def hexv(v, bits):
    return f"0x{v:0{max(2, (bits + 3) // 4)}X}"


# ---- C ----------------------------------------------------------------------

def c_header(spec):
    L = [f"/* SPDX-License-Identifier: Apache-2.0 */",
         f"/* ftpu_spec.h - {NOTE}. */",
         "/*", " * The link protocol (docs/protocol.md), the instruction set (docs/isa.md),",
         " * the control-plane registers (docs/registers.md) and the device",
         " * configurations, for C: host-lib, the firmware, the C model and tests.",
         " * Freestanding: constants only.", " */",
         "#ifndef FTPU_SPEC_H", "#define FTPU_SPEC_H", ""]
    for name, c in spec["const"].items():
        v = c["value"]
        txt = hexv(v, c.get("bits", 8)) if c.get("hex") else str(v)
        L.append(f"#define FTPU_{name} {txt}u /* {c['doc']} */")
    L.append("")
    for key, e in spec["enum"].items():
        rows = enum_values(e)
        L.append(f"/* {e['doc']} */")
        if e.get("kind") == "fields":
            for r in rows:
                L.append(f"#define {e['c_prefix']}{r['name']}_LSB {r['lsb']}u")
                L.append(f"#define {e['c_prefix']}{r['name']}_WIDTH {r['width']}u")
        elif "c_enum" in e:
            L.append(f"enum {e['c_enum']} {{")
            for r in rows:
                v = hexv(r["value"], e["bits"]) if e.get("hex") else str(r["value"])
                L.append(f"\t{e['c_prefix']}{r['name']} = {v},")
            if "count_name" in e:
                L.append(f"\t{e['c_prefix']}{e['count_name']} = {len(rows)},")
            L.append("};")
            if "max_name" in e:
                L.append(f"#define {e['max_name']} {max(r['value'] for r in rows)}")
        else:
            for r in rows:
                L.append(f"#define {e['c_prefix']}{r['name']} {hexv(r['value'], e['bits'])}u")
        L.append("")
    L.append("/* Control-plane register word addresses (docs/registers.md). */")
    L.append("enum ftpu_reg {")
    for a, name, _, _ in registers(spec):
        L.append(f"\tFTPU_REG_{name} = 0x{a:02X},")
    L.append("};")
    L.append("")
    L.append("/* Device configurations: FTPU_DEV_<CONFIG>_<PARAM> (mk/spec.mk has the")
    L.append(" * same as -D lists for the models and tests built for one of them). */")
    for name, d in devices(spec).items():
        up = name.upper()
        for p, s in DEVICE_PARAMS + OPTIONAL_PARAMS + [("RowDelay", "ROW_DELAY"), ("WeightTiles", "WEIGHT_TILES")]:
            if p in d:
                L.append(f"#define FTPU_DEV_{up}_{s} {d[p]}u")
    L += ["", "#endif /* FTPU_SPEC_H */", ""]
    return "\n".join(L)


# ---- SystemVerilog ------------------------------------------------------------

def sv_lit(v, bits, hexa):
    if hexa or bits >= 16:
        h = f"{v:0{(bits + 3) // 4}X}"
        if len(h) > 4:
            h = "_".join(h[max(0, i - 4):i] for i in range(len(h), 0, -4)[::-1])
        return f"{bits}'h{h}"
    return f"{bits}'d{v}"


def round_sig(x, bits):
    """The positive rational x rounded to bits significant bits, ties to even."""
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Fraction(2) ** e > x:
        e -= 1
    scale = Fraction(2) ** (bits - 1 - e)
    m = x * scale
    q, r = divmod(m.numerator, m.denominator)
    if 2 * r > m.denominator or (2 * r == m.denominator and q % 2):
        q += 1
    return q / scale


def unorm8_bf16(p):
    """bf16 bits of p / 255 as the host computes it: the fp32 quotient
    (correctly rounded), then rounded to bf16, both to nearest even."""
    if p == 0:
        return 0
    v = round_sig(round_sig(Fraction(p, 255), 24), 8)
    e = v.numerator.bit_length() - v.denominator.bit_length()
    if Fraction(2) ** e > v:
        e -= 1
    frac = v / Fraction(2) ** e - 1  # in [0, 1), a multiple of 2^-7
    return (e + 127) << 7 | int(frac * 128)


def sv_package(spec):
    L = [f"// SPDX-License-Identifier: Apache-2.0", f"// ftpu_pkg.sv - {NOTE}.",
         "// The protocol, ISA and register constants for the RTL, used as",
         "// ftpu_pkg::NAME (Yosys reads packages but not import).",
         "// Each module uses a few of these: unused ones are not a finding.",
         "/* verilator lint_off UNUSEDPARAM */", "package ftpu_pkg;", ""]
    for name, c in spec["const"].items():
        if "bits" in c:
            L.append(f"  localparam logic [{c['bits'] - 1}:0] {name} = {sv_lit(c['value'], c['bits'], c.get('hex'))};  // {c['doc']}")
        else:
            L.append(f"  localparam int unsigned {name} = {c['value']};  // {c['doc']}")
    L.append("")
    for key, e in spec["enum"].items():
        rows = enum_values(e)
        L.append(f"  // {e['doc']}")
        if e.get("kind") == "fields":
            for r in rows:
                L.append(f"  localparam int unsigned {e['sv_prefix']}{r['name']}_LSB = {r['lsb']};")
                L.append(f"  localparam int unsigned {e['sv_prefix']}{r['name']}_WIDTH = {r['width']};")
        else:
            b = e["bits"]
            for r in rows:
                L.append(f"  localparam logic [{b - 1}:0] {e['sv_prefix']}{r['name']} = {sv_lit(r['value'], b, e.get('hex'))};")
            if "count_name" in e:
                L.append(f"  localparam int unsigned {e['sv_prefix']}{e['count_name']} = {len(rows)};")
            if "max_name" in e:
                L.append(f"  localparam int unsigned {e['sv_prefix']}MAX = {max(r['value'] for r in rows)};")
        L.append("")
    g = spec["registers"]
    ab = g["addr_bits"]
    L.append("  // Control-plane register word addresses (docs/registers.md).")
    for a, name, _, _ in registers(spec):
        L.append(f"  localparam logic [{ab - 1}:0] REG_{name} = {sv_lit(a, ab, True)};")
    for k in ("info_base", "status_base", "counter_base", "fault_base", "snap_base"):
        L.append(f"  localparam logic [{ab - 1}:0] REG_{k.upper()} = {sv_lit(g[k], ab, True)};")
    L.append("")
    L.append("  // Clocks an fp32 add takes with pipeline cuts at the set bits of cuts[2:0]")
    L.append("  // (ftpu_fp32_add), and the cycles a partial sum spends in a PE: one more.")
    L.append("  // gen.py's row_delay() is the same formula for the build and the host.")
    L.append("  function automatic integer add_latency(input integer cuts);")
    L.append("    add_latency = (cuts & 1) + ((cuts >> 1) & 1) + ((cuts >> 2) & 1);")
    L.append("  endfunction")
    L.append("  function automatic integer row_delay(input integer cuts);")
    L.append("    row_delay = 1 + add_latency(cuts);")
    L.append("  endfunction")
    L.append("")
    L.append("  // HOST_READ U8 (UNORM8): byte p as bf16(p / 255), the host's fp32")
    L.append("  // division rounded to nearest even; computed exactly by gen.py.")
    L.append("  function automatic logic [15:0] unorm8_bf16(input logic [7:0] p);")
    L.append("    unique case (p)")
    for p in range(256):
        L.append(f"      8'd{p}: unorm8_bf16 = 16'h{unorm8_bf16(p):04X};")
    L.append("    endcase")
    L.append("  endfunction")
    L.append("")
    L.append("  // Device configurations: <CONFIG>_<Param> (ftpu_top's defaults are DEFAULT_*).")
    for name, d in devices(spec).items():
        for p, _ in DEVICE_PARAMS + OPTIONAL_PARAMS:
            if p in d:
                L.append(f"  localparam int unsigned {name.upper()}_{p} = {d[p]};")
    L += ["", "endpackage", "/* verilator lint_on UNUSEDPARAM */", ""]
    return "\n".join(L)


# ---- make ---------------------------------------------------------------------

def make_fragment(spec):
    L = [f"# spec.mk - {NOTE}.",
         "# Every device configuration of the spec: SPEC_<config>_PARAMS (name=value,",
         "# as board.mk and the synthesis scripts take them), _VFLAGS (Verilator",
         "# -G list), _DEFINES (the same as -DFTPU_DEV_* for shims and tests),",
         "# _ROW_DELAY; SPEC_ROW_DELAY_<cuts> for the lanes and array models.", ""]
    devs = devices(spec)
    L.append(f"SPEC_DEVICES := {' '.join(devs)}")
    for name, d in devs.items():
        ps = [(p, s) for p, s in DEVICE_PARAMS + OPTIONAL_PARAMS if p in d]
        L.append(f"SPEC_{name}_PARAMS := {' '.join(f'{p}={d[p]}' for p, _ in ps)}")
        L.append(f"SPEC_{name}_VFLAGS := {' '.join(f'-G{p}={d[p]}' for p, _ in ps)}")
        defs = [f"-DFTPU_DEV_{s}={d[p]}" for p, s in ps]
        defs += [f"-DFTPU_DEV_ROW_DELAY={d['RowDelay']}", f"-DFTPU_DEV_WEIGHT_TILES={d['WeightTiles']}"]
        L.append(f"SPEC_{name}_DEFINES := {' '.join(defs)}")
        L.append(f"SPEC_{name}_ROW_DELAY := {d['RowDelay']}")
        for p, _ in ps + [("RowDelay", ""), ("WeightTiles", "")]:
            L.append(f"SPEC_{name}_{p} := {d[p]}")
    for cuts in range(8):
        L.append(f"SPEC_ROW_DELAY_{cuts} := {row_delay(cuts)}")
    L.append(f"SPEC_MAX_PAYLOAD := {spec['const']['LINK_MAX_PAYLOAD']['value']}")
    L.append("# $(call spec_param,<config>,<Param>): one value, e.g. $(call spec_param,control,N)")
    L.append("spec_param = $(SPEC_$(1)_$(2))")
    L.append("")
    return "\n".join(L)


# ---- docs tables ----------------------------------------------------------------

def md_table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def doc_tables(spec):
    """{(doc, name): markdown} of every generated table."""
    en = spec["enum"]
    consts = {k: v["value"] for k, v in spec["const"].items()}

    def fmt(s):
        return s.format(**consts)

    def rows(key):
        return enum_values(en[key])

    t = {}
    t["docs/protocol.md", "frame-types"] = md_table(
        ["type", "name", "direction", "payload", "answered by"],
        [(f"0x{r['value']:02x}", r["name"], r["dir"], r["payload"], r["answer"]) for r in rows("link_type")])
    t["docs/protocol.md", "errors"] = md_table(
        ["code", "name", "when", "recovery"],
        [(r["value"], r["name"], fmt(r["when"]), r["recovery"]) for r in rows("link_err")])
    t["docs/protocol.md", "control-ops"] = md_table(
        ["op", "name", "does"], [(r["value"], r["name"], r["does"]) for r in rows("link_op")])
    t["docs/protocol.md", "response-status"] = md_table(
        ["status", "name", "meaning"], [(r["value"], r["name"], r["meaning"]) for r in rows("link_resp")])
    t["docs/protocol.md", "info-keys"] = md_table(
        ["key", "name", "value"], [(r["value"], r["name"], fmt(r["meaning"])) for r in rows("link_info")])
    t["docs/protocol.md", "info-features"] = md_table(
        ["bit", "name", "device parameter", "set when the device has"],
        [(r["lsb"], r["name"], r["param"], r["meaning"]) for r in rows("link_feature")])
    t["docs/protocol.md", "status-words"] = md_table(
        ["word", "content"], [(f"w{r['value'] + 2}", r["meaning"]) for r in rows("link_status")])
    t["docs/protocol.md", "counters"] = md_table(
        ["word", "name", "counts"], [(f"w{r['value'] + 2}", r["short"], r["counts"]) for r in rows("link_counter")])
    t["docs/protocol.md", "fault-words"] = md_table(
        ["word", "content"], [(f"w{r['value'] + 2}", r["meaning"]) for r in rows("link_fault_word")])
    t["docs/isa.md", "opcodes"] = md_table(
        ["opcode", "name", "flags", "operand A", "operand B", "does"],
        [(f"0x{r['value']:02X}", r["name"], r["flags"], r["a"], r["b"], r["does"]) for r in rows("opcode")])
    ops = {r["value"] for r in rows("opcode")}
    clash = [r["name"] for r in rows("vector_opcode") if r["value"] in ops]
    if clash:
        sys.exit(f"{SPEC}: vector opcodes {clash} reuse an opcode")
    t["docs/vector.md", "vector-opcodes"] = md_table(
        ["opcode", "name", "flags", "does"],
        [(f"0x{r['value']:02X}", r["name"], r["flags"], r["does"]) for r in rows("vector_opcode")])
    t["docs/isa.md", "faults"] = md_table(
        ["code", "fault"], [(r["value"], r["meaning"]) for r in rows("fault")])
    t["docs/registers.md", "registers"] = md_table(
        ["addr", "name", "access", "content"],
        [(f"0x{a:02X}", n, acc, txt) for a, n, acc, txt in registers(spec)])
    t["docs/soft_device.md", "soc-mmio"] = md_table(
        ["address", "name", "access and content"],
        [(f"`0x{r['value']:08X}`", r["name"], r["meaning"]) for r in rows("soc_mmio")])
    devs = devices(spec)
    t["docs/boards.md", "configurations"] = md_table(
        ["configuration", "N", "AddCuts (ROW_DELAY)", "UB vectors", "WM rows (tiles)", "ACC vectors",
         "BIAS vectors", "IQ words", "clock", "link bytes/cycle", "vector unit", "dispatch", "activation lanes",
         "column skew", "extra pipeline registers (PipeRegs)", "what it is"],
        [(n, d["N"], f"{d['AddCuts']} ({d['RowDelay']})", d["UbVectors"],
          f"{d['WmRows']} ({d['WeightTiles']})", d["AccVectors"], d["BiasVectors"], d["IqWords"],
          f"{d['ClockHz'] / 1e6:g} MHz", d["LinkBytes"], "yes" if d["VectorUnit"] else "no",
          "in order" if d["InOrder"] else "overlapped", d["ActLanes"] or d["N"],
          "systolic" if d["ColSkew"] else "broadcast", "yes" if d["PipeRegs"] else "no", d["doc"])
         for n, d in devs.items()])
    return t


def splice(text, name, table, path):
    begin = f"<!-- begin spec-{name}: {NOTE} -->"
    end = f"<!-- end spec-{name} -->"
    lines = text.split("\n")
    try:
        i = next(k for k, l in enumerate(lines) if l.startswith(f"<!-- begin spec-{name}:"))
        j = next(k for k in range(i, len(lines)) if lines[k] == end)
    except StopIteration:
        sys.exit(f"{path}: no '<!-- begin spec-{name}: ... -->' ... '{end}' markers")
    return "\n".join(lines[:i] + [begin] + table.split("\n") + lines[j:])


# ---- main -----------------------------------------------------------------------

def outputs(spec):
    files = {
        "proto/ftpu_spec.h": c_header(spec),
        "rtl/ftpu_pkg.sv": sv_package(spec),
        "mk/spec.mk": make_fragment(spec),
    }
    docs = {}
    for (doc, name), table in doc_tables(spec).items():
        if doc not in docs:
            with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
                docs[doc] = f.read()
        docs[doc] = splice(docs[doc], name, table, doc)
    files.update(docs)
    return files


def main():
    check = "--check" in sys.argv[1:]
    bad = 0
    for path, want in outputs(load()).items():
        full = os.path.join(ROOT, path)
        try:
            with open(full, encoding="utf-8") as f:
                have = f.read()
        except FileNotFoundError:
            have = None
        if have == want:
            continue
        if check:
            bad += 1
            print(f"spec: {path} disagrees with {SPEC} (run make spec, or edit the spec):", file=sys.stderr)
            diff = difflib.unified_diff((have or "").splitlines(), want.splitlines(),
                                        f"{path} (as is)", f"{path} (from the spec)", lineterm="", n=1)
            for k, l in enumerate(diff):
                if k >= 20:
                    print("  ...", file=sys.stderr)
                    break
                print("  " + l, file=sys.stderr)
        else:
            os.makedirs(os.path.dirname(full), exist_ok=True)
            tmp = full + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(want)
            os.replace(tmp, full)
            print(f"spec: wrote {path}")
    if check:
        if bad:
            sys.exit(1)
        print(f"spec: every generated file agrees with {SPEC}")


if __name__ == "__main__":
    main()
