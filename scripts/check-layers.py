#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks every #include "..." of the C/C++ sources against the layers.

Usage (the Makefile's LAYERS table, make test): check-layers.py 'KEY|-IA -IB|ROOT ...' ...
KEY is a folder or a file (the most specific key of a file is its layer), then
its include path, then folders it may reach by a relative include. An
include must resolve, as the compiler resolves it (the file's folder, then
-I in order), to a file in the layer's own folder, an -I folder or a root;
a name that exists in the tree but not on that path is an error too.
"""
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
EXTS = ('.c', '.h', '.cpp', '.hpp')


def under(path, folder):
    return path == folder or path.startswith(folder.rstrip('/') + '/')


def main(args):
    layers = []
    for a in args:
        key, inc, roots = (a.split('|') + ['', ''])[:3]
        dirs = [f[2:] for f in inc.split() if f.startswith('-I')]
        own = os.path.dirname(key) if key.endswith(EXTS) else key
        layers.append((key, dirs, [own] + dirs + roots.split()))
    files = subprocess.run(['git', 'ls-files', '-co', '--exclude-standard'],
                           capture_output=True, text=True, check=True).stdout.split()
    files = [f for f in files if f.endswith(EXTS) and os.path.exists(f)]
    names = {os.path.basename(f) for f in files}
    bad = 0
    for f in files:
        layer = next((l for l in layers if under(f, l[0])), None)
        if not layer:
            continue
        key, dirs, allowed = layer
        with open(f, encoding='utf-8', errors='replace') as fh:
            text = fh.read()
        for m in INCLUDE.finditer(text):
            name = m.group(1)
            line = text.count('\n', 0, m.start()) + 1
            found = None
            for d in [os.path.dirname(f)] + dirs:
                p = os.path.normpath(os.path.join(d, name))
                if os.path.isfile(p):
                    found = p
                    break
            if found is None:
                if os.path.basename(name) in names:
                    print(f'{f}:{line}: "{name}" is not on layer {key}\'s include path')
                    bad += 1
                continue
            if not any(under(found, a) for a in allowed):
                print(f'{f}:{line}: "{name}" is {found}, above or beside layer {key} '
                      f'(allowed: {" ".join(allowed)})')
                bad += 1
    if bad:
        print(f'check-layers: {bad} include(s) cross a layer (Makefile LAYERS)')
        return 1
    print(f'check-layers: {len(files)} files, every include within its layer')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
