#!/usr/bin/env bash
# Put generated text into a hand-written doc: replaces what stands between
#   <!-- begin NAME: ... -->   and   <!-- end NAME -->
# in DOC with the contents of FILE (the marker lines stay). The doc is
# rewritten only when the text changed.
#
#   bash scripts/docs/splice.sh DOC NAME FILE
set -euo pipefail
doc=$1 name=$2 file=$3
grep -q "^<!-- begin $name: " "$doc" && grep -q "^<!-- end $name -->" "$doc" \
	|| { echo "splice.sh: $doc has no '$name' markers" >&2; exit 1; }
awk -v name="$name" -v file="$file" '
	index($0, "<!-- begin " name ": ") == 1 { print; while ((getline line < file) > 0) print line; skip = 1; next }
	$0 == "<!-- end " name " -->" { skip = 0 }
	!skip { print }' "$doc" > "$doc.tmp"
if cmp -s "$doc" "$doc.tmp"; then rm "$doc.tmp"; else mv "$doc.tmp" "$doc"; echo "updated $doc ($name)"; fi
