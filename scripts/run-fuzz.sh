#!/usr/bin/env bash
# Run libFuzzer targets one after the other and print a table: executions,
# seconds, executions per second, corpus size, result (mk/fuzz.mk).
# Usage: run-fuzz.sh FUZZ_DIR "LIBFUZZER FLAGS" NAME=MAX_LEN...
# Each NAME runs $FUZZ_DIR/fuzz_NAME on $FUZZ_DIR/NAME (the growing
# corpus) and tests/fuzz/corpus/NAME (the seeds); its output goes to
# $FUZZ_DIR/NAME.log, a crash's input to $FUZZ_DIR/NAME-crash-*.
set -u
dir=$1 flags=$2
shift 2
rows=() failed=()
for spec in "$@"; do
  name=${spec%%=*} max_len=${spec#*=}
  bin=$dir/fuzz_$name log=$dir/$name.log
  mkdir -p "$dir/$name"
  echo "== fuzz $name: $bin $flags -max_len=$max_len"
  # shellcheck disable=SC2086
  t0=$SECONDS
  "$bin" "$dir/$name" "tests/fuzz/corpus/$name" $flags -max_len="$max_len" \
    -print_final_stats=1 -artifact_prefix="$dir/$name-" > "$log" 2>&1
  rc=$?
  execs=$(awk '/stat::number_of_executed_units:/ {print $2}' "$log" | tail -1)
  secs=$(awk '/^Done [0-9]+ runs in/ {print $5}' "$log" | tail -1)
  # libFuzzer's own count of seconds; the wall time when it stopped early
  [[ -z $secs ]] && secs=$((SECONDS - t0))
  files=$(find "$dir/$name" -type f | wc -l)
  if ((rc == 0)); then
    result=ok
  else
    result="FAIL (rc $rc): $(grep -oE "Test unit written to [^ ]+" "$log" | tail -1)"
    failed+=("$name")
    grep -E "ERROR|SUMMARY|==[0-9]+==" "$log" | head -5
  fi
  rate=?
  [[ $execs =~ ^[0-9]+$ && $secs =~ ^[0-9]+$ && $secs -gt 0 ]] && rate=$((execs / secs))
  rows+=("$(printf '%-14s %12s %8s %10s %8s  %s' "$name" "${execs:-?}" "${secs:-?}" \
    "$rate" "$files" "$result")")
done
printf '%-14s %12s %8s %10s %8s  %s\n' target execs seconds exec/s corpus result
printf '%s\n' "${rows[@]}"
((${#failed[@]} == 0)) || { echo "fuzz: failed: ${failed[*]}"; exit 1; }
