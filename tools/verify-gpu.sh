#!/usr/bin/env bash
# The kit's checks on a GPU machine, in one go, with a log of everything:
#   1. the GPU, CLI, lab, libwb and CPU-backend tests (ctest);
#   2. the example class graded on the GPU, with hidden datasets of sizes that are not tile
#      multiples, lab 03's class, the adversarial class (tests/adversarial) and the kit-labs
#      classes graded on the GPU; each graded on the CPU backend too, and the two gradings
#      compared (tools/compare-grades.sh: correctness points, the order of performance points,
#      and the CPU backend's performance points at most 1 above the GPU's for the adversarial
#      and kit-labs classes, 3 for the honest example classes);
#   3. bench labs at SIZE: each reference solution timed directly and through the replayer.
#   tools/verify-gpu.sh [--no-ctest] [OUTDIR] [SIZE]   (default: build/verify-gpu, 2048)
# --no-ctest leaves out step 1 (when the suite ran already on this machine).
# Debian packages the machine lacks can be put as .deb files in .deps/ (bubblewrap, libcjson1,
# libcjson-dev); they are installed first when running as root. Slurm's packages and their
# dependencies (apt-get download of slurmd slurmctld slurm-client munge and what they need) can be
# put in .deps/slurm/: those the machine lacks are installed, and ctest's GPU cases include
# slurm_gpu_class (the example class through Slurm on this GPU node). Exit status: 0 when every
# step passed.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ctest_too=1
if [ "${1:-}" = "--no-ctest" ]; then ctest_too=0; shift; fi
OUT="${1:-$ROOT/build/verify-gpu}"
SIZE="${2:-2048}"
mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)" || exit 2   # absolute: the steps change folders
cd "$ROOT" || exit 2
export TILELAB_ROOT="$ROOT"
status=0
step() { printf '\n== %s\n' "$*"; }
if [ "$(id -u)" = 0 ] && ls .deps/*.deb >/dev/null 2>&1; then
  dpkg -i .deps/*.deb >"$OUT/dpkg.log" 2>&1 || { echo "dpkg failed (see $OUT/dpkg.log)"; status=1; }
fi
if [ "$(id -u)" = 0 ] && ls .deps/slurm/*.deb >/dev/null 2>&1; then
  # Only what is missing: the machine's own (newer) libraries stay.
  missing=()
  for d in .deps/slurm/*.deb; do
    dpkg -s "$(dpkg-deb -f "$d" Package)" >/dev/null 2>&1 || missing+=("$d")
  done
  [ "${#missing[@]}" = 0 ] || dpkg -i "${missing[@]}" >>"$OUT/dpkg.log" 2>&1 \
    || echo "dpkg could not configure every Slurm package (see $OUT/dpkg.log)"
  # Debian's packages on another distribution may stay unpacked but unconfigured, and then the
  # alternatives that name the daemons are missing.
  for b in slurmctld slurmd slurmstepd; do
    [ -e "/usr/sbin/$b" ] || [ ! -e "/usr/sbin/$b-wlm" ] || ln -s "/usr/sbin/$b-wlm" "/usr/sbin/$b"
  done
fi
step "machine"
nvidia-smi -L; bwrap --version; nvcc --version | tail -1
step "build"
TILELAB_NO_INSTALL=1 ./tilelab help >/dev/null 2>"$OUT/setup.log" || { tail -20 "$OUT/setup.log"; exit 1; }
CLI="$ROOT/build/default/cli/tilelab-cli"

if [ "$ctest_too" = 1 ]; then
  step "ctest -L 'gpu|labs|libwb|cli|cpu|unit'"
  (cd build/default && ctest -j8 -L 'gpu|labs|libwb|cli|cpu|unit' >"$OUT/ctest.log" 2>&1) || status=1
  grep -E "tests passed|\(Failed\)" "$OUT/ctest.log"
fi

step "the example class on the GPU"
hidden="$OUT/hidden"
rm -rf "$hidden" "$OUT/example"
"$CLI" datasets 03 --size 100 --size 47 --seed 5 --out "$hidden" >/dev/null || status=1
"$CLI" grade examples/submissions/02-tiled --lab 02 --backend gpu --hidden "$hidden" --timeout 10 \
  --jobs 4 --perf-size "$SIZE" --out "$OUT/example" 2>"$OUT/example.err" || status=1
tail -2 "$OUT/example.err"
"$CLI" grade examples/submissions/02-tiled --lab 02 --backend cpu --hidden "$hidden" --timeout 10 \
  --jobs 8 --out "$OUT/example-cpu" 2>"$OUT/example-cpu.err" || status=1
step "the example class: correctness points, GPU against CPU backend"
# Honest kernels: the CPU backend's performance points within 3 of the GPU's (docs/grader.md).
tools/compare-grades.sh --most-above 3 "$OUT/example/gradebook.csv" "$OUT/example-cpu/gradebook.csv" gpu cpu || status=1

step "lab 03's class on the GPU and on the CPU backend"
rm -rf "$OUT/lab03" "$OUT/lab03-cpu"
"$CLI" grade examples/submissions/03-arbitrary --lab 03 --backend gpu --timeout 10 --jobs 4 \
  --perf-size "$SIZE" --out "$OUT/lab03" 2>"$OUT/lab03.err" || status=1
"$CLI" grade examples/submissions/03-arbitrary --lab 03 --backend cpu --timeout 20 --jobs 8 \
  --out "$OUT/lab03-cpu" 2>"$OUT/lab03-cpu.err" || status=1
tools/compare-grades.sh --most-above 3 "$OUT/lab03/gradebook.csv" "$OUT/lab03-cpu/gradebook.csv" gpu cpu || status=1
# each kernel's time at the performance size: measured on the GPU, predicted on the CPU backend
for f in "$OUT"/lab03/journal/*.json; do
  s="$(basename "$f" .json)"
  printf '%-6s gpu %-10s cpu %s\n' "$s" "$(grep -o '"student_ms":[^,]*' "$f" | tr -dc '0-9.')" \
    "$(grep -o '"student_ms":[^,]*' "$OUT/lab03-cpu/journal/$s.json" | tr -dc '0-9.')"
done

if [ -x tests/adversarial/grade_adversarial.sh ]; then
  step "the adversarial class on the GPU"
  TILELAB_BACKEND=gpu GRADEBOOK_COPY="$OUT/adversarial-gpu.csv" \
    tests/adversarial/grade_adversarial.sh "$CLI" "$ROOT" >"$OUT/adversarial.log" 2>&1 || status=1
  tail -40 "$OUT/adversarial.log"
  TILELAB_BACKEND=cpu GRADEBOOK_COPY="$OUT/adversarial-cpu.csv" \
    tests/adversarial/grade_adversarial.sh "$CLI" "$ROOT" >"$OUT/adversarial-cpu.log" 2>&1 || status=1
  tail -3 "$OUT/adversarial-cpu.log"
  step "the adversarial class: correctness points, GPU against CPU backend"
  # No submission gets more than a point more on the CPU backend than on the GPU.
  tools/compare-grades.sh --most-above 1 "$OUT/adversarial-gpu.csv" "$OUT/adversarial-cpu.csv" gpu cpu || status=1
fi

step "the kit-labs classes (whole libwb programs) on the GPU and on the CPU backend"
for lab in examples/kit-labs/*/; do
  lab="${lab%/}" name="$(basename "$lab")"
  rm -rf "$OUT/kit-$name" "$OUT/kit-$name-cpu"
  "$CLI" grade "$lab/submissions" --lab "$lab" --backend gpu --timeout 30 --jobs 4 \
    --out "$OUT/kit-$name" 2>"$OUT/kit-$name.err" || status=1
  "$CLI" grade "$lab/submissions" --lab "$lab" --backend cpu --timeout 30 --jobs 8 \
    --out "$OUT/kit-$name-cpu" 2>"$OUT/kit-$name-cpu.err" || status=1
  echo "-- $name"
  tools/compare-grades.sh --most-above 1 "$OUT/kit-$name/gradebook.csv" "$OUT/kit-$name-cpu/gradebook.csv" gpu cpu || status=1
done

step "bench labs --size $SIZE"
"$CLI" bench labs --size "$SIZE" 2>&1 | tee "$OUT/bench.log" | tail -9 || status=1
exit $status
