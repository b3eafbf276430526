#!/usr/bin/env bash
# Runs every lab's reference solution on the GPU and on the CPU backend and compares the two
# results byte for byte, dataset by dataset. Needs a CUDA device. Prints a table.
#   tools/compare-backends.sh [EXTRA_DATASET_LAB:DIR]...   (e.g. 02-tiled:datasets/02-tiled/large/0)
set -u
T="${TILELAB_CLI:-$(dirname "$0")/../build/default/cli/tilelab-cli}"
out="$(mktemp -d)"; trap 'rm -rf "$out"' EXIT
compare() { # LAB TAG [run options...]
  local lab="$1" tag="$2"; shift 2
  mkdir -p "$out/gpu" "$out/cpu"
  "$T" run "$lab" --solution --backend gpu --no-time --save-outputs "$out/gpu/$tag" "$@" >/dev/null 2>&1
  "$T" run "$lab" --solution --backend cpu --no-time --save-outputs "$out/cpu/$tag" --timeout 3600 "$@" >/dev/null 2>&1
  local same=0 total=0 f
  for f in "$out/gpu/$tag"/*.raw; do
    [ -f "$f" ] || continue
    total=$((total + 1))
    cmp -s "$f" "$out/cpu/$tag/$(basename "$f")" && same=$((same + 1))
  done
  printf '%-20s %-28s %3d of %3d bitwise identical\n' "$lab" "$tag" "$same" "$total"
}
for lab in 01-basic 02-tiled 03-arbitrary 04-rectangular 05-bank-conflicts; do
  compare "$lab" "$lab-shipped"
done
for extra in "$@"; do
  compare "${extra%%:*}" "$(basename "${extra#*:}")-$(basename "$(dirname "${extra#*:}")")" --dataset "${extra#*:}"
done
