#!/usr/bin/env bash
# Fuzzes what the grader reads from submissions: the capture log reader, the PTX parser (with
# the outline reader) and the cubin register reader, each a libFuzzer target built with
# AddressSanitizer and UndefinedBehaviorSanitizer, for a fixed time each, then prints what they
# did.
#   tools/fuzz.sh [SECONDS] [capture_log|ptx|cubin]...     (default: 60 s, every target)
# Exit status: 0 no crash, 1 a target crashed (the input is kept and named), 77 libFuzzer is
# not available here (clang with compiler-rt: Debian clang and libclang-rt-14-dev).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECONDS_EACH="${1:-60}"
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(capture_log ptx cubin)
case "$SECONDS_EACH" in ''|*[!0-9]*) echo "usage: tools/fuzz.sh [SECONDS] [capture_log|ptx|cubin]..." >&2; exit 2 ;; esac
OUT="$ROOT/build/fuzz"
mkdir -p "$OUT"

CC="${FUZZ_CC:-clang}"
probe="$OUT/probe.c"
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$probe"
if ! "$CC" -fsanitize=fuzzer "$probe" -o "$OUT/probe" 2>/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "fuzz: installing clang and libclang-rt-14-dev (apt-get) ..." >&2
    { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends clang libclang-rt-14-dev; } >"$OUT/apt.log" 2>&1
  fi
  if ! "$CC" -fsanitize=fuzzer "$probe" -o "$OUT/probe" 2>/dev/null; then
    echo "SKIPPED: libFuzzer is not available (install clang and libclang-rt-14-dev)" >&2
    exit 77
  fi
fi

FLAGS=(-std=c11 -g -O1 -D_POSIX_C_SOURCE=200809L -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=all -fno-omit-frame-pointer -ffp-contract=off
       -I"$ROOT/harness" -I"$ROOT/capture" -I"$ROOT/ptx" -I"$ROOT/perfmodel")
sources_of() {
  case "$1" in
    capture_log) echo "$ROOT/tests/fuzz/fuzz_capture_log.c $ROOT/capture/src/capture_log.c $ROOT/capture/src/capture_log_read.c $ROOT/harness/src/error.c" ;;
    ptx) echo "$ROOT/tests/fuzz/fuzz_ptx.c $(ls "$ROOT"/ptx/*.c | tr '\n' ' ') $ROOT/ptx/mufu_tables.S -Wa,-I$ROOT/ptx/mufu -lz" ;;
    cubin) echo "$ROOT/tests/fuzz/fuzz_cubin.c $ROOT/perfmodel/src/pm_cubin.c" ;;
    *) return 1 ;;
  esac
}

status=0
printf '%-12s %8s %12s %10s %8s %8s  %s\n' target seconds executions "exec/s" edges corpus result
for t in "${TARGETS[@]}"; do
  src="$(sources_of "$t")" || { echo "fuzz: no target \"$t\" (capture_log, ptx, cubin)" >&2; exit 2; }
  # shellcheck disable=SC2086
  if ! "$CC" "${FLAGS[@]}" $src -lm -o "$OUT/fuzz_$t" 2>"$OUT/build_$t.log"; then
    cat "$OUT/build_$t.log" >&2
    echo "fuzz: the $t target does not build" >&2
    exit 1
  fi
  corpus="$OUT/corpus_$t"
  mkdir -p "$corpus" "$OUT/crashes_$t"
  cp -n "$ROOT/tests/fuzz/seeds/$t/"* "$corpus/" 2>/dev/null
  # The cubin target's seed is made here, by the toolkit's compiler, from the unit test's kernels.
  if [ "$t" = cubin ] && [ ! -e "$corpus/pm_kernels.cubin" ] && command -v "${NVCC:-nvcc}" >/dev/null; then
    "${NVCC:-nvcc}" -cubin -arch=sm_90 "$ROOT/tests/unit/pm_kernels.cu" -o "$corpus/pm_kernels.cubin" 2>/dev/null
  fi
  log="$OUT/run_$t.log"
  start=$(date +%s.%N)
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$OUT/fuzz_$t" "$corpus" -max_total_time="$SECONDS_EACH" -max_len=65536 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$OUT/crashes_$t/" >"$log" 2>&1
  rc=$?
  end=$(date +%s.%N)
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  edges=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
  files=$(ls "$corpus" | wc -l)
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }')
  rate=$(awk -v e="${execs:-0}" -v s="$secs" 'BEGIN { printf "%.0f", (s > 0 ? e / s : 0) }')
  if [ "$rc" = 0 ]; then
    result="no crash"
  else
    status=1
    result="CRASH: $(ls "$OUT/crashes_$t" | head -1) (log: ${log#"$ROOT"/})"
  fi
  printf '%-12s %8s %12s %10s %8s %8s  %s\n' "$t" "$secs" "${execs:-?}" "$rate" "${edges:-?}" "$files" "$result"
done
exit $status
