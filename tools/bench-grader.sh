#!/usr/bin/env bash
# Grader benchmark: N submissions (copies of the example class of 02-tiled) graded end to end on
# the public datasets, and the run-to-run spread of one submission's kernel time over 5 gradings.
#   tools/bench-grader.sh [N] [BACKEND]     (defaults: 100, the best backend here)
set -u
n="${1:-100}"; backend="${2:-}"
root="$(cd "$(dirname "$0")/.." && pwd)"
export TILELAB_ROOT="$root"
cli="${TILELAB_CLI:-$root/build/default/cli/tilelab-cli}"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
examples=("$root"/examples/submissions/02-tiled/*/)
for ((i = 0; i < n; i++)); do
  src="${examples[$((i % ${#examples[@]}))]}"
  mkdir -p "$work/class/s$(printf %03d "$i")-$(basename "$src")"
  cp "$src"/*.cu "$work/class/s$(printf %03d "$i")-$(basename "$src")/"
done
opts=(--lab 02 --timeout 10 --quiet)
[ -n "$backend" ] && opts+=(--backend "$backend")
start=$(date +%s.%N)
"$cli" grade "$work/class" "${opts[@]}" --out "$work/out" >/dev/null || echo "grade exited $?"
end=$(date +%s.%N)
printf 'grading %d submissions x %d public datasets: %.1f s (target < 180 s)\n' "$n" \
  "$(ls -d "$root"/datasets/02-tiled/[0-9]* | wc -l)" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
# One submission, graded 5 times from scratch: the spread of its measured kernel time.
mkdir -p "$work/one/alice" && cp "$root"/examples/submissions/02-tiled/alice/*.cu "$work/one/alice/"
times=()
for r in 1 2 3 4 5; do
  "$cli" grade "$work/one" "${opts[@]}" --out "$work/one-$r" >/dev/null
  times+=("$(grep -o '"student_ms":[[:space:]]*[0-9.e+-]*' "$work/one-$r/journal/alice.json" | grep -o '[0-9.e+-]*$')")
done
printf '%s\n' "${times[@]}" | awk '{ x[NR] = $1; s += $1 } END {
  m = s / NR; for (i = 1; i <= NR; i++) v += (x[i] - m) ^ 2; sd = sqrt(v / (NR - 1));
  printf "one submission over 5 gradings: kernel %.4f ms mean, CV %.2f%% (target < 1%%)\n", m, 100 * sd / m }'
