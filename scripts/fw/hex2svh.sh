#!/usr/bin/env bash
# hex2svh.sh IN.hex OUT.svh - a $readmemh image (32-bit words, `@` word
# addresses) as SystemVerilog assignments to `mem`, which ftpu_cpu_mem
# includes when InitFile is "embedded": the simulated device then carries
# its firmware inside the model and needs no file at run time.
set -euo pipefail
awk '
	function hex(s,    i, v) { # mawk has no strtonum
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", tolower(substr(s, i, 1))) - 1
		return v
	}
	BEGIN { addr = 0 }
	{ sub(/\r$/, "") } # objcopy writes CRLF
	/^@/ { addr = hex(substr($1, 2)); next }
	{
		for (i = 1; i <= NF; i++)
			printf "mem[%d] = 32'"'"'h%s;\n", addr++, $i
	}
' "$1" > "$2.tmp"
mv "$2.tmp" "$2"
