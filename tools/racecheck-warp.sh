#!/usr/bin/env bash
# compute-sanitizer's racecheck on the kernels that the CPU backend's checks call racing or
# clean between the lanes of one warp (tests/diagnose/warp_*.cu, shared_atomic_histogram.cu,
# the adversarial class's warp_sync_race), with a race between warps and a correct tiled
# kernel as controls: each built for sm_90 with tests/gpu/racecheck_driver.cu, run once at
# WIDTH (64) under racecheck. Needs a CUDA device and compute-sanitizer; the CPU backend's own
# verdict is added when build/default has the CLI.
#   tools/racecheck-warp.sh [OUTDIR]          (default: build/racecheck-warp)
# Prints a TSV table, one line per kernel: its name, what is expected (race or clean), the
# product's result on the GPU, racecheck's hazards at its default level and at level info, the
# CPU backend's verdict, and whether racecheck agrees (hazards exactly for the racing ones).
# OUTDIR keeps each build's and run's output. Exit status 0 when every line agrees.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ "${1:-}" = "--help" ]; then sed -n 2,12p "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
OUT="${1:-$ROOT/build/racecheck-warp}"
WIDTH=64
mkdir -p "$OUT"
CLI="$ROOT/build/default/cli/tilelab-cli"
export TILELAB_ROOT="$ROOT"
# name, lab, source, expected
cases=(
  "warp_reduce_race 02 tests/diagnose/warp_reduce_race.cu race"
  "warp_broadcast_race 02 tests/diagnose/warp_broadcast_race.cu race"
  "warp_sync_race 02 tests/adversarial/02-tiled/warp_sync_race/template.cu race"
  "warp_reduce_syncwarp 02 tests/diagnose/warp_reduce_syncwarp.cu clean"
  "warp_broadcast_syncwarp 02 tests/diagnose/warp_broadcast_syncwarp.cu clean"
  "warp_reduce_shfl 02 tests/diagnose/warp_reduce_shfl.cu clean"
  "shared_atomic_histogram 02 tests/diagnose/shared_atomic_histogram.cu clean"
  "missing_first_sync 03 tests/diagnose/missing_first_sync.cu race"
  "alice_control 02 tests/adversarial/02-tiled/alice_control/template.cu clean"
)
# racecheck's summary line ("RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)") as
# "1 (1 error, 0 warnings)", or ? when there is none (see the file).
hazards() {
  local n
  n="$(sed -n 's/.*RACECHECK SUMMARY: \([0-9]*\) hazards\{0,1\} displayed \(.*\)$/\1 \2/p' "$1" | tail -1)"
  echo "${n:-?}"
}
status=0
printf 'kernel\texpected\tgpu_result\thazards\thazards_info\tcpu_checks\tagrees\n'
for c in "${cases[@]}"; do
  read -r name lab src expected <<<"$c"
  exe="$OUT/$name"
  if ! nvcc -std=c++17 -O3 -lineinfo -arch=sm_90 -I"$ROOT/harness" "$ROOT/$src" \
       "$ROOT/tests/gpu/racecheck_driver.cu" -o "$exe" >"$OUT/$name.build.txt" 2>&1; then
    printf '%s\t%s\tno build\t-\t-\t-\tno\n' "$name" "$expected"; status=1; continue
  fi
  result="$("$exe" "$WIDTH" 2>"$OUT/$name.run.err")" || result="error"
  compute-sanitizer --tool racecheck --racecheck-report analysis "$exe" "$WIDTH" \
    >"$OUT/$name.racecheck.txt" 2>&1
  compute-sanitizer --tool racecheck --racecheck-report analysis --racecheck-detect-level info \
    "$exe" "$WIDTH" >"$OUT/$name.racecheck-info.txt" 2>&1
  found="$(hazards "$OUT/$name.racecheck.txt")" info="$(hazards "$OUT/$name.racecheck-info.txt")"
  cpu="-"
  if [ -x "$CLI" ]; then
    "$CLI" diagnose "$lab" --source "$ROOT/$src" >"$OUT/$name.cpu.txt" 2>&1
    if grep -q '^errors: none found' "$OUT/$name.cpu.txt"; then cpu=clean
    elif grep -q 'shared-memory race' "$OUT/$name.cpu.txt"; then cpu=race
    else cpu=other; fi
  fi
  agrees=no
  case "$expected:$found" in
    race:[1-9]* | "clean:0 "*) agrees=yes ;;
  esac
  [ "$agrees" = yes ] || status=1
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$expected" "$result" "$found" "$info" "$cpu" "$agrees"
done
exit $status
