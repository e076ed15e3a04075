#!/usr/bin/env bash
# rom_check.sh ELF ROM_BYTES - prints a firmware image's sections and fails,
# saying by how much, when what the ROM must hold (code, constants and
# .data's initial values: __image_end, the linker script's) exceeds
# ROM_BYTES.
set -euo pipefail
elf=$1 rom=$2
name=${elf%.tmp} # the image being made (make links it under a temporary name)
prefix=${RV_PREFIX:-riscv64-unknown-elf-}
"${prefix}size" -A "$elf" | awk -v rom="$rom" -v name="$name" '
	$1 ~ /^\.(text|rodata|data|bss|noinit)$/ { s[$1] = $2 }
	END {
		printf "%s: text %d, rodata %d, data %d (ROM %d of %d bytes); bss %d, noinit %d (RAM)\n",
			name, s[".text"], s[".rodata"], s[".data"],
			s[".text"] + s[".rodata"] + s[".data"], rom, s[".bss"], s[".noinit"]
	}'
end=$("${prefix}nm" "$elf" | awk '$3 == "__image_end" { print $1 }')
if [ -z "$end" ]; then
	echo "rom_check: $name has no __image_end symbol (its linker script defines it)" >&2
	exit 1
fi
img=$((16#$end))
if [ "$img" -gt "$rom" ]; then
	echo "rom_check: $name needs $img bytes of ROM, $((img - rom)) more than the ROM's $rom" >&2
	exit 1
fi
