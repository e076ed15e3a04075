#!/usr/bin/env python3
"""Program output quoted in a doc, checked against the program or refreshed.

A doc marks each quoted output with the command that prints it:

    <!-- begin output NAME: COMMAND -->
    ```
    ...what COMMAND prints...
    ```
    <!-- end output NAME -->

  outputs.py check DOC [NAME...]    run each command (from the repository
                                    root), fail when its output differs
  outputs.py update DOC [NAME...]   run them and write their output in

Each command runs on a pseudo-terminal, so what is compared is what a
user sees (a progress line redrawn in place counts once, as last drawn).
Wall-clock figures (seconds, m:ss, rates per second) differ from run to
run; they are compared as placeholders, everything else character for
character. Without NAMEs every marked output of DOC is taken.
"""
import difflib
import os
import pty
import re
import select
import subprocess
import sys
import tempfile
import time

ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
BEGIN = re.compile(r"^<!-- begin output ([\w-]+): (.+) -->$")
TIMEOUT_S = 3600

# What a second run prints differently: durations and rates by the clock.
VOLATILE = [
    re.compile(r"\b\d+(\.\d+)?( ?(s|ms|min)\b)"),       # 606.7 s, 15 s, 3 ms
    re.compile(r"\b\d+:\d\d\b"),                        # 9:27
    re.compile(r"\b\d+(\.\d+)? ?[kMG]?(steps|samples|calls|MAC|B)/s\b"),
]


def mask(text):
    for pattern in VOLATILE:
        text = pattern.sub("<time>", text)
    return text


def blocks(lines):
    """(name, command, first line of the fenced text, its end) per marker."""
    found = []
    for i, line in enumerate(lines):
        m = BEGIN.match(line)
        if not m:
            continue
        name, cmd = m.group(1), m.group(2)
        end = lines.index(f"<!-- end output {name} -->", i)
        if not (lines[i + 1].startswith("```") and lines[end - 1] == "```"):
            sys.exit(f"outputs.py: output {name}: a fenced block must stand between its markers")
        found.append((name, cmd, i + 2, end - 1))
    return found


def run(name, cmd):
    """What cmd shows on a terminal: it runs on a pseudo-terminal (so a
    progress line is redrawn in place, as a user sees it), and of a line
    redrawn with carriage returns the last drawing is kept."""
    master, slave = pty.openpty()
    with tempfile.TemporaryFile() as err:
        p = subprocess.Popen(["bash", "-c", cmd], stdin=subprocess.DEVNULL, stdout=slave,
                             stderr=err)
        os.close(slave)
        out, deadline = [], time.monotonic() + TIMEOUT_S
        while True:
            if time.monotonic() > deadline:
                p.kill()
                sys.exit(f"outputs.py: output {name}: '{cmd}' ran over {TIMEOUT_S} s")
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the last writer closed the terminal
                data = b""
            if not data:
                break
            out.append(data)
        os.close(master)
        rc = p.wait()
        err.seek(0)
        if rc != 0:
            sys.exit(f"outputs.py: output {name}: '{cmd}' failed ({rc}):\n"
                     + err.read().decode(errors="replace"))
    text = b"".join(out).decode(errors="replace").replace("\r\n", "\n")
    text = ESCAPES.sub("", text)  # erase-line and the like: nothing to see
    return [line.rsplit("\r", 1)[-1] for line in text.rstrip("\n").split("\n")]


def main(argv):
    if len(argv) < 3 or argv[1] not in ("check", "update"):
        sys.exit(__doc__)
    mode, doc, names = argv[1], argv[2], set(argv[3:])
    lines = open(doc, encoding="utf-8").read().split("\n")
    todo = [b for b in blocks(lines) if not names or b[0] in names]
    missing = names - {b[0] for b in todo}
    if missing:
        sys.exit(f"outputs.py: {doc} has no output {', '.join(sorted(missing))}")
    stale = 0
    for name, cmd, first, end in reversed(todo):
        got = run(name, cmd)
        quoted = lines[first:end]
        if mode == "update":
            lines[first:end] = got
        elif [mask(x) for x in got] != [mask(x) for x in quoted]:
            stale += 1
            print(f"{doc}: output {name} is stale ('{cmd}' now prints):", file=sys.stderr)
            for line in difflib.unified_diff(quoted, got, "doc", "now", lineterm=""):
                print("  " + line, file=sys.stderr)
    if mode == "update":
        with open(doc, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        print(f"outputs.py: {doc}: {len(todo)} output(s) written")
    elif stale:
        sys.exit(f"outputs.py: {stale} stale output(s) in {doc}: "
                 f"python3 scripts/docs/outputs.py update {doc} {' '.join(sorted(names))}")
    else:
        print(f"outputs.py: {doc}: {len(todo)} quoted output(s) match")


if __name__ == "__main__":
    main(sys.argv)
