#!/usr/bin/env bash
# One case of the broken-kernel corpus: runs ./tilelab diagnose and checks its report.
#   expect.sh CLI LAB FILE STATUS [--dataset DIR] -- PATTERN...
# In each PATTERN (grep -E), @BUG@ and @BUG2@ stand for the line numbers of the lines of FILE
# marked "// BUG" and "// BUG2", so the tests follow the files when they are edited.
set -u
cli="$1" lab="$2" file="$3" status="$4"; shift 4
extra=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do extra+=("$1"); shift; done
shift
bug=$(grep -n '// BUG:' "$file" | head -1 | cut -d: -f1)
bug2=$(grep -n '// BUG2:' "$file" | head -1 | cut -d: -f1)
out="$("$cli" diagnose "$lab" --source "$file" "${extra[@]+"${extra[@]}"}" 2>&1)"; rc=$?
echo "$out"
fail=0
[ "$rc" = "$status" ] || { echo "FAIL: exit status $rc, expected $status"; fail=1; }
for pattern in "$@"; do
  re="${pattern//@BUG@/${bug:-none}}"; re="${re//@BUG2@/${bug2:-none}}"
  echo "$out" | grep -Eq -- "$re" || { echo "FAIL: no line matches /$re/"; fail=1; }
done
exit $fail
