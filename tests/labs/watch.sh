#!/usr/bin/env bash
# run --watch: a wrong kernel is reported, the file is saved with the fix, and the run comes
# again by itself and passes; Ctrl-C ends it.
#   watch.sh CLI WRONG.cu FIXED.cu DATASET
set -um # job control: the background run takes SIGINT as a foreground one does
cli="$1" wrong="$2" fixed="$3" dataset="$4"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
cp "$wrong" "$dir/mine.cu"
out="$dir/out.txt"
"$cli" run 02 --source "$dir/mine.cu" --backend cpu --no-time --dataset "$dataset" --watch \
  >"$out" 2>&1 &
pid=$!
wait_for() { # PATTERN COUNT: until the output has COUNT lines matching PATTERN (60 s at most)
  for _ in $(seq 1 600); do
    [ "$(grep -cE "$1" "$out")" -ge "$2" ] && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
fail() { echo "FAIL: $*"; cat "$out"; kill -9 "$pid" 2>/dev/null; exit 1; }
wait_for '^watching .*mine.cu' 1 || fail "no first run and wait"
grep -qE '^0 passed, 1 failed$' "$out" || fail "the wrong kernel was not reported wrong"
cp "$fixed" "$dir/mine.cu"
wait_for 'mine.cu changed: running again' 1 || fail "the save was not seen"
wait_for '^watching .*mine.cu' 2 || fail "no second run"
grep -qE '^1 passed, 0 failed$' "$out" || fail "the fixed kernel did not pass on the second run"
kill -INT "$pid"
wait "$pid"; rc=$?
[ "$rc" = 130 ] || fail "Ctrl-C ended it with status $rc, expected 130"
cat "$out"
echo "ok: wrong, saved, passed, stopped"
