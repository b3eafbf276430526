#!/usr/bin/env bash
# Lab 05's reference with the first __syncthreads() of the given baseline kernel (the file's
# first kernel) removed, the student's padded kernel left right, made from the reference so it
# follows it; then expect.sh's checks on it, with the tile store marked BUG and its read BUG2.
#   baseline_race.sh SOLUTION EXPECT CLI STATUS -- PATTERN...
set -u
solution="$1" expect="$2" cli="$3" status="$4"; shift 4
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
awk '!store && /Nds\[tx\]\[ty\] = N\[/ { print $0 " // BUG: the tile store"; store = 1; next }
     !sync && /^ *__syncthreads\(\);/ { sync = 1; next }
     !use && /Pvalue \+= / { print $0 " // BUG2: read with no barrier since the store"; use = 1; next }
     { print }' "$solution" >"$work/baseline_race.cu"
[ "$(grep -c '// BUG' "$work/baseline_race.cu")" = 2 ] || { echo "FAIL: markers not placed"; exit 1; }
"$expect" "$cli" 05 "$work/baseline_race.cu" "$status" "$@"
