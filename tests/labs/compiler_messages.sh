#!/usr/bin/env bash
# A file that does not build: each error shows the line as the student wrote it, a caret under
# the place the compiler means and, for the classic slips, a hint.
#   compiler_messages.sh CLI LAB SOURCE EXPECTED
# EXPECTED: blocks of lines separated by blank lines; each must appear in the messages as
# consecutive lines.
set -u
cli="$1" lab="$2" source="$3" expected="$4"
fail() { echo "FAIL: $*" >&2; exit 1; }
out="$("$cli" run "$lab" --source "$source" --build-only 2>&1)"; rc=$?
printf '%s\n' "$out"
[ "$rc" = 3 ] || fail "exited $rc, expected 3 (the file does not build)"
block="" n=0
check() {
  [ -n "$block" ] || return 0
  n=$((n + 1))
  [[ "$out" == *"$block"* ]] || fail "the messages lack these lines (block $n of $expected):
$block"
  block=""
}
while IFS= read -r line || [ -n "$line" ]; do
  if [ -z "$line" ]; then check; else block="${block:+$block
}$line"; fi
done <"$expected"
check
[ "$n" -gt 0 ] || fail "$expected holds no lines"
echo "ok: $n block(s) of $expected"
