#!/usr/bin/env bash
# Runs a command and checks how it ended, for CTest.
#   run_expect.sh [--gpu PROBE] [--status N] [--match REGEX]... [--no-match REGEX]...
#                 [--stderr-lines N] -- COMMAND [ARGS...]
# --gpu PROBE      run PROBE first; if it exits 77 (no CUDA device), skip this test with its message
# --no-gpu PROBE   the opposite: skip this test when PROBE finds a CUDA device
# --status N       the exit status COMMAND must end with (default 0)
# --match REGEX    stdout+stderr must match (grep -E), repeatable
# --no-match REGEX stdout+stderr must not match
# --stderr-lines N stderr must have exactly N lines (bad input gets a one-line error)
# --same-as FILE   stdout must be FILE, byte for byte (a differing line is shown)
# --except REGEX   with --same-as: lines matching REGEX (grep -E) are left out of both sides
set -u
status=0 probe="" noprobe="" stderr_lines="" same_as="" except="" matches=() nomatches=()
while [ $# -gt 0 ]; do
  case "$1" in
    --gpu) probe="$2"; shift 2 ;;
    --no-gpu) noprobe="$2"; shift 2 ;;
    --status) status="$2"; shift 2 ;;
    --match) matches+=("$2"); shift 2 ;;
    --no-match) nomatches+=("$2"); shift 2 ;;
    --stderr-lines) stderr_lines="$2"; shift 2 ;;
    --same-as) same_as="$2"; shift 2 ;;
    --except) except="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "run_expect.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ -n "$probe" ]; then
  out="$("$probe")"; rc=$?
  if [ "$rc" = 77 ]; then echo "$out"; exit 77; fi
fi
if [ -n "$noprobe" ] && "$noprobe" >/dev/null; then
  echo "SKIPPED: a CUDA device is present; this test is for machines without one"; exit 77
fi
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
"$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
cat "$tmp/out"; cat "$tmp/err" >&2
fail=0
[ "$rc" = "$status" ] || { echo "FAIL: exit status $rc, expected $status" >&2; fail=1; }
for re in "${matches[@]+"${matches[@]}"}"; do
  cat "$tmp/out" "$tmp/err" | grep -Eq -- "$re" || { echo "FAIL: output does not match /$re/" >&2; fail=1; }
done
for re in "${nomatches[@]+"${nomatches[@]}"}"; do
  cat "$tmp/out" "$tmp/err" | grep -Eq -- "$re" && { echo "FAIL: output matches /$re/" >&2; fail=1; }
done
if [ -n "$stderr_lines" ]; then
  n=$(wc -l <"$tmp/err")
  [ "$n" = "$stderr_lines" ] || { echo "FAIL: stderr has $n lines, expected $stderr_lines" >&2; fail=1; }
fi
if [ -n "$same_as" ] && [ -n "$except" ]; then
  grep -Ev -- "$except" "$same_as" >"$tmp/want"; grep -Ev -- "$except" "$tmp/out" >"$tmp/got"
elif [ -n "$same_as" ]; then
  cp "$same_as" "$tmp/want"; cp "$tmp/out" "$tmp/got"
fi
if [ -n "$same_as" ] && ! diff -u "$tmp/want" "$tmp/got" >"$tmp/diff"; then
  echo "FAIL: stdout differs from $same_as:" >&2; head -20 "$tmp/diff" >&2; fail=1
fi
exit $fail
