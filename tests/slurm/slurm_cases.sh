#!/usr/bin/env bash
# grade --slurm against a real single-node Slurm (slurmctld, slurmd and munged started here,
# stopped on exit). Exits 77 (skipped, with the reason) where this host cannot run slurmd.
#   slurm_cases.sh CASE CLI KIT_ROOT
set -u
case_name="$1" cli="$2" root="$3"
export TILELAB_ROOT="$root"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/cluster.sh"
work="$(mktemp -d)"
bg=0
cleanup() {
  [ "$bg" != 0 ] && kill -9 "$bg" 2>/dev/null
  slurm_stop
  rm -rf "$work"
}
trap cleanup EXIT
class="$root/examples/submissions/02-tiled"
fail() { echo "FAIL: $*" >&2; for f in "$work"/out/slurm/logs/*.txt; do [ -f "$f" ] && { echo "== $f"; tail -n 5 "$f"; }; done >&2; exit 1; }
totals() { awk -F, '{ sub(/\r$/, "") } NR > 1 { print $1 "," $2 }' "$1"; }
jobs_submitted() { wc -l <"$work/out/slurm/jobs.txt"; }
# Waits until the grader in the background has submitted its array job.
wait_submitted() {
  for _ in $(seq 1 600); do [ -s "$work/out/slurm/jobs.txt" ] && return 0; sleep 0.1; done
  fail "no job was submitted"
}

case "$case_name" in
no_sbatch)
  # Needs no cluster: without sbatch on PATH the grader says so and exits 2.
  mkdir "$work/bin"
  PATH="$work/bin" "$cli" grade "$class" --lab 02 --slurm --out "$work/out" >"$work/o" 2>&1; rc=$?
  cat "$work/o"
  [ "$rc" = 2 ] || fail "exit $rc, expected 2"
  grep -q "sbatch and squeue were not found on PATH" "$work/o" || fail "no clear message"
  [ ! -e "$work/out" ] || fail "it started grading anyway"
  ;;
no_answer)
  # Needs no cluster: a controller that does not answer squeue is not every task ending. The
  # grader keeps watching (here until `timeout` stops it) instead of calling them failed.
  mkdir "$work/bin" "$work/class"
  cp -r "$class/alice" "$work/class/"
  printf '#!/bin/sh\necho 7\n' >"$work/bin/sbatch"
  printf '#!/bin/sh\necho "squeue: error: Unable to contact slurm controller" >&2\nexit 1\n' >"$work/bin/squeue"
  cp "$work/bin/squeue" "$work/bin/sacct"
  chmod +x "$work/bin"/*
  PATH="$work/bin:$PATH" timeout 20 "$cli" grade "$work/class" --lab 02 --backend cpu --slurm \
    --out "$work/out" >"$work/o" 2>&1; rc=$?
  tr '\r' '\n' <"$work/o" | tail -n 3
  [ "$rc" = 124 ] || fail "exit $rc: it stopped watching a job squeue could not tell about"
  grep -q "squeue does not answer" "$work/o" || fail "the progress line does not say squeue does not answer"
  ;;
bad_grading_file)
  # Needs no cluster: a task's grading file that is not what the grader wrote is refused before
  # anything is graded, naming the file, the key and what was expected.
  g="$work/grading.json"
  good='"submissions": "/nonexistent", "datasets": "/nonexistent", "hidden": null,
    "rubric": null, "out": "/nonexistent", "lab": "02-tiled", "libwb": false, "backend": "cpu",
    "timeout": 10, "reps": 1, "perf_size": [64, 64, 64], "no_sandbox": false,
    "students": ["alice"], "tasks": [0]'
  # refused SED-EDIT MESSAGE: the good file edited by SED-EDIT is refused with MESSAGE.
  refused() {
    printf '{%s}\n' "$good" | sed "$1" >"$g"
    "$cli" grade-task "$g" 0 >"$work/o" 2>&1; rc=$?
    [ "$rc" != 0 ] || fail "grade-task accepted: $1"
    grep -qF "$2" "$work/o" || { cat "$work/o"; fail "no \"$2\" for: $1"; }
  }
  refused 's/.*/[1, 2]/' "$g: the grading file is not a JSON object"
  refused 's/"timeout": 10/"timeout": "10"/' "$g: \"timeout\" should be a whole number >= 1, found a string"
  refused 's/"reps": 1, //' "$g: \"reps\" should be a whole number >= 1, found nothing"
  refused 's/"cpu"/"tpu"/' "$g: \"backend\" should be gpu or cpu, found \"tpu\""
  refused 's/\[64, 64, 64\]/[64, 64]/' "$g: \"perf_size\" should be [m, k, n] of whole numbers >= 1, found an array"
  refused 's/"lab": "02-tiled", //' "$g: should have either \"lab\""
  refused 's/"02-tiled"/"99-none"/' "$g: \"lab\" is \"99-none\", which is no lab of this kit"
  refused 's/"hidden": null/"hidden": 3/' "$g: \"hidden\" should be a string or null, found a number"
  refused 's/"libwb": false/"libwb": 0/' "$g: \"libwb\" should be true or false, found a number"
  ;;
class)
  # The example class through Slurm, then locally on the same performance dataset: the same
  # total for every student.
  slurm_start "$work/cluster" || exit $?
  "$cli" grade "$class" --lab 02 --backend cpu --timeout 10 --slurm --array-limit 2 \
    --out "$work/out" >"$work/stdout" 2>"$work/stderr" || { rc=$?; cat "$work/stderr"; fail "grade --slurm exited $rc"; }
  cat "$work/stdout"
  grep -q "submitted Slurm array job [0-9]*: 10 task(s) (--array=0-9%2)" "$work/stderr" \
    || { cat "$work/stderr"; fail "not one array job of 10 tasks"; }
  [ "$(jobs_submitted)" = 1 ] || fail "more than one job"
  [ "$(ls "$work/out/journal" | grep -c '\.json$')" = 10 ] || fail "not every journal entry"
  grep -q '"predicted_time":[[:space:]]*true' "$work/out/journal/alice.json" || fail "alice: not graded on the CPU backend"
  mkdir "$work/local"
  cp "$work/out/.performance-seed" "$work/local/"
  "$cli" grade "$class" --lab 02 --backend cpu --timeout 10 --jobs 2 --quiet --out "$work/local" \
    >/dev/null 2>"$work/local.err" || { cat "$work/local.err"; fail "local grading"; }
  diff <(totals "$work/local/gradebook.csv") <(totals "$work/out/gradebook.csv") \
    || fail "the Slurm gradebook's totals differ from a local grading's"
  [ "$(totals "$work/out/gradebook.csv" | grep -c .)" = 10 ] || fail "not ten students"
  ;;
attacks)
  # Submissions that go after what a Slurm grading keeps on the shared file system: forge_journal
  # writes a full-marks journal entry wherever it might be (Slurm's submit folder included),
  # unlink_files deletes result files. Each gets exactly its local grade: forge_journal 10.
  slurm_start "$work/cluster" || exit $?
  mkdir "$work/class"
  for s in alice_control forge_journal unlink_files; do
    cp -r "$root/tests/adversarial/02-tiled/$s" "$work/class/"
  done
  (cd "$work" && "$cli" grade "$work/class" --lab 02 --backend cpu --timeout 10 --slurm \
    --out "$work/out" >"$work/stdout" 2>"$work/stderr") || { rc=$?; cat "$work/stderr"; fail "grade --slurm exited $rc"; }
  cat "$work/stdout"
  [ "$(totals "$work/out/gradebook.csv" | grep '^forge_journal,')" = "forge_journal,10" ] \
    || fail "forge_journal: $(totals "$work/out/gradebook.csv" | grep forge_journal), expected 10"
  ! grep -rq '"total":100,"max":100' "$work/out/journal" || fail "a forged journal entry is in the journal"
  mkdir "$work/local"
  cp "$work/out/.performance-seed" "$work/local/"
  "$cli" grade "$work/class" --lab 02 --backend cpu --timeout 10 --quiet --out "$work/local" \
    >/dev/null 2>"$work/local.err" || { cat "$work/local.err"; fail "local grading"; }
  diff <(totals "$work/local/gradebook.csv") <(totals "$work/out/gradebook.csv") \
    || fail "the Slurm gradebook's totals differ from a local grading's"
  ;;
kit_lab)
  # A described lab's class (whole libwb programs) through Slurm: every task reads the lab's
  # description again; the same totals as a local grading.
  slurm_start "$work/cluster" || exit $?
  lab="$root/examples/kit-labs/histogram"
  "$cli" grade "$lab/submissions" --lab "$lab" --backend cpu --timeout 30 --slurm \
    --out "$work/out" >"$work/stdout" 2>"$work/stderr" || { rc=$?; cat "$work/stderr"; fail "grade --slurm exited $rc"; }
  cat "$work/stdout"
  grep -q '"graded_as":[[:space:]]*"program"' "$work/out/journal/correct.json" || fail "correct: not graded as a program"
  [ "$(totals "$work/out/gradebook.csv" | grep '^correct,')" = "correct,100" ] || fail "correct: not full marks"
  "$cli" grade "$lab/submissions" --lab "$lab" --backend cpu --timeout 30 --jobs 2 --quiet \
    --out "$work/local" >/dev/null 2>"$work/local.err" || { cat "$work/local.err"; fail "local grading"; }
  diff <(totals "$work/local/gradebook.csv") <(totals "$work/out/gradebook.csv") \
    || fail "the Slurm gradebook's totals differ from a local grading's"
  ;;
restart)
  # Kill the grader after it submitted: running it again submits nothing that Slurm still has,
  # and finishes. A task that fails meanwhile (judy's folder gone when it starts) is named with
  # its Slurm state, no outputs are written (exit 3); the next run resubmits that task alone.
  slurm_start "$work/cluster" || exit $?
  mkdir "$work/class"
  for s in alice heidi judy; do cp -r "$class/$s" "$work/class/"; done
  args=("$work/class" --lab 02 --backend cpu --timeout 10 --slurm --array-limit 1 --out "$work/out"
        --partition test --slurm-time 7)
  # --gres reaches sbatch: this node has no GPU, so sbatch refuses and the grader says why.
  "$cli" grade "${args[@]}" --gres gpu:1 >"$work/o1" 2>&1; rc=$?
  [ "$rc" = 2 ] && grep -q "sbatch refused the array job.*Invalid generic resource" "$work/o1" \
    || { cat "$work/o1"; fail "--gres gpu:1 on a node without GPUs: exit $rc"; }
  "$cli" grade "${args[@]}" >/dev/null 2>&1 &
  bg=$!
  wait_submitted
  [ "$(squeue -h -r -j "$(cut -d' ' -f1 "$work/out/slurm/jobs.txt")" -o '%P %l' | sort -u)" = "test 7:00" ] \
    || fail "--partition and --slurm-time did not reach the job: $(squeue -h -r -o '%P %l')"
  kill -9 "$bg"; wait "$bg" 2>/dev/null; bg=0
  job="$(cut -d' ' -f1 "$work/out/slurm/jobs.txt")"
  "$cli" grade "${args[@]}" >"$work/o2" 2>"$work/e2" &
  bg=$!
  for _ in $(seq 1 300); do grep -q "watching" "$work/e2" && break; sleep 0.1; done
  mv "$work/class/judy" "$work/judy"   # her task is still pending behind the array limit of 1
  wait "$bg"; rc=$?; bg=0
  tr '\r' '\n' <"$work/e2" | grep -v '^\[' 
  grep -q "watching 3 task(s) that Slurm still has" "$work/e2" || fail "the restarted grader did not watch the earlier job"
  grep -q "submitted" "$work/e2" && fail "the restarted grader submitted again"
  [ "$rc" = 3 ] || fail "exit $rc with a failed task, expected 3"
  grep -q "judy: Slurm task ${job}_2 ended FAILED without a journal entry" "$work/e2" \
    || fail "judy's failed task is not named"
  grep -q "submission judy is no longer in" "$work/out/slurm/logs/${job}_2.txt" || fail "judy's task log"
  mv "$work/judy" "$work/class/judy"
  [ ! -e "$work/out/gradebook.csv" ] || fail "a gradebook without judy"
  [ "$(jobs_submitted)" = 1 ] || fail "a second job"
  "$cli" grade "${args[@]}" >"$work/o3" 2>"$work/e3" || { rc=$?; cat "$work/e3"; fail "the third run exited $rc"; }
  grep -q "submitted Slurm array job [0-9]*: 1 task(s) (--array=2%1)" "$work/e3" \
    || { cat "$work/e3"; fail "judy alone was not resubmitted"; }
  [ "$(jobs_submitted)" = 2 ] || fail "not exactly one more job"
  [ "$(totals "$work/out/gradebook.csv" | cut -d, -f1 | tr '\n' ' ')" = "alice heidi judy " ] \
    || fail "the gradebook: $(totals "$work/out/gradebook.csv")"
  ;;
gpu_class)
  # A GPU node: the node's GPUs are a generic resource (GresTypes=gpu, gres.conf naming
  # /dev/nvidia*), the example class goes through Slurm with --gres gpu:1 --backend gpu, and a
  # local GPU grading on the same performance dataset gives every student the same total (to the
  # GPU's timing noise).
  command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 \
    || { echo "SKIP: no CUDA device here (nvidia-smi -L fails): the GPU node case runs on a GPU machine" >&2; exit 77; }
  ngpu="$(ls /dev/nvidia[0-9]* 2>/dev/null | wc -l)"
  TEST_SLURM_GPUS="$ngpu" slurm_start "$work/cluster" || exit $?
  [ "$(sinfo -h -N -o '%G')" = "gpu:$ngpu" ] || fail "the node's gres: $(sinfo -h -N -o '%G'), expected gpu:$ngpu"
  "$cli" grade "$class" --lab 02 --backend gpu --timeout 10 --slurm --gres gpu:1 \
    --out "$work/out" >"$work/stdout" 2>"$work/stderr"; rc=$?
  [ "$rc" = 0 ] || { cat "$work/stderr"; fail "grade --slurm --gres gpu:1 --backend gpu exited $rc"; }
  cat "$work/stdout"
  grep -q "submitted Slurm array job [0-9]*: 10 task(s)" "$work/stderr" || { cat "$work/stderr"; fail "not one array job of 10 tasks"; }
  grep -q '"backend":[[:space:]]*"gpu"' "$work/out/journal/alice.json" || fail "alice: not graded on the GPU"
  grep -q '"predicted_time":[[:space:]]*true' "$work/out/journal/alice.json" && fail "alice: a predicted time on the GPU"
  mkdir "$work/local"
  cp "$work/out/.performance-seed" "$work/local/"
  "$cli" grade "$class" --lab 02 --backend gpu --timeout 10 --jobs 1 --quiet --out "$work/local" \
    >/dev/null 2>"$work/local.err"; rc=$?
  [ "$rc" = 0 ] || { cat "$work/local.err"; fail "local GPU grading exited $rc"; }
  paste -d' ' <(totals "$work/out/gradebook.csv") <(totals "$work/local/gradebook.csv") | sed 's/^/slurm, local: /'
  # Two timed runs of one kernel differ by the GPU's timing noise: a total may move by a few
  # hundredths of a performance point (seen: 85.45 and 85.46), never more than GPU_TOTAL_NOISE.
  paste -d, <(totals "$work/out/gradebook.csv") <(totals "$work/local/gradebook.csv") \
    | awk -F, -v tol="${GPU_TOTAL_NOISE:-0.5}" '$1 != $3 || $2 - $4 > tol || $4 - $2 > tol { print; bad = 1 } END { exit bad }' \
    || fail "the Slurm GPU gradebook's totals differ from a local GPU grading's by more than timing noise"
  [ "$(totals "$work/out/gradebook.csv" | grep -c .)" = 10 ] || fail "not ten students"
  ;;
*) fail "no case $case_name" ;;
esac
echo "ok: $case_name"
