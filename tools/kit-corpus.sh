#!/usr/bin/env bash
# The GPU Teaching Kit's own labs graded by tilelab: the kit's dataset generators, built against
# tilelab's libwb layer and a shim of the libgputk functions they need (tools/kit-corpus/), write the kit's
# datasets; the kit's lab programs (and tilelab's own `correct` ones) are graded on them with
# `./tilelab grade --lab examples/kit-labs/LAB`. docs/corpus.md#the-kits-own-labs describes it;
# `tools/kit-corpus.sh --help` lists the commands.
set -u

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SHIM_DIR="$ROOT/tools/kit-corpus"
NVCC="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
CC="${CC:-cc}"

GH="${CORPUS_GIT_BASE:-https://github.com}" # a mirror with the same owner/name paths
KIT_NAME="gputeachingkit-labs"
KIT_URL="$GH/rahulthakkar/nvidia-dli-gputeachingkit-labs.git"
KIT_COMMIT="9620f02a6fc74c828c61d064c87e8a82910d347f"
KIT_FOLDERS="Module3 Module4 Module7 Module8 Module9 Module10"

# tilelab's lab (examples/kit-labs/<lab>)|the kit's lab folder
LABS=(
  "vector-add|Module3/VectorAdd"
  "basic-matmul|Module4/BasicMatrixMultiplication"
  "tiled-matmul|Module4/TiledMatrixMultiplication"
  "list-scan|Module10/ListScan"
  "histogram|Module7/Histogram"
  "reduction|Module9/Reduction"
  "convolution|Module8/Convolution"
)

# The labs whose template.cu is still the exercise, not a solution, at the pinned commit: graded
# and shown like the others, but not expected to pass.
UNFILLED_LABS="list-scan histogram"

# Datasets on which the kit's solutions are expected to fail tilelab's check, and why (lab|the
# datasets|the reason, shown under the table when they do): a difference of rule, not of answer.
# None: the kit's floats are graded with its own comparator's rule (lab_description).
KNOWN=()

known_datasets() { # the KNOWN datasets as LAB/NAME words
  local entry lab names why n
  for entry in "${KNOWN[@]}"; do
    IFS='|' read -r lab names why <<<"$entry"
    for n in $names; do printf '%s/%s ' "$lab" "$n"; done
  done
}

# On the CPU backend (a PTX interpreter), datasets whose files add up to more than this are
# skipped: the kit's 4096 x 4096 x 4096 product (296 MB; 6.9e10 multiply-adds, beyond the
# grader's time limit there). Its 4096 x 4096 images (96 MB) take under a minute a program.
CPU_MAX_MB_DEFAULT=128
BYTES_PER_MB=1048576

usage() {
  cat <<EOF
tools/kit-corpus.sh: grade the GPU Teaching Kit's own labs with tilelab, on the kit's datasets.

  tools/kit-corpus.sh fetch [DIR]
      Clones the kit's labs (github.com/rahulthakkar/nvidia-dli-gputeachingkit-labs at
      ${KIT_COMMIT:0:12}) into DIR/$KIT_NAME (default .corpus); needs network access and
      git. CORPUS_GIT_BASE replaces https://github.com (a mirror).
  tools/kit-corpus.sh datasets [--corpus DIR] [--out DIR] [--kit-build DIR] [--lab LAB]
      Builds each lab's dataset_generator.cpp unchanged against tilelab's gputk.h and
      tools/kit-corpus/gputk_generate.h and runs it in OUT/LAB (default
      build/kit-corpus/datasets), where it writes <its name>/Dataset/N as the kit does.
      --corpus: the folder holding $KIT_NAME (default .corpus); --kit-build: where tilelab
      was built (default build/default); --lab: only that lab. The tiled-matmul generator
      multiplies 4096 x 4096 matrices on the host (OpenMP): minutes.
  tools/kit-corpus.sh grade --backend cpu|gpu [--corpus DIR] [--datasets DIR] [--out DIR]
                            [--lab LAB] [--cpu-max-mb N] [--jobs N] [--timeout S]
      For each lab, grades a class of the kit's programs with ./tilelab grade --lab
      examples/kit-labs/LAB on the kit's datasets (--datasets: the datasets command's OUT):
        kit               the kit's template.cu (a solution, except where it is unfilled:
                          list-scan and histogram at the pinned commit)
        kit-SUFFIX        each other template_SUFFIX.cu of the lab (its other solutions)
        tilelab-correct   examples/kit-labs/LAB/submissions/correct/main.cu
      Where the kit's file names differ from the lab.json's, a lab.json with the kit's names
      is written beside the class (OUT/LAB/lab.json). --backend cpu skips the datasets whose
      files add up to more than N MB (--cpu-max-mb, default $CPU_MAX_MB_DEFAULT: that skips only
      tiled-matmul 9, a 4096 x 4096 x 4096 product, beyond the grader's time limit there;
      0 skips nothing). --jobs and --timeout are passed to ./tilelab grade. Results go
      to OUT/LAB (default build/kit-corpus/grade-BACKEND); the table, one row per program
      (lab, program, datasets graded and skipped, verdicts with the failed datasets named,
      total, the lab's grading time), to standard output and OUT/summary.txt. Floats are
      held to the kit's own comparator at the pinned commit (lab.json's tolerance libwb
      becomes libgputk: 0.2 + 1e-5 x |expected|). Exit status 0 when every solution passed
      every dataset graded and the unfilled templates failed, 1 otherwise, 2 bad usage or a
      missing corpus, build or datasets.
EOF
}

die() { printf 'kit-corpus.sh: %s\n' "$*" >&2; exit 2; }
say() { printf '[kit-corpus] %s\n' "$*" >&2; }

abspath() { case "$1" in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }

one_line() { paste -sd' ' -; } # the lines of standard input, joined by spaces

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

lab_folder() { # LAB: the kit's folder of that lab, or nothing
  local entry name folder
  for entry in "${LABS[@]}"; do
    IFS='|' read -r name folder <<<"$entry"
    [ "$name" = "$1" ] && { printf '%s' "$folder"; return 0; }
  done
  return 1
}

selected_labs() { # [LAB]: the labs to work on, each checked
  local entry name folder
  if [ -n "${1:-}" ]; then
    lab_folder "$1" >/dev/null || die "unknown lab $1 (the labs: $(all_labs))"
    printf '%s\n' "$1"
    return
  fi
  for entry in "${LABS[@]}"; do
    IFS='|' read -r name folder <<<"$entry"
    printf '%s\n' "$name"
  done
}

all_labs() {
  local entry name folder out=""
  for entry in "${LABS[@]}"; do
    IFS='|' read -r name folder <<<"$entry"
    out="$out${out:+, }$name"
  done
  printf '%s' "$out"
}

check_corpus() { # KIT LAB...: each lab's generator and template, named when one is missing
  local kit="$1" lab folder f
  shift
  [ -d "$kit" ] || die "no kit at $kit (tools/kit-corpus.sh fetch, or --corpus DIR)"
  for lab in "$@"; do
    folder="$(lab_folder "$lab")"
    for f in dataset_generator.cpp template.cu; do
      [ -f "$kit/$folder/$f" ] || die "the kit lacks $kit/$folder/$f (needed for $lab)"
    done
  done
}

cjson_library() { # KIT_BUILD: the cJSON library tilelab was configured with
  local lib
  lib="$(sed -n 's/^CJSON_LIBRARY:FILEPATH=//p' "$1/CMakeCache.txt" 2>/dev/null)"
  if [ -n "$lib" ] && [ -f "$lib" ]; then printf '%s' "$lib"; else printf '%s' -lcjson; fi
}

cmd_datasets() {
  local corpus="$ROOT/.corpus" out="$ROOT/build/kit-corpus/datasets" kit_build="$ROOT/build/default"
  local only=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --corpus) corpus="$(abspath "${2:?--corpus needs a folder}")"; shift 2 ;;
      --out) out="$(abspath "${2:?--out needs a folder}")"; shift 2 ;;
      --kit-build) kit_build="$(abspath "${2:?--kit-build needs a folder}")"; shift 2 ;;
      --lab) only="${2:?--lab needs a lab}"; shift 2 ;;
      *) die "datasets: unknown argument $1" ;;
    esac
  done
  local labs
  labs="$(selected_labs "$only")" || exit 2
  local kit="$corpus/$KIT_NAME"
  # shellcheck disable=SC2086 # one lab a line
  check_corpus "$kit" $labs
  [ -x "$NVCC" ] || die "nvcc not found (put it on PATH or set NVCC)"
  command -v "$CC" >/dev/null || die "no C compiler ($CC; set CC)"
  local libs=("$kit_build/harness/libtilelab_harness_cuda.a" "$kit_build/harness/libtilelab_harness.a")
  local lib
  for lib in "${libs[@]}"; do
    [ -f "$lib" ] || die "$lib is missing: build tilelab first (./tilelab help, or --kit-build DIR)"
  done
  local gen="$ROOT/build/kit-corpus/generators"
  mkdir -p "$gen" "$out" || die "cannot create $gen and $out"
  local shim="$gen/gputk_generate.o"
  "$CC" -std=c11 -Wall -Wextra -Werror -O2 "-I$ROOT/harness" -c "$SHIM_DIR/gputk_generate.c" \
    -o "$shim" >"$gen/gputk_generate.log" 2>&1 ||
    { cat "$gen/gputk_generate.log" >&2; die "the shim did not build ($gen/gputk_generate.log)"; }
  local failed=0 lab folder exe log t0 dir made n
  for lab in $labs; do
    folder="$(lab_folder "$lab")"
    exe="$gen/$lab"
    log="$gen/$lab.log"
    t0="$(now)"
    # The generator unchanged: its #include "gputk.h" finds tilelab's, the shim comes first.
    # OpenMP, as the kit's build gives it where it finds it: the tiled-matmul generator's
    # 4096^3 product uses every core.
    if ! "$NVCC" -std=c++17 -O2 -Xcompiler -fopenmp "-I$ROOT/harness" "-I$SHIM_DIR" \
         -include gputk_generate.h "$kit/$folder/dataset_generator.cpp" -o "$exe" "$shim" \
         "${libs[@]}" "$(cjson_library "$kit_build")" -lgomp -lpthread -lm >"$log" 2>&1; then
      say "$lab: the generator did not build ($log):"
      grep -E 'error|undefined' "$log" | head -20 >&2
      failed=1
      continue
    fi
    dir="$out/$lab"
    rm -rf "$dir" && mkdir -p "$dir" || die "cannot create $dir"
    say "$lab: running $folder/dataset_generator.cpp in $dir"
    if ! (cd "$dir" && "$exe") >>"$log" 2>&1; then
      say "$lab: the generator failed ($log):"
      tail -5 "$log" >&2
      failed=1
      continue
    fi
    made="$(dataset_root "$out" "$lab")" || { failed=1; continue; }
    n="$(find "$made" -mindepth 1 -maxdepth 1 -type d | wc -l)"
    say "$lab: $n datasets in ${made#"$out/"} ($(elapsed "$t0" "$(now)") s)"
  done
  [ $failed = 0 ] || die "some generators did not build or run (see above)"
}

dataset_root() { # OUT LAB: the one Dataset folder the lab's generator wrote under OUT/LAB
  local found
  found="$(find "$1/$2" -mindepth 2 -maxdepth 2 -type d -name Dataset)"
  case "$(printf '%s' "$found" | grep -c .)" in
    1) printf '%s' "$found" ;;
    0) say "$2: no <name>/Dataset folder in $1/$2 (tools/kit-corpus.sh datasets)"; return 1 ;;
    *) say "$2: more than one Dataset folder in $1/$2: $(one_line <<<"$found")"; return 1 ;;
  esac
}

# LAB_JSON DATASET_DIR OUT: the lab's description with the kit's file names (the inputs and the
# output of the kit's first dataset), written to OUT when they differ from LAB_JSON's; prints
# the description to grade with and, on stderr, what was renamed.
lab_description() {
  python3 - "$@" <<'PY'
import json, os, sys
src, dataset, out = sys.argv[1:4]
with open(src, encoding="utf-8") as f:
    lab = json.load(f)
files = sorted(os.listdir(dataset))
inputs = [f for f in files if f.startswith("input")]
outputs = [f for f in files if f.startswith("output")]
if len(inputs) != len(lab["inputs"]) or len(outputs) != 1:
    sys.exit(f"{dataset}: the kit wrote {files}; {src} expects {len(lab['inputs'])} inputs "
             "and one output")
# The kit's own comparator at the pinned commit (libgputk's gputkComparator.h): libwb's 0.2
# plus 1e-5 of the expected value. Its reduction's expected totals are the generator's float
# sums, 0.43 and 0.95 from the exact totals on datasets 10 and 11, which libwb's 0.2 alone fails.
kit_rule = lab["tolerance"] == "libwb"
if kit_rule:
    lab["tolerance"] = "libgputk"
if inputs == lab["inputs"] and outputs[0] == lab["output"] and not kit_rule:
    print(src)
    sys.exit(0)
for old, new in zip(lab["inputs"] + [lab["output"]], inputs + outputs):
    if old != new:
        print(f"[kit-corpus] {lab['name']}: the kit's {new} for the lab.json's {old}",
              file=sys.stderr)
lab["inputs"], lab["output"] = inputs, outputs[0]
lab["datasets"] = os.path.dirname(dataset)
lab.pop("rubric", None)
with open(out, "w", encoding="utf-8") as f:
    json.dump(lab, f)
    f.write("\n")
print(out)
PY
}

folder_bytes() { du -sb --apparent-size "$1" 2>/dev/null | cut -f1; }

# KIT_DATASETS INTO MAX_BYTES: each dataset under MAX_BYTES (0: all) linked (or copied) into
# INTO; prints the names of those skipped. The grader refuses symbolic links.
select_datasets() {
  local from="$1" into="$2" max="$3" ds name
  rm -rf "$into" && mkdir -p "$into" || die "cannot create $into"
  for ds in "$from"/*/; do
    ds="${ds%/}"
    name="${ds##*/}"
    if [ "$max" -gt 0 ] && [ "$(folder_bytes "$ds")" -gt "$max" ]; then
      printf '%s\n' "$name"
      continue
    fi
    cp -al "$ds" "$into/$name" 2>/dev/null || cp -a "$ds" "$into/$name" ||
      die "cannot copy $ds into $into"
  done
}

# SUBMISSIONS KIT_FOLDER LAB: the class, one folder per program, each holding template.cu.
make_class() {
  local subs="$1" kit_folder="$2" lab="$3" t student
  rm -rf "$subs" && mkdir -p "$subs" || die "cannot create $subs"
  for t in "$kit_folder"/template*.cu; do
    student="$(basename "$t" .cu)"
    student="kit${student#template}"
    student="${student/#kit_/kit-}"
    mkdir -p "$subs/$student" && cp "$t" "$subs/$student/template.cu" || die "cannot copy $t"
  done
  local own="$ROOT/examples/kit-labs/$lab/submissions/correct/main.cu"
  [ -f "$own" ] || die "$own is missing"
  mkdir -p "$subs/tilelab-correct" && cp "$own" "$subs/tilelab-correct/template.cu" ||
    die "cannot copy $own"
}

# JOURNAL_DIR LAB SKIPPED SECONDS: one table row per program graded (tab-separated: lab,
# program, datasets, verdicts, total, time, and whether it did as expected: yes or no). A
# dataset of KNOWN that failed is starred.
summarize() {
  python3 - "$@" "$UNFILLED_LABS" "$(known_datasets)" <<'PY'
import glob, json, os, sys
journal, lab, skipped, seconds, unfilled, known = sys.argv[1:7]
skipped, known = skipped.split(), known.split()
def order(path):  # the kit's template first, its other solutions, then tilelab's program
    name = os.path.basename(path)[:-len(".json")]
    return (0 if name == "kit" else 1 if name.startswith("kit-") else 2, name)
first = True
for path in sorted(glob.glob(os.path.join(journal, "*.json")), key=order):
    with open(path, encoding="utf-8") as f:
        j = json.load(f)
    sets = j.get("datasets", [])
    counts, failed = {}, []
    for d in sets:
        counts[d["verdict"]] = counts.get(d["verdict"], 0) + 1
        if d["verdict"] != "pass":
            failed.append(d["name"])
    unexpected = [n for n in failed if f"{lab}/{n}" not in known]
    if not j["build"]["ok"]:
        verdicts = "build failed"
    else:
        verdicts = ", ".join(f"{n} {v}" for v, n in sorted(counts.items(),
                                                            key=lambda c: c[0] != "pass"))
        if failed:
            verdicts += " (" + " ".join(n + ("" if n in unexpected else "*")
                                        for n in failed) + ")"
    graded = str(len(sets))
    if skipped:
        graded += f" (+{len(skipped)} skipped: {' '.join(skipped)})"
    total = f"{j['score']['total']:g}/{j['score']['max']:g}"
    passed = j["build"]["ok"] and not unexpected and len(sets) > 0
    # An unfilled template is the exercise itself: it is expected to fail.
    exercise = j["student"] == "kit" and lab in unfilled.split()
    program = j["student"] + (" (unfilled)" if exercise else "")
    print("\t".join([lab, program, graded, verdicts or "none", total,
                     f"{seconds} s" if first else "", "yes" if passed != exercise else "no"]))
    first = False
PY
}

cmd_grade() {
  local backend="" corpus="$ROOT/.corpus" datasets="$ROOT/build/kit-corpus/datasets" out=""
  local only="" max_mb="$CPU_MAX_MB_DEFAULT" grade_opts=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --backend)
        case "${2:-}" in gpu|cpu) backend="$2" ;; *) die "--backend must be gpu or cpu" ;; esac
        shift 2 ;;
      --corpus) corpus="$(abspath "${2:?--corpus needs a folder}")"; shift 2 ;;
      --datasets) datasets="$(abspath "${2:?--datasets needs a folder}")"; shift 2 ;;
      --out) out="$(abspath "${2:?--out needs a folder}")"; shift 2 ;;
      --lab) only="${2:?--lab needs a lab}"; shift 2 ;;
      --cpu-max-mb) max_mb="${2:?--cpu-max-mb needs a number}"; shift 2 ;;
      --jobs|--timeout) grade_opts+=("$1" "${2:?$1 needs a number}"); shift 2 ;;
      *) die "grade: unknown argument $1" ;;
    esac
  done
  [ -n "$backend" ] || die "grade: --backend gpu|cpu is required"
  case "$max_mb" in ''|*[!0-9]*) die "--cpu-max-mb must be a whole number of MB" ;; esac
  command -v python3 >/dev/null || die "grade needs python3 (for the lab descriptions and table)"
  out="${out:-$ROOT/build/kit-corpus/grade-$backend}"
  local labs
  labs="$(selected_labs "$only")" || exit 2
  local kit="$corpus/$KIT_NAME"
  # shellcheck disable=SC2086 # one lab a line
  check_corpus "$kit" $labs
  local max=0
  [ "$backend" = cpu ] && max=$((max_mb * BYTES_PER_MB))
  mkdir -p "$out" || die "cannot create $out"
  local rows="$out/summary.tsv" lab root desc skipped t0 rc failed=0
  : >"$rows"
  for lab in $labs; do
    root="$(dataset_root "$datasets" "$lab")" || die "no datasets for $lab under $datasets"
    mkdir -p "$out/$lab" || die "cannot create $out/$lab"
    make_class "$out/$lab/submissions" "$kit/$(lab_folder "$lab")" "$lab"
    skipped="$(select_datasets "$root" "$out/$lab/datasets" "$max")"
    rm -f "$out/$lab/lab.json"
    desc="$(lab_description "$ROOT/examples/kit-labs/$lab/lab.json" "$root/0" \
            "$out/$lab/lab.json")" || die "$lab: cannot describe the kit's datasets"
    rm -rf "$out/$lab/grades"
    say "$backend: grading $lab ($(find "$out/$lab/datasets" -mindepth 1 -maxdepth 1 | wc -l)" \
        "datasets${skipped:+, skipped: $(one_line <<<"$skipped")})"
    t0="$(now)"
    "$ROOT/tilelab" grade "$out/$lab/submissions" --lab "$desc" --datasets "$out/$lab/datasets" \
      --backend "$backend" --out "$out/$lab/grades" "${grade_opts[@]}" >"$out/$lab/grade.log" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
      say "$lab: ./tilelab grade exited with status $rc ($out/$lab/grade.log):"
      tail -5 "$out/$lab/grade.log" >&2
      failed=1
      continue
    fi
    summarize "$out/$lab/grades/journal" "$lab" "$skipped" "$(elapsed "$t0" "$(now)")" \
      >>"$rows" || die "$lab: cannot read the grading's journal"
  done
  {
    printf 'lab\tprogram\tdatasets\tverdicts\ttotal\ttime\n'
    cut -f1-6 "$rows"
  } | { if command -v column >/dev/null; then column -t -s $'\t'; else tr '\t' ' '; fi; } | tee "$out/summary.txt"
  local entry lab_k names why
  for entry in "${KNOWN[@]}"; do
    IFS='|' read -r lab_k names why <<<"$entry"
    grep -q "^$lab_k	.*\*" "$rows" &&
      printf '* %s %s: %s\n' "$lab_k" "$names" "$why" |
      fold -s -w 100 | tee -a "$out/summary.txt"
  done
  local unmet
  unmet="$(awk -F'\t' '$7 == "no" { print $1 "/" $2 }' "$rows")"
  if [ -n "$unmet" ]; then
    say "not as expected (a solution that did not pass everything, or an unfilled template" \
        "that did): $(one_line <<<"$unmet"); the reasons are in $out/LAB/grades/feedback/"
    failed=1
  fi
  [ $failed = 0 ] || return 1
  say "every solution passed every dataset graded ($out/summary.txt)"
}

cmd_fetch() {
  local dir target
  dir="$(abspath "${1:-$ROOT/.corpus}")"
  target="$dir/$KIT_NAME"
  command -v git >/dev/null || die "git is not installed"
  mkdir -p "$dir" || die "cannot create $dir"
  if [ -e "$target" ]; then
    say "$target exists; left as it is (remove it to fetch it again)"
    return 0
  fi
  say "fetching $KIT_URL at $KIT_COMMIT"
  # Only the labs' folders, and no file contents beyond those.
  if ! git clone --quiet --filter=blob:none --no-checkout "$KIT_URL" "$target"; then
    rm -rf "$target"
    die "git clone $KIT_URL failed (no network access?)"
  fi
  # shellcheck disable=SC2086 # a list of folders
  if ! git -C "$target" sparse-checkout set $KIT_FOLDERS ||
     ! git -C "$target" -c advice.detachedHead=false checkout --quiet "$KIT_COMMIT"; then
    rm -rf "$target"
    die "checking out $KIT_COMMIT in $target failed"
  fi
  say "the kit's labs are in $target"
}

command="${1:-}"
case "$command" in
  fetch|datasets|grade) shift; "cmd_$command" "$@" ;;
  -h|--help|help) usage ;;
  "") usage >&2; exit 2 ;;
  *) usage >&2; die "unknown command $command" ;;
esac
