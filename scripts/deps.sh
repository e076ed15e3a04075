#!/usr/bin/env bash
# Install the Debian packages ftpu needs when they are missing.
# Called by make before anything is built; safe to run by hand.
# Root runs apt-get directly, others go through sudo; with neither we say
# exactly what to install and stop.
set -euo pipefail

# package:command-or-file that proves it is installed
need=(
  verilator:/usr/bin/verilator
  yosys:/usr/bin/yosys
  nextpnr-ice40:/usr/bin/nextpnr-ice40
  fpga-icestorm:/usr/bin/icepack
  libcmocka-dev:/usr/include/cmocka.h
  zlib1g-dev:/usr/include/zlib.h
  pkg-config:/usr/bin/pkg-config
  g++:/usr/bin/g++
  clang:/usr/bin/clang++
  make:/usr/bin/make
  libusb-1.0-0-dev:/usr/include/libusb-1.0/libusb.h
  libumockdev-dev:/usr/include/umockdev-1.0/umockdev.h
  umockdev:/usr/bin/umockdev-wrapper
  gcc-riscv64-unknown-elf:/usr/bin/riscv64-unknown-elf-gcc
)
# Extra groups, asked for by the targets that need them: FTPU_DEPS="demo boards"
for group in ${FTPU_DEPS:-}; do
  case $group in
    demo)   need+=(dataset-fashion-mnist:/usr/share/datasets/fashion-mnist) ;;
    boards) need+=(openfpgaloader:/usr/bin/openFPGALoader) ;;
    *) echo "deps.sh: unknown group '$group'" >&2; exit 2 ;;
  esac
done

missing=()
for entry in "${need[@]}"; do
  pkg=${entry%%:*} path=${entry#*:}
  [[ -e $path ]] || missing+=("$pkg")
done
((${#missing[@]} == 0)) && exit 0

echo "ftpu: installing missing Debian packages: ${missing[*]}"
if [[ $(id -u) -eq 0 ]]; then
  run=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  run=(sudo)
elif command -v sudo >/dev/null && [[ -t 0 ]]; then
  run=(sudo)   # interactive: sudo may ask for a password
else
  echo "ftpu: cannot install packages (not root, no usable sudo). Run:" >&2
  echo "  sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# A stale package list makes apt-get fail to find packages; refresh once.
"${run[@]}" apt-get update -qq
"${run[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
