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
# The rules went under the prefix, where udev does not read them: make
# install says so and how to put them where it does, not "reload udev".
if ! grep -q "rules.d/99-ftpu.rules, where udev does not read them" "$prefix/install.log" ||
   ! grep -q "sudo cp $prefix/lib/udev/rules.d/99-ftpu.rules /etc/udev/rules.d/" "$prefix/install.log"; then
	echo "make install PREFIX=$prefix: misleading udev message:"; cat "$prefix/install.log"; exit 1
fi
cc -std=c11 -Wall -Werror examples/hello_gemm.c $(pkg-config --cflags --libs ftpu) \
	-o "$prefix/hello_gemm"
echo "installed: $(ls "$prefix/lib" | tr '\n' ' ')"
LD_LIBRARY_PATH="$prefix/lib" "$prefix/hello_gemm"
"$prefix/bin/ftpu" info ref | head -3
# A program linked with the static library has no simulated device: "sim"
# fails with a reason that says what an installed user can do (the shared
# library, or "ref"), not a path in the source tree.
cat > "$prefix/static_sim.c" <<'EOF'
#include <stdio.h>
#include <ftpu.h>
int main(void)
{
	ftpu_device *dev;
	int ret = ftpu_open("sim", &dev);
	printf("%s\n", ftpu_last_error(NULL));
	return ret != FTPU_ERR_UNSUPPORTED;
}
EOF
# Linked as ftpu.pc says, from pkg-config --static (the libraries libftpu.a
# needs; no -ludev: Debian has no libudev.a, and no libudev.so link
# without libudev-dev).
static_libs=$(pkg-config --static --libs ftpu)
cc -std=c11 -Wall -Werror "$prefix/static_sim.c" $(pkg-config --cflags ftpu) \
	${static_libs/-lftpu/-l:libftpu.a} -o "$prefix/static_sim"
if readelf -d "$prefix/static_sim" | grep -q 'NEEDED.*libftpu'; then
	echo "static library: the program links libftpu.so"; exit 1
fi
why=$("$prefix/static_sim") || { echo "static library: sim did not fail as unsupported: $why"; exit 1; }
if [[ $why != *-lftpu* || $why != *'"ref"'* || $why == *mk/* ]]; then
	echo "static library: sim's reason does not tell an installed user what to do: $why"
	exit 1
fi
echo "static: $why"
# Only the public API is exported.
if nm -D --defined-only "$prefix/lib/libftpu.so" | awk '{print $3}' | grep -v -e '^ftpu_' -e '^FTPU_0$' | grep -q .; then
	echo "libftpu.so exports more than ftpu_*:"; nm -D --defined-only "$prefix/lib/libftpu.so" | head
	exit 1
fi
echo "install check passed"
# counted like the cmocka binaries: install + example, udev message,
# command, static library (pkg-config --static, its sim), exports
echo "[  PASSED  ] 5 test(s)."
