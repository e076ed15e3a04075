#!/usr/bin/env bash
# Run test binaries, JOBS at a time, print each one's result as it ends and
# a closing summary line.
# Usage: run-tests.sh TEST...   (FTPU_FULL=1 selects the long variants;
# JOBS=N runs N binaries at once, default: the number of cores)
set -u
jobs=${JOBS:-$(nproc)}
((jobs >= 1)) || jobs=1
pass=0 fail=0 cases=0 bad=0 failed=()
start=$SECONDS

# Longest first (by the last run's time, kept next to each log), so that a
# long simulation does not start last and leave the other cores idle.
order=()
while read -r _ t; do order+=("$t"); done < <(
  for t in "$@"; do
    s=0; [[ -f $t.seconds ]] && s=$(< "$t.seconds")
    printf '%s %s\n' "$s" "$t"
  done | sort -s -k1,1nr)

# One binary: its log, its seconds and its exit status next to it.
run_one() {
  local t=$1 t0=$SECONDS rc=0
  "$t" > "$t.log" 2>&1 || rc=$?
  echo $((SECONDS - t0)) > "$t.seconds.new"
  echo "$rc" > "$t.rc"
}

report() {
  local t=$1 name=${1##*/} status=ok n f
  mv -f "$t.seconds.new" "$t.seconds"
  if [[ $(< "$t.rc") == 0 ]]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); status=FAIL; failed+=("$name")
  fi
  # cmocka prints "[  PASSED  ] N test(s)."; keep that count in the summary.
  n=$(grep -oE '\[  PASSED  \] [0-9]+' "$t.log" | awk '{s += $4} END {print s + 0}')
  f=$(grep -oE '\[  FAILED  \] [0-9]+' "$t.log" | awk '{s += $4} END {print s + 0}')
  # A binary that failed without cmocka's summary (a crash) counts as one.
  [[ $status == FAIL && $f == 0 ]] && f=1
  cases=$((cases + n)) bad=$((bad + f))
  printf '%-28s %-4s %4ss  %s cases passed, %s failed\n' "$name" "$status" \
    "$(< "$t.seconds")" "$n" "$f"
  [[ $status == FAIL ]] && tail -30 "$t.log"
  rm -f "$t.rc"
}

declare -A running=()   # pid -> test binary
for t in "${order[@]}"; do
  rm -f "$t.rc" "$t.seconds.new"
  run_one "$t" &
  running[$!]=$t
  while ((${#running[@]} >= jobs)); do
    wait -n
    for pid in "${!running[@]}"; do
      [[ -f ${running[$pid]}.rc ]] || continue
      wait "$pid"; report "${running[$pid]}"; unset "running[$pid]"
    done
  done
done
for pid in "${!running[@]}"; do
  wait "$pid"; report "${running[$pid]}"
done

echo "test binaries: $pass ok, $fail failed, in $((SECONDS - start))s ($jobs at a time)"
# The closing line CI reads: test cases over all binaries.
echo "$cases passed, $bad failed"
((fail == 0)) || { echo "failed: ${failed[*]}"; exit 1; }
