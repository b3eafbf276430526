#!/usr/bin/env bash
# The CPU backend's probe programs (tests/cpu/*.cu) built for the GPU and run there, their
# outputs compared line by line with the CPU backend's. Needs a CUDA device, and the CPU
# builds in build/default (./tilelab test, or cmake --build build/default).
#   tools/gpu-probes.sh [OUTDIR]          (default: build/gpu-probes)
# Writes OUTDIR/NAME.gpu.txt and NAME.cpu.txt (stdout of each), prints a table; exit status 0
# when every probe printed the same on both. `--update` also copies each GPU output to
# tests/cpu/NAME.h100.txt, where the CPU tests compare against it.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
update=0
if [ "${1:-}" = "--help" ]; then sed -n 2,8p "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
if [ "${1:-}" = "--update" ]; then update=1; shift; fi
OUT="${1:-$ROOT/build/gpu-probes}"
mkdir -p "$OUT"
status=0
printf '%-14s %-10s %s\n' probe result detail
for src in "$ROOT"/tests/cpu/*.cu; do
  name="$(basename "$src" .cu)"
  cpu="$ROOT/build/default/tests/cpu/cpu_$name"
  if ! nvcc -std=c++17 -O3 -lineinfo -arch=sm_90 "$src" -o "$OUT/$name" 2>"$OUT/$name.build.txt"; then
    printf '%-14s %-10s %s\n' "$name" "NO BUILD" "see $OUT/$name.build.txt"; status=1; continue
  fi
  "$OUT/$name" >"$OUT/$name.gpu.txt" 2>"$OUT/$name.gpu.err"
  if [ -x "$cpu" ]; then
    "$cpu" >"$OUT/$name.cpu.txt" 2>"$OUT/$name.cpu.err"
  else
    echo "(no CPU build at $cpu)" >"$OUT/$name.cpu.txt"
  fi
  if cmp -s "$OUT/$name.gpu.txt" "$OUT/$name.cpu.txt"; then
    printf '%-14s %-10s %s lines\n' "$name" "same" "$(wc -l <"$OUT/$name.gpu.txt")"
  else
    differ=$(diff "$OUT/$name.gpu.txt" "$OUT/$name.cpu.txt" | grep -c '^<')
    # the first word of each differing line names what differs (tests/cpu/CMakeLists.txt's
    # --except lists the documented ones: approximations computed with libm's accuracy)
    printf '%-14s %-10s %s of %s lines differ: %s\n' "$name" "DIFFERENT" "$differ" \
      "$(wc -l <"$OUT/$name.gpu.txt")" \
      "$(diff "$OUT/$name.gpu.txt" "$OUT/$name.cpu.txt" | awk '/^</ { print ($2 ~ /^(float|double)$/) ? $2 " " $3 : $2 }' | paste -sd, -)"
    stored="$ROOT/tests/cpu/$name.h100.txt"
    if [ -f "$stored" ] && ! cmp -s "$OUT/$name.gpu.txt" "$stored"; then
      printf '%-14s %-10s this GPU printed other lines than %s\n' "$name" "CHANGED" "$stored"
    fi
    status=1
  fi
  [ "$update" = 1 ] && cp "$OUT/$name.gpu.txt" "$ROOT/tests/cpu/$name.h100.txt"
done
exit $status
