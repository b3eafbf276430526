#!/usr/bin/env bash
# The performance model against the H100 measurements of perfmodel/calibration: every kernel
# of the calibration set predicted from the CPU backend's counts (no GPU needed), next to its
# measured time, with the error; and the rank correlation (Spearman) of SGEMM_CUDA's kernels
# 1-10, predicted against measured. Prints markdown tables (docs/perfmodel.md has them).
#   tools/perfmodel-check.sh [--no-sgemm]
# SGEMM_CUDA's kernels need the corpus in .corpus (tools/corpus.sh fetch) or $CORPUS.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ "${1:-}" = --help ]; then sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
CLI="${TILELAB_CLI:-$ROOT/build/default/cli/tilelab-cli}"
CAL="$ROOT/perfmodel/calibration"
export TILELAB_ROOT="$ROOT"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
command -v python3 >/dev/null || { echo "perfmodel-check: needs python3 for the tables" >&2; exit 2; }

# ---- the kit's kernels: tilelab diagnose --json predicts each at 2048^3 ----------------------
row() { # NAME LAB SOURCE-OPTION... : the prediction's JSON into $work/NAME.json
  local name="$1" lab="$2"; shift 2
  echo "predicting $name" >&2
  "$CLI" diagnose "$lab" "$@" --json >"$work/$name.json" 2>/dev/null
}
row sol01 01 --solution
row sol02 02 --solution
row sol03 03 --solution
row sol04 04 --solution
row sol05 05 --solution
row alice 02 --source "$ROOT/examples/submissions/02-tiled/alice/template.cu"
row bob 02 --source "$ROOT/examples/submissions/02-tiled/bob/template.cu"
for s in ana eve fay hal jon; do
  row "$s" 03 --source "$ROOT/examples/submissions/03-arbitrary/$s/template.cu"
done

# ---- SGEMM_CUDA 1-12 at 2048^3 on the CPU backend, 8 blocks of each launch -------------------
corpus="${CORPUS:-$ROOT/.corpus}"
if [ "${1:-}" != --no-sgemm ] && [ -d "$corpus/SGEMM_CUDA" ]; then
  echo "building SGEMM_CUDA's driver for the CPU backend" >&2
  "$ROOT/tools/corpus.sh" build --backend cpu --corpus "$corpus" --out "$work/corpus" >/dev/null 2>&1 \
    || { echo "perfmodel-check: the corpus did not build" >&2; exit 1; }
  "${NVCC:-nvcc}" -cubin -arch=sm_90 -O3 -std=c++17 "-I$corpus/SGEMM_CUDA/src" \
    "$ROOT/tools/corpus/sgemm_cuda.cu" -o "$work/sgemm.cubin" 2>/dev/null
  echo "counting SGEMM_CUDA's kernels at 2048 (about a minute)" >&2
  TILELAB_DIAGNOSE="$work/sgemm.json" TILELAB_SAMPLE_BLOCKS=8 \
    "$work/corpus/sgemm_cuda" --time 2048 1 >/dev/null 2>&1
  "$CLI" predict "$work/sgemm.json" --cubin "$work/sgemm.cubin" --json >"$work/sgemm-pred.json"
fi

python3 - "$work" "$CAL" <<'PY'
import csv, json, os, sys
work, cal = sys.argv[1], sys.argv[2]
def rows(path):
    return [r for r in csv.reader(open(path), delimiter='\t') if r and not r[0].startswith('#')]
labs = {r[0]: float(r[4]) for r in rows(os.path.join(cal, 'h100-labs.tsv'))[1:]}
def pred(name, key='ms'):
    try:
        return json.load(open(os.path.join(work, name + '.json')))['prediction'][key]
    except Exception:
        return None
table = [
    ('01-basic solution', pred('sol01'), labs['01-basic solution']),
    ('02-tiled solution', pred('sol02'), labs['02-tiled solution']),
    ('03-arbitrary solution', pred('sol03'), labs['03-arbitrary solution']),
    ('04-rectangular solution', pred('sol04'), labs['04-rectangular solution']),
    ('05 solution (padded)', pred('sol05'), labs['05-bank-conflicts solution (padded)']),
    ('05 baseline (conflicting)', pred('sol05', 'baseline_ms'),
     labs['05-bank-conflicts baseline (conflicting)']),
    ('example class alice', pred('alice'), labs['example class alice (tiled, guarded)']),
    ('example class bob', pred('bob'), labs['example class bob (naive)']),
    ('lab 03 class ana (tiled 16x16)', pred('ana'), labs['lab 03 class ana (tiled 16x16)']),
    ('lab 03 class eve (naive)', pred('eve'), labs['lab 03 class eve (naive)']),
    ('lab 03 class fay (tiled 32x32)', pred('fay'), labs['lab 03 class fay (tiled 32x32)']),
    ('lab 03 class hal (indices swapped)', pred('hal'), labs['lab 03 class hal (indices swapped)']),
    ('lab 03 class jon (tiled 8x8)', pred('jon'), labs['lab 03 class jon (tiled 8x8)']),
]
sg = os.path.join(work, 'sgemm-pred.json')
measured = {r[0]: float(r[4]) for r in rows(os.path.join(cal, 'h100-sgemm-cuda.tsv'))[1:]}
sgemm = []
if os.path.exists(sg):
    launches = json.load(open(sg))[1::2]  # each kernel's timed launch, after its warm-up
    for name, l in zip(sorted(measured), launches):
        sgemm.append((name, l.get('ms'), measured[name]))
print('| kernel (2048³) | predicted ms | H100 ms | error |')
print('|---|---|---|---|')
worst = 0
for name, p, m in table + [('SGEMM_CUDA ' + n, p, m) for n, p, m in sgemm]:
    if p is None:
        print(f'| {name} | - | {m:.3f} | no prediction |')
        continue
    e = p / m - 1
    if not name.startswith('SGEMM'):
        worst = max(worst, abs(e))
    print(f'| {name} | {p:.3f} | {m:.3f} | {100 * e:+.0f} % |')
print(f'\nlargest error on the kit\'s kernels: {100 * worst:.0f} %')
if len(sgemm) >= 10:
    def rank(v):
        order = sorted(range(len(v)), key=lambda i: v[i]); r = [0] * len(v)
        for k, i in enumerate(order): r[i] = k
        return r
    p10 = [p for _, p, _ in sgemm[:10]]; m10 = [m for _, _, m in sgemm[:10]]
    a, b = rank(p10), rank(m10)
    rho = 1 - 6 * sum((x - y) ** 2 for x, y in zip(a, b)) / (10 * 99)
    worst_sg = max(abs(p / m - 1) for _, p, m in sgemm[:10])
    print(f'SGEMM_CUDA kernels 1-10: Spearman {rho:.3f}, largest error {100 * worst_sg:.0f} %')
PY
