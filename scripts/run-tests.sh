#!/usr/bin/env bash
# Run test binaries, print each one's result and a closing summary line.
# Usage: run-tests.sh TEST...   (FTPU_FULL=1 selects the long variants)
set -u
pass=0 fail=0 cases=0 bad=0 failed=()
start=$SECONDS
for t in "$@"; do
  name=${t##*/}
  t0=$SECONDS
  if "$t" > "$t.log" 2>&1; then
    pass=$((pass + 1)); status=ok
  else
    fail=$((fail + 1)); status=FAIL; failed+=("$name")
  fi
  # cmocka prints "[  PASSED  ] N test(s)."; keep that count in the summary.
  n=$(grep -oE '\[  PASSED  \] [0-9]+' "$t.log" | awk '{s += $4} END {print s + 0}')
  f=$(grep -oE '\[  FAILED  \] [0-9]+' "$t.log" | awk '{s += $4} END {print s + 0}')
  # A binary that failed without cmocka's summary (a crash) counts as one.
  [[ $status == FAIL && $f == 0 ]] && f=1
  cases=$((cases + n)) bad=$((bad + f))
  printf '%-28s %-4s %4ds  %s cases passed, %s failed\n' "$name" "$status" $((SECONDS - t0)) "$n" "$f"
  [[ $status == FAIL ]] && tail -30 "$t.log"
done
echo "test binaries: $pass ok, $fail failed, in $((SECONDS - start))s"
# The closing line CI reads: test cases over all binaries.
echo "$cases passed, $bad failed"
((fail == 0)) || { echo "failed: ${failed[*]}"; exit 1; }
