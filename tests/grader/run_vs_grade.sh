#!/usr/bin/env bash
# `run --source` on each submission of the example class and `grade` give every dataset the same
# verdict and the same detail: both judge through runner_judge (CPU backend, untimed, as a
# grading is). A submission that does not build or is refused: the same verdict and detail for
# the build.
#   run_vs_grade.sh CLI KIT_ROOT
set -u
cli="$1" root="$2"
export TILELAB_ROOT="$root"
command -v python3 >/dev/null || { echo "python3 is needed to compare the JSON"; exit 77; }
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
class="$root/examples/submissions/02-tiled"
datasets="$root/datasets/02-tiled"
fail() { echo "FAIL: $*" >&2; exit 1; }
timeout=5

"$cli" grade "$class" --lab 02 --out "$work/out" --backend cpu --timeout "$timeout" --jobs 2 \
  --quiet >"$work/grade.out" 2>&1 || { cat "$work/grade.out"; fail "grade exited $?"; }

sets=()
for d in "$datasets"/[0-9]*; do sets+=(--dataset "$d"); done

# compare.py RUN.json RUN.stderr JOURNAL.json: one line per difference, exit 1 when any.
cat >"$work/compare.py" <<'PY'
import json, os, re, sys
run_path, err_path, journal_path = sys.argv[1:4]

def same(key, verdict, a, b):
    # An endless loop is stopped by the wall clock or by the instruction limit, whichever comes
    # first on this machine, and how far it got is the clock's: what stopped it and the counts
    # are left out; the file, kernel, warps and line where it was are compared.
    if key == "detail" and verdict == "timeout":
        a, b = (re.sub(r"after \d+( to \d+)? loop trips( each)?", "after N loop trips",
                       re.sub(r"stopped .*?(?=In block|$)", "stopped ", t))
                for t in (a, b))
    return a == b

journal = json.load(open(journal_path, encoding="utf-8"))
build = journal.get("build", {})
bad = []
if not build.get("ok"):
    # run stops at the build: "tilelab: FILE: VERDICT: DETAIL" on stderr
    lines = open(err_path, encoding="utf-8", errors="replace").read().splitlines()
    want = ": %s: %s" % (build.get("verdict"), build.get("detail"))
    if not any(l.startswith("tilelab: ") and l.endswith(want) for l in lines):
        bad.append("build: grade says%s; run said %r" % (want, lines[:3]))
else:
    runs = json.load(open(run_path, encoding="utf-8"))["runs"]
    graded = {d["name"]: d for d in journal["datasets"]}
    compared = 0
    for r in runs:
        name = os.path.basename(r["dataset"])
        g = graded.get(name)
        if g is None:
            bad.append("%s: not in the journal" % name)
            continue
        compared += 1
        for key in ("verdict", "detail"):
            if not same(key, g["verdict"], r[key], g[key]):
                bad.append("%s: %s: run %r, grade %r" % (name, key, r[key], g[key]))
    if compared == 0:
        bad.append("no dataset compared")
for b in bad:
    print(journal.get("student"), b)
sys.exit(1 if bad else 0)
PY

compared=0
for sub in "$class"/*/; do
  student="$(basename "$sub")"
  journal="$work/out/journal/$student.json"
  [ -f "$journal" ] || fail "$student: no journal entry"
  "$cli" run 02 --source "$sub/template.cu" --backend cpu --no-time --json --timeout "$timeout" \
    "${sets[@]}" >"$work/$student.json" 2>"$work/$student.err"
  python3 "$work/compare.py" "$work/$student.json" "$work/$student.err" "$journal" ||
    fail "$student: run and grade disagree"
  compared=$((compared + 1))
done
[ "$compared" -ge 10 ] || fail "only $compared submissions compared"

# The comparison can fail: a detail changed by one character, and a verdict, are caught.
python3 - "$work/alice.json" "$work/alice-changed.json" verdict <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["runs"][0]["detail"] += "."
json.dump(doc, open(sys.argv[2], "w"))
PY
python3 "$work/compare.py" "$work/alice-changed.json" "$work/alice.err" \
  "$work/out/journal/alice.json" >"$work/caught" && fail "a different detail was not caught"
grep -q "detail: run" "$work/caught" || fail "the difference was not named: $(cat "$work/caught")"
python3 - "$work/carol.json" "$work/carol-changed.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["runs"][-1]["verdict"] = "pass"
json.dump(doc, open(sys.argv[2], "w"))
PY
python3 "$work/compare.py" "$work/carol-changed.json" "$work/carol.err" \
  "$work/out/journal/carol.json" >/dev/null && fail "a different verdict was not caught"
echo "run and grade agree on every dataset of $compared submissions"
