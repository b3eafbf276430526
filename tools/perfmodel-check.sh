#!/usr/bin/env bash
# The performance model against the H100 measurements of perfmodel/calibration: every kernel
# of the calibration set predicted from the CPU backend's counts (no GPU needed), next to its
# measured time, with the error. Prints a markdown table (docs/perfmodel.md has it). SGEMM_CUDA's
# kernels, the calibration set's other half, are compiled from that project's sources, which
# the kit does not ship; docs/perfmodel.md says how they were predicted.
#   tools/perfmodel-check.sh
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
print('| kernel (2048³) | predicted ms | H100 ms | error |')
print('|---|---|---|---|')
worst = 0
for name, p, m in table:
    if p is None:
        print(f'| {name} | - | {m:.3f} | no prediction |')
        continue
    e = p / m - 1
    worst = max(worst, abs(e))
    print(f'| {name} | {p:.3f} | {m:.3f} | {100 * e:+.0f} % |')
print(f'\nlargest error on the kit\'s kernels: {100 * worst:.0f} %')
PY
