#!/usr/bin/env bash
# The performance model's cost classes against an H100: every kernel of
# perfmodel/calibration/cost_classes.cu (lab 02's tiled loop with one costly operation per
# multiply-add, the adversarial class's cost_* files, the references) predicted from the CPU
# backend's counts, next to its GPU time. Prints a TSV: kernel, GPU ms, predicted ms,
# predicted / GPU, and each one's speed against lab 02's reference (GPU, predicted).
#   tools/perfmodel-costs.sh [--gpu] [--via-run] [--size N] [--reps R] [--save FILE] [--check]
# Without --gpu the GPU column is perfmodel/calibration/h100-cost-classes.tsv's. With --gpu
# (a machine with a CUDA device) the kernels are timed there first: events, a warm-up, the
# median of R runs (default 10), L2 flushed before each; --save FILE writes those times as
# the calibration file's rows. --via-run also times the lab 02 files through the kit's own
# replayer (./tilelab run 02 --backend gpu on a generated N^3 dataset), the grader's timing.
# --check: exit 1 unless every kernel's predicted lab 02 points (20, from 0.2x to 0.8x of the
# reference) are at most its GPU points plus one, or within 3 of them for the honest ones.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ "${1:-}" = --help ]; then sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
gpu=0 via_run=0 size=2048 reps=10 save="" check=0
while [ $# -gt 0 ]; do
  case "$1" in
    --gpu) gpu=1; shift ;;
    --via-run) via_run=1; gpu=1; shift ;;
    --size) size="${2:?--size needs N}"; shift 2 ;;
    --reps) reps="${2:?--reps needs R}"; shift 2 ;;
    --save) save="${2:?--save needs a file}"; shift 2 ;;
    --check) check=1; shift ;;
    *) echo "perfmodel-costs: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
CLI="${TILELAB_CLI:-$ROOT/build/default/cli/tilelab-cli}"
KIT="${KIT_BUILD:-$ROOT/build/default}"
NVCC="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
SRC="$ROOT/perfmodel/calibration/cost_classes.cu"
CAL="$ROOT/perfmodel/calibration/h100-cost-classes.tsv"
export TILELAB_ROOT="$ROOT"
command -v python3 >/dev/null || { echo "perfmodel-costs: needs python3 for the table" >&2; exit 2; }
[ -x "$CLI" ] || { echo "perfmodel-costs: $CLI is missing: build the kit first" >&2; exit 2; }
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
flags=(-std=c++17 -lineinfo -O3 "-I$ROOT/harness")

# ---- the CPU backend's counts, and the model's prediction for each launch --------------------
echo "building cost_classes for the CPU backend" >&2
"$NVCC" "${flags[@]}" -ptx -arch=compute_90 "$SRC" -o "$work/cpu.ptx" &&
  "$NVCC" "${flags[@]}" -arch=sm_90 -cudart none "$SRC" -o "$work/cpu" \
    "$KIT/cpurt/libtilelab_cpurt.a" "$KIT/ptx/libtilelab_ptx.a" -lpthread -lm -lz &&
  "$NVCC" "${flags[@]}" -cubin -arch=sm_90 "$SRC" -o "$work/cost.cubin" ||
  { echo "perfmodel-costs: cost_classes.cu did not build" >&2; exit 1; }
echo "counting each kernel at ${size}^3 (8 blocks of each launch)" >&2
TILELAB_DIAGNOSE="$work/counts.json" TILELAB_SAMPLE_BLOCKS=8 "$work/cpu" --once --size "$size" \
  >"$work/cpu.log" 2>&1 || { cat "$work/cpu.log" >&2; exit 1; }
"$CLI" predict "$work/counts.json" --cubin "$work/cost.cubin" --json >"$work/predicted.json" || exit 1
"$work/cpu" --list >"$work/names.tsv"

# ---- the GPU's times -------------------------------------------------------------------------
measured="$CAL"
if [ "$gpu" = 1 ]; then
  echo "building and timing cost_classes on the GPU (the same-address atomic takes minutes)" >&2
  "$NVCC" "${flags[@]}" -arch=sm_90 "$SRC" -o "$work/gpu" || exit 1
  "$work/gpu" --size "$size" --reps "$reps" >"$work/gpu.tsv" || exit 1
  measured="$work/gpu.tsv"
  [ -z "$save" ] || cp "$work/gpu.tsv" "$save"
fi
: >"$work/run.tsv"
if [ "$via_run" = 1 ]; then
  "$CLI" datasets 02 --size "${size}x${size}x${size}" --out "$work/ds" >/dev/null || exit 1
  ds="$(find "$work/ds" -name input0.raw -printf '%h\n' | head -1)"
  for f in "$ROOT"/tests/adversarial/02-tiled/cost_*/template.cu "$ROOT/solutions/02-tiled/solution.cu"; do
    name="$(basename "$(dirname "$f")")"; [ "$name" = 02-tiled ] && name=reference
    echo "timing $name through ./tilelab run" >&2
    "$CLI" run 02 --source "$f" --backend gpu --dataset "$ds" --reps "$reps" --json \
      >"$work/run-$name.json" 2>/dev/null
    python3 - "$work/run-$name.json" "$name" >>"$work/run.tsv" <<'PY'
import json, sys
def find(o):
    if isinstance(o, dict):
        k = o.get('kernel')
        if isinstance(k, dict) and 'median_ms' in k:
            return k['median_ms']
        o = list(o.values())
    if isinstance(o, list):
        for v in o:
            r = find(v)
            if r is not None:
                return r
try:
    ms = find(json.load(open(sys.argv[1])))
except Exception:
    ms = None
print(f'{sys.argv[2]}\t{ms if ms is not None else "-"}')
PY
  done
fi

python3 - "$work/names.tsv" "$work/predicted.json" "$measured" "$work/run.tsv" "$check" <<'PY'
import json, sys
names = [l.split('\t')[0] for l in open(sys.argv[1]).read().splitlines() if l]
pred = [l.get('ms') for l in json.load(open(sys.argv[2]))]
def ms_of(path):
    out = {}
    for line in open(path):
        f = line.rstrip('\n').split('\t')
        if line.startswith('#') or len(f) < 2 or f[0] == 'kernel':
            continue
        try:
            out[f[0]] = float(f[1])
        except ValueError:
            pass  # TO MEASURE
    return out
gpu, run = ms_of(sys.argv[3]), ms_of(sys.argv[4])
ref_gpu, ref_pred = gpu.get('reference'), pred[0] if pred else None
cols = ['kernel', 'gpu_ms', 'predicted_ms', 'predicted/gpu', 'gpu_speed', 'predicted_speed']
if run:
    cols.append('run_gpu_ms')
print('\t'.join(cols))
fmt = lambda v, d=3: '-' if v is None else f'{v:.{d}f}'
for name, p in zip(names, pred):
    g = gpu.get(name)
    row = [name, fmt(g), fmt(p), fmt(p / g if p and g else None, 2),
           fmt(ref_gpu / g if ref_gpu and g else None, 3),
           fmt(ref_pred / p if ref_pred and p else None, 3)]
    if run:
        row.append(fmt(run.get(name)))
    print('\t'.join(row))
# Lab 02's points: what the CPU backend may give against what an H100 gives. The honest kernels
# may differ by 3 either way; clock_spin reads a clock, which the safety checks refuse.
honest = {'reference', 'cost_naive', 'cost_store_every_trip', 'naive_store_every_trip'}
points = lambda speed: 20 * min(1, max(0, (speed - 0.2) / 0.6))
bad = []
for name, p in zip(names, pred):
    g = gpu.get(name)
    if sys.argv[5] != '1' or name == 'clock_spin' or not (p and g and ref_gpu and ref_pred):
        continue
    cpu, h100 = points(ref_pred / p), points(ref_gpu / g)
    if (abs(cpu - h100) > 3) if name in honest else (cpu > h100 + 1):
        bad.append(f'{name}: {cpu:.1f} points predicted, {h100:.1f} on the GPU')
for b in bad:
    print('perfmodel-costs: ' + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
