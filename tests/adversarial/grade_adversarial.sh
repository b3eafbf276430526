#!/usr/bin/env bash
# Grades the adversarial class (README.md beside this file) and checks that every submission
# gets exactly the grade it must.
#   grade_adversarial.sh CLI KIT_ROOT        ($TILELAB_BACKEND: cpu (default) or gpu)
# $GRADEBOOK_COPY, when set, is a file the gradebook is copied to (to compare two backends).
# Some cases cannot live in git (links, a FIFO, odd folder names, a source over 1 MiB): they are
# made here, in a copy of the class.
set -u
cli="$1" root="$2"
backend="${TILELAB_BACKEND:-cpu}"
export TILELAB_ROOT="$root"
work="$(mktemp -d)"
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
class="$work/class" out="$work/out"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# ---- the class: the files in git, and the cases made here ------------------------------------
cp -r "$root/tests/adversarial/02-tiled" "$class"
control="$class/alice_control"
make_copy() { mkdir -p "$class/$1" && cp "$control/template.cu" "$class/$1/"; }
make_copy symlink_inside && ln -s /etc/passwd "$class/symlink_inside/notes.txt"
mkdir -p "$class/symlink_template" && ln -s ../alice_control/template.cu "$class/symlink_template/template.cu"
ln -s alice_control "$class/symlink_folder"
make_copy fifo_inside && mkfifo "$class/fifo_inside/pipe"
make_copy big_source && head -c 1200000 /dev/zero | tr '\0' '/' >>"$class/big_source/template.cu"
make_copy deep_folders && mkdir -p "$class/deep_folders/a/b/c/d/e/f" && echo "// deep" >"$class/deep_folders/a/b/c/d/e/f/x.h"
# A NUL byte: nvcc skips it, a reader that stops there would not see what follows.
make_copy nul_byte && printf '\0\nstatic void hidden(void) { (void)fopen("/etc/passwd", "r"); }\n' >>"$class/nul_byte/template.cu"
esc_id=$'esc\x1b[31mred'
formula_id='=HYPERLINK("mailto:x@example.com","grade")'
long_a="$(printf 'l%.0s' $(seq 1 249))a" long_b="$(printf 'l%.0s' $(seq 1 249))b"
for id in "$esc_id" "$formula_id" "$long_a" "$long_b"; do make_copy "$id"; done

# ---- grade, with a secret in the environment and on standard input -----------------------------
secret="tilelab-secret-$$-$RANDOM"
mkdir -p "$work/datasets" && cp -r "$root"/datasets/02-tiled/{0,1,2} "$work/datasets/"
# The grading's default performance size: on the CPU backend the model predicts there.
perf=2048
start=$(date +%s)
echo "$secret" | TILELAB_SECRET_TOKEN="$secret" "$cli" grade "$class" --lab 02 --backend "$backend" \
  --datasets "$work/datasets" --perf-size "$perf" --timeout 10 --jobs 2 --out "$out" \
  >"$work/stdout" 2>"$work/stderr" || { rc=$?; cat "$work/stderr"; echo "FAIL: grade exited $rc"; exit 1; }
cat "$work/stdout"
echo "graded in $(($(date +%s) - start)) s"

# ---- what each must get ------------------------------------------------------------------------
gb="$out/gradebook.csv"
[ -z "${GRADEBOOK_COPY:-}" ] || cp "$gb" "$GRADEBOOK_COPY"
journal() { # the journal file of a plain id
  echo "$out/journal/$1.json"
}
col() { # col STUDENT COLUMN: a gradebook cell of a plain id
  awk -F, -v s="$1" -v c="$2" '{ sub(/\r$/, "") } NR==1 { for (i = 1; i <= NF; i++) if ($i == c) k = i }
                               $1 == s { print $k }' "$gb"
}
verdicts() { # the verdicts of a journal's datasets, in order
  awk '/"datasets":/ { on = 1 } /"performance":/ { on = 0 } on' "$1" |
    grep -o '"verdict":[[:space:]]*"[a-z-]*"' | sed 's/.*"\([a-z-]*\)"$/\1/' | tr '\n' ' ' | sed 's/ $//'
}
# expect ID COMPILE STATIC VERDICTS-REGEX PERF: yes (points), no (none), timed (a ratio to the
# reference was measured or predicted, whatever points it gives), max:P (at most P performance
# points: what an H100 gives it, plus one), near:P (within 3 points of P, an H100's points for
# an honest kernel)
expect() {
  local id="$1" compile="$2" static="$3" want="$4" perf="$5" j v p
  j="$(journal "$id")"
  [ -f "$j" ] || { fail "$id: no journal entry"; return; }
  [ "$(col "$id" compile)" = "$compile" ] || fail "$id: compile $(col "$id" compile), expected $compile"
  [ "$(col "$id" 'static checks')" = "$static" ] || fail "$id: static $(col "$id" 'static checks'), expected $static"
  v="$(verdicts "$j")"
  echo "$v" | grep -Eqx "$want" || fail "$id: datasets \"$v\", expected /$want/"
  p="$(col "$id" performance)"
  case "$perf" in
    yes) awk -v p="$p" 'BEGIN { exit !(p > 0) }' || fail "$id: no performance points" ;;
    timed) grep -Eq '"ratio":[[:space:]]*[0-9.]*[1-9]' "$j" || fail "$id: not timed" ;;
    max:*) awk -v p="$p" -v m="${perf#max:}" 'BEGIN { exit !(p != "" && p <= m) }' ||
             fail "$id: performance $p, more than ${perf#max:} (an H100's points + 1)" ;;
    near:*) awk -v p="$p" -v m="${perf#near:}" 'BEGIN { exit !(p != "" && p >= m - 3 && p <= m + 3) }' ||
              fail "$id: performance $p, not within 3 points of an H100's ${perf#near:}" ;;
    *) [ "$p" = 0 ] || fail "$id: performance $p, expected 0" ;;
  esac
}
# The three datasets copied above, then the safety dataset the grader makes for each grading.
all() { echo "$1 $1 $1 $1"; } # the same verdict on all four
bad='(crash|wrong|refused|unsafe)'
never_pass="$bad $bad $bad $bad"

expect alice_control 10 10 "$(all pass)" yes
expect fake_timing 10 0 "$(all pass)" yes
grep -q 'fopen()/open() (helper.h:' "$(journal fake_timing)" || fail "fake_timing: the forbidden call must be found in helper.h"
grep -q 'static checks failed; no forbidden libraries or calls: fopen()/open() (helper.h:[0-9]*)' \
  "$out/results/fake_timing/results.json" || fail "fake_timing: results.json must say which check failed, and where"
# Its host loop at the 2048^3 performance size outlasts the capture's time limit; at smaller
# performance sizes the copy of its host-computed P is refused ('host memory that is not an
# input'). Either way nothing is believed.
expect host_compute 10 10 "$(all '(refused|timeout)')" no
grep -Eq 'host memory that is not an input|host code did not return' "$(journal host_compute)" || fail "host_compute: the journal must say why"
expect host_cache 10 10 "$(all pass)" yes
expect device_cache 10 10 "$(all pass)" yes
expect embed_answer 10 10 "pass wrong wrong wrong" no
expect exit_second_call 10 10 "$(all crash)" no
expect exit_first_call 10 10 "$(all crash)" no
expect unlink_files 10 10 "$(all pass)" yes
expect forge_journal 10 0 "$(all wrong)" no
expect include_passwd 0 10 "$(all build-failed)" no
expect include_dev_zero 0 10 "$(all build-failed)" no
expect markup_in_error 0 10 "$(all build-failed)" no
grep -q '"output_format":[[:space:]]*"text"' "$out/results/markup_in_error/results.json" \
  || fail "markup_in_error: results.json must ask for plain text"
! grep -q '<script>document.title' "$out/report.html" || fail "markup_in_error: markup reached report.html"
expect include_escape 0 10 "$(all build-failed)" no
expect environment 10 10 "$(all pass)" yes
expect thread_bomb 10 10 "$(all pass)" yes
started="$(grep -o 'threads started: [0-9]*' "$(journal thread_bomb)" | grep -o '[0-9]*$')"
[ -n "$started" ] && [ "$started" -lt 100 ] || fail "thread_bomb: ${started:-?} threads started, the slot's limit should stop it under 100"
expect host_sleeps 10 10 "$(all timeout)" no
expect stdout_flood 10 10 "$(all pass)" yes
expect escape_sequences 10 10 "$(all pass)" yes
expect syncthreads_in_string 10 0 "$(all pass)" yes
expect printf_forgery 10 10 "$(all wrong)" no
# The safety checks stop these on every backend (a GPU alone might only read garbage).
expect host_pointer 10 10 "$(all unsafe)" no
expect scan_memory 10 10 "$(all unsafe)" no
expect ld_const_anywhere 10 10 "$(all unsafe)" no
expect detect_checks 10 10 "$(all unsafe)" no
expect skip_large 10 10 "$(all pass)" no
grep -q 'machine query at template.cu' "$(journal detect_checks)" || fail "detect_checks: the finding must name the query"
expect warp_sync_race 10 10 "$(all unsafe)" no
grep -q 'shared-memory race at template.cu' "$(journal warp_sync_race)" || fail "warp_sync_race: the finding must be the race"
expect memcpy_to_symbol 10 10 "$(all refused)" no
expect managed_memory 10 10 "$(all refused)" no
expect huge_malloc 10 10 "$(all refused)" no
expect many_launches 10 10 "$(all refused)" no
expect dlopen_cublas 10 10 "$never_pass" no
expect overwrite_input 10 10 "$(all wrong)" no
# Its product reads the transposed N down columns: slow at 2048^3 (about 0.1x the reference),
# so its points depend on the machine's figures; what must hold is that it was timed.
expect legit_scratch 10 10 "$(all pass)" timed
expect legit_streams_events 10 10 "$(all pass)" yes
expect legit_memset 10 10 "$(all pass)" yes
# The performance model's sample (CPU backend): fresh inputs, a secret draw of blocks, every
# sampled block's whole share of P stored by a kernel. On a GPU the performance dataset is
# checked whole: the same grades.
expect model_fixed_inputs 10 10 "$(all pass)" no
expect sample_positions_only 10 10 "$(all pass)" no
expect half_tiles_large 10 10 "$(all pass)" no
expect slow_off_sample 10 10 "$(all pass)" timed
ratio_of() { grep -o '"ratio":[[:space:]]*[0-9.e+-]*' "$(journal "$1")" | head -1 | grep -o '[0-9.e+-]*$'; }
awk -v r="$(ratio_of slow_off_sample)" 'BEGIN { exit !(r > 0 && r < 0.5) }' ||
  fail "slow_off_sample: ratio $(ratio_of slow_off_sample), expected under 0.5 (its slow blocks counted)"
# Device memory: a call's buffers are backed only where written, and bounded.
expect untouched_gigabytes 10 10 "$(all pass)" yes
expect device_memory_over 10 10 "$(all refused)" no
grep -q 'more than grading allows (4 GiB)' "$(journal device_memory_over)" ||
  fail "device_memory_over: the refusal must say what grading allows"
# Ten times the work it needs: slow, honest, and never stopped by the CPU backend's instruction
# limit (a hundred times the reference's work); its performance ratio is low but measured.
expect legit_ten_times_work 10 10 "$(all pass)" timed
# The performance model's cost classes (perfmodel/calibration/h100-cost-classes.tsv has their
# H100 times): an operation a GPU makes slow after every multiply-add earns no more points on
# the CPU backend than on an H100 (plus one); the honest slow kernels earn their H100 points,
# within 3. H100 points at 2048^3 (lab 02's rubric: 20 points, 0.2x to 0.8x of the reference).
expect cost_atomic_same_address 10 10 "$(all pass)" max:1    # H100: 15 s, 0 points
expect cost_threadfence_system 10 10 "$(all pass)" max:1     # 62.0 ms, 0 points
expect cost_nanosleep 10 10 "$(all pass)" max:8.6            # 4.92 ms (0.43x), 7.6 points
expect cost_local_array 10 10 "$(all pass)" max:1            # 106 ms, 0 points
expect cost_double_divide 10 10 "$(all pass)" max:1          # 15.9 ms, 0 points
expect cost_store_every_trip 10 10 "$(all pass)" near:8.9    # 4.53 ms (0.47x), 8.9 points
expect cost_naive 10 0 "$(all pass)" near:15.5               # 3.18 ms (0.66x), 15.5 points
expect touch_device_memory 10 10 "$(all crash)" no
grep -q 'segmentation fault' "$(journal touch_device_memory)" || fail "touch_device_memory: the crash must say segmentation fault"
expect wrong_parameters 10 10 "$never_pass" no
# Whole libwb programs (their own main): graded as programs, the answer they hand to wbSolution
# checked as the device computed it, their kernels timed (GPU) or predicted (CPU backend).
expect libwb_control 10 10 "$(all pass)" yes
grep -q '"graded_as":[[:space:]]*"program"' "$(journal libwb_control)" || fail "libwb_control: not graded as a program"
expect libwb_expected 10 10 "$(all refused)" no
grep -q 'imports the expected output' "$(journal libwb_expected)" || fail "libwb_expected: the refusal's reason"
# Host-made bytes reach the device only as the NaN pattern (untrusted filler): never credited.
expect libwb_host_upload 10 10 "$(all wrong)" no
expect libwb_symbol_answer 10 10 "$(all wrong)" no
expect libwb_exit_early 10 10 "$(all wrong)" no
grep -q 'never called wbSolution' "$(journal libwb_exit_early)" || fail "libwb_exit_early: the reason"
expect libwb_forge_log 10 0 "$never_pass" no
expect libwb_modify_input 10 10 "$(all wrong)" no
expect libwb_second_solution 10 10 "$(all wrong)" no
for id in symlink_inside symlink_template symlink_folder fifo_inside big_source deep_folders; do
  expect "$id" 0 0 "$(all refused)" no
done
grep -q 'symbolic link' "$(journal symlink_template)" || fail "symlink_template: the refusal must name the link"
grep -q 'FIFO' "$(journal fifo_inside)" || fail "fifo_inside: the refusal must name the FIFO"
expect nul_byte 10 0 "$(all pass)" yes

# ---- the odd ids: each graded on its own, every output inert -------------------------------------
for id in "$esc_id" "$formula_id"; do
  name="id-$(printf '%s' "$id" | od -An -tx1 | tr -d ' \n')"
  [ -f "$out/journal/$name.json" ] || { fail "no journal entry $name for id $(printf %q "$id")"; continue; }
  [ "$(verdicts "$out/journal/$name.json")" = "$(all pass)" ] || fail "id $(printf %q "$id"): $(verdicts "$out/journal/$name.json")"
  [ -f "$out/results/$name/results.json" ] && [ -f "$out/feedback/$name.txt" ] || fail "id $(printf %q "$id"): no results of its own"
done
# The two long ids share their first 249 bytes: two entries all the same, each with its results.
prefix="id-$(printf '%s' "${long_a:0:40}" | od -An -tx1 | tr -d ' \n')"
long_names="$(ls "$out/journal" | grep "^$prefix" | sed 's/\.json$//')"
[ "$(echo "$long_names" | wc -w)" = 2 ] || fail "the two long ids: entries $(echo $long_names)"
for name in $long_names; do
  [ "$(verdicts "$out/journal/$name.json")" = "$(all pass)" ] || fail "$name: $(verdicts "$out/journal/$name.json")"
  [ -f "$out/results/$name/results.json" ] || fail "$name: no results of its own"
done
[ "$(ls "$out/results" | wc -l)" = "$(ls "$out/journal" | wc -l)" ] || fail "results and journal entries differ in number"

# ---- what must appear nowhere --------------------------------------------------------------------
grep -rlF "$secret" "$out" && fail "the grader's secret reached the outputs"
grep -rl 'root:x:0:0' "$out" && fail "a line of /etc/passwd reached the outputs"
grep -l $'\x1b' "$gb" "$out"/feedback/* "$out/report.html" && fail "an escape byte in the outputs"
grep -Eq '(^|,)"?[=+@-]' "$gb" && fail "a gradebook cell starts like a formula"
if command -v python3 >/dev/null; then
  for r in "$out"/results/*/results.json; do
    python3 -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$r" 2>/dev/null ||
      fail "$r is not valid UTF-8 JSON"
  done
else
  echo "note: python3 not found: results.json files not parsed"
fi
kept="$(grep -o '"stdout":[[:space:]]*"[^"]*"' "$(journal stdout_flood)" | head -1 | wc -c)"
[ "$kept" -lt 70000 ] || fail "stdout_flood: $kept bytes of its output were kept"

if [ "$fails" -gt 0 ]; then
  echo "$fails check(s) failed" >&2
  exit 1
fi
echo "ok: the adversarial class got the grades it must ($(ls "$out/journal" | wc -l) submissions)"
