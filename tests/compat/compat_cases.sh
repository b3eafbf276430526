#!/usr/bin/env bash
# Whole libwb programs of older courses through run and grade, on the CPU backend
# (COMPAT_BACKEND=gpu: on a GPU, where the verdicts must be the same).
#   compat_cases.sh CASE CLI KIT_ROOT
set -u
case_name="$1" cli="$2" root="$3"
export TILELAB_ROOT="$root"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
ds="$root/datasets/04-rectangular"
backend="${COMPAT_BACKEND:-cpu}"
fail() { echo "FAIL: $*" >&2; exit 1; }
# run_cpu FILE DATASET...: `run 04` on those datasets (the CPU backend unless COMPAT_BACKEND
# says otherwise), the output in $work/out
run_cpu() {
  local src="$1"; shift
  local sets=(); for d in "$@"; do sets+=(--dataset "$ds/$d"); done
  "$cli" run 04 --source "$src" --backend "$backend" --no-time "${sets[@]}" >"$work/out" 2>&1
}
has() { grep -qE -- "$1" "$work/out" || { cat "$work/out"; fail "no line matches '$1'"; }; }
case "$case_name" in
old_toolkit)
  # Builds in the sandbox, passes, and the student is told what the kit mapped.
  run_cpu "$here/old_toolkit.cu" 3 9 || { cat "$work/out"; fail "run exited $?"; }
  has "note: this program calls cudaThreadSynchronize, cudaThreadExit, .*removed in CUDA 13; the kit maps them to cudaDeviceSynchronize"
  has "first call at old_toolkit.cu:[0-9]+"
  [ "$(grep -c ' PASS' "$work/out")" = 2 ] || { cat "$work/out"; fail "both datasets must pass"; }
  # Graded: full marks, and the note in the student's feedback.
  mkdir -p "$work/class/old"
  cp "$here/old_toolkit.cu" "$work/class/old/main.cu"
  "$cli" grade "$work/class" --lab 04 --libwb --backend "$backend" --out "$work/grades" --timeout 60 \
    --jobs 2 --quiet >"$work/out" 2>&1 || { cat "$work/out"; fail "grade exited $?"; }
  grep -q "^Note: .*this program calls cudaThreadSynchronize" "$work/grades/feedback/old.txt" \
    || { cat "$work/grades/feedback/old.txt"; fail "the note is not in the feedback"; }
  grep -o '"verdict":[[:space:]]*"[a-z-]*"' "$work/grades/journal/old.json" | grep -v '"pass"' \
    && fail "a dataset did not pass"
  ;;
upload_filler)
  # A never-written hostC uploaded before the launch: a kernel that overwrites it passes...
  run_cpu "$here/upload_uninit.cu" 0 3 9 || { cat "$work/out"; fail "run exited $?"; }
  [ "$(grep -c ' PASS' "$work/out")" = 3 ] || { cat "$work/out"; fail "every dataset must pass"; }
  # ... one that adds to it relies on values the host never made: wrong, and the hint says why.
  { echo "#define ACCUMULATE"; cat "$here/upload_uninit.cu"; } >"$work/accumulate.cu"
  run_cpu "$work/accumulate.cu" 0 3 9; rc=$?
  [ "$rc" = 1 ] || { cat "$work/out"; fail "accumulate: exit status $rc, expected 1 (wrong)"; }
  [ "$(grep -c ' WRONG' "$work/out")" = 3 ] || { cat "$work/out"; fail "accumulate: every dataset must be wrong"; }
  has "hint: the program copied [0-9]+ bytes of host memory that wbImport did not return to the device; the grader puts the NaN pattern there"
  # Device data copied back to the host and up again: refused, saying why.
  { echo "#define ROUND_TRIP"; cat "$here/upload_uninit.cu"; } >"$work/round_trip.cu"
  run_cpu "$work/round_trip.cu" 3; rc=$?
  [ "$rc" = 3 ] || { cat "$work/out"; fail "round_trip: exit status $rc, expected 3 (refused)"; }
  has "REFUSED"
  has "copies data that came back from the device to the host back to the device"
  # The attack: a product computed on the host, uploaded and copied back, is never credited.
  run_cpu "$here/host_answer.cu" 0 3 9; rc=$?
  [ "$rc" = 1 ] || { cat "$work/out"; fail "host_answer: exit status $rc, expected 1 (wrong)"; }
  [ "$(grep -c ' WRONG' "$work/out")" = 3 ] || { cat "$work/out"; fail "host_answer: every dataset must be wrong"; }
  ;;
oversized_grid)
  # A thousand times the blocks the data needs, the surplus ones storing nothing: it passes (the
  # CPU backend's limit follows the threads launched, not only the data's work).
  run_cpu "$here/oversized_grid.cu" 0 1 || { cat "$work/out"; fail "run exited $?"; }
  [ "$(grep -c ' PASS' "$work/out")" = 2 ] || { cat "$work/out"; fail "every dataset must pass"; }
  # The same grid with an endless loop in one thread: stopped (by the clock: the limit is wide
  # now), and the message blames that loop, in the block that runs it.
  { echo "#define ENDLESS"; cat "$here/oversized_grid.cu"; } >"$work/endless.cu"
  "$cli" run 04 --source "$work/endless.cu" --backend "$backend" --no-time --timeout 10 \
    --dataset "$ds/0" >"$work/out" 2>&1; rc=$?
  [ "$rc" = 3 ] || { cat "$work/out"; fail "endless: exit status $rc, expected 3 (timeout)"; }
  has "TIMEOUT"
  if [ "$backend" = cpu ]; then # a GPU's message is its clock's
    has "an endless loop\\? In block \\(0,0,0\\) of tiled: warp 0 at line [0-9]+ after [0-9]+ loop trips"
    grep -q "after 0 loop trips" "$work/out" && { cat "$work/out"; fail "a loop with no trips is named"; }
  fi
  ;;
*) fail "unknown case $case_name" ;;
esac
echo "ok: $case_name"
