#!/usr/bin/env bash
# Checks that a handout shows a file verbatim: one of the handout's fenced code blocks (fences
# at the start of a line) must be the file, byte for byte, so that the example the test suite
# runs is the one students read.
#   handout_code.sh HANDOUT FILE
set -u
[ $# -eq 2 ] || { echo "usage: handout_code.sh HANDOUT FILE" >&2; exit 2; }
handout="$1" file="$2"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
awk -v dir="$tmp" '
  /^```/ { if (inside) { inside = 0; close(out) } else { inside = 1; n++; out = dir "/block" n; printf "" > out }; next }
  inside { print > out }
' "$handout" || exit 2
first="$(head -n 1 "$file")"
closest=""
for block in "$tmp"/block*; do
  [ -e "$block" ] || break
  if cmp -s "$block" "$file"; then
    echo "$handout shows $file"
    exit 0
  fi
  [ -z "$closest" ] && [ "$(head -n 1 "$block")" = "$first" ] && closest="$block"
done
echo "FAIL: no code block of $handout is $file, byte for byte" >&2
[ -n "$closest" ] && diff -u "$file" "$closest" | head -n 20 >&2
exit 1
