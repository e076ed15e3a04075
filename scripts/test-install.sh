#!/usr/bin/env bash
# make install into a temporary prefix, then build the README's example
# against the installed library with pkg-config and run it, and run the
# installed ftpu command: what a user of the installed library does.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
make -s install PREFIX="$prefix" BUILD="${BUILD:-build}" > "$prefix/install.log"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cc -std=c11 -Wall -Werror examples/hello_gemm.c $(pkg-config --cflags --libs ftpu) \
	-o "$prefix/hello_gemm"
echo "installed: $(ls "$prefix/lib" | tr '\n' ' ')"
LD_LIBRARY_PATH="$prefix/lib" "$prefix/hello_gemm"
"$prefix/bin/ftpu" info ref | head -3
# Only the public API is exported.
if nm -D --defined-only "$prefix/lib/libftpu.so" | awk '{print $3}' | grep -v -e '^ftpu_' -e '^FTPU_0$' | grep -q .; then
	echo "libftpu.so exports more than ftpu_*:"; nm -D --defined-only "$prefix/lib/libftpu.so" | head
	exit 1
fi
echo "install check passed"
# counted like the cmocka binaries: install + example, command, exports
echo "[  PASSED  ] 3 test(s)."
