#!/usr/bin/env bash
# run and diagnose on bad inputs: each gets its exit status and one message that says what is
# wrong with which file, with one "tilelab:" prefix (a message that already names the file and
# the verdict is not wrapped in them again).
#   bad_inputs.sh CLI DATASETS
set -u
cli="$1" shipped="$2"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
fail=0
# check STATUS EXPECTED CMD...: EXPECTED (text, may span lines) must be in the output.
check() {
  local want="$1" expected="$2"; shift 2
  local out rc
  out="$("$@" 2>&1)"; rc=$?
  echo "\$ tilelab ${*:2}"; echo "$out"
  [ "$rc" = "$want" ] || { echo "FAIL: exit status $rc, expected $want"; fail=1; }
  [[ "$out" == *"$expected"* ]] || { echo "FAIL: no \"$expected\""; fail=1; }
  if grep -E 'tilelab:.*tilelab:|refused: [^ ]+: refused:' <<<"$out"; then
    echo "FAIL: a doubled prefix"; fail=1
  fi
}
mkdir "$work/folder.cu" "$work/short" "$work/bad_output"
printf '__global__ void k() { int x = ; }\n' >"$work/nobuild.cu"
ln -s "$work/nobuild.cu" "$work/link.cu"
cp "$shipped"/02-tiled/2/* "$work/short/" && printf '3 3\n1 2\n' >"$work/short/input0.raw"
cp "$shipped"/02-tiled/2/* "$work/bad_output/" && printf '96 96\n1 2\n' >"$work/bad_output/output.raw"
for cmd in run diagnose; do
  check 2 "tilelab: error: $work/none.cu: cannot read the source file" \
    "$cli" "$cmd" 02 --source "$work/none.cu"
  check 2 "tilelab: error: $work/none: not a dataset folder" \
    "$cli" "$cmd" 02 --solution --dataset "$work/none"
  check 2 "tilelab: error: $work/short/input0.raw: ended after 2 of 9 values" \
    "$cli" "$cmd" 02 --solution --dataset "$work/short"
  check 3 "tilelab: $work/folder.cu: refused: a folder" "$cli" "$cmd" 02 --source "$work/folder.cu"
  check 3 "tilelab: $work/link.cu: refused: a symbolic link" "$cli" "$cmd" 02 --source "$work/link.cu"
  check 3 "tilelab: $work/nobuild.cu: build-failed: nvcc refused the file (its messages follow)
nobuild.cu(1): error: expected an expression" "$cli" "$cmd" 02 --source "$work/nobuild.cu"
  check 2 "tilelab: error: $cmd: no lab \"09\"" "$cli" "$cmd" 09
done
check 2 "$work/bad_output/output.raw: ended after 2 of 9216 values" \
  "$cli" diagnose 02 --solution --dataset "$work/bad_output"
check 2 "$work/bad_output/output.raw: ended after 2 of 9216 values" \
  "$cli" run 02 --solution --dataset "$work/bad_output"
# A lab described by a lab.json: the program must be given, and a dataset must hold the files
# the description names.
kit="$(dirname "$shipped")/examples/kit-labs/vector-add"
check 2 "tilelab: error: diagnose: a lab described by $kit has no template of tilelab's: give the program with --source FILE" \
  "$cli" diagnose "$kit"
printf '#include <wb.h>\nint main(int argc, char **argv) { int x = ; }\n' >"$work/nobuild_main.cu"
check 3 "tilelab: $work/nobuild_main.cu: build-failed: nvcc refused the file (its messages follow)
nobuild_main.cu(2): error: expected an expression" "$cli" diagnose 02 --source "$work/nobuild_main.cu"
mkdir "$work/no_output" && cp "$kit"/datasets/0/input*.raw "$work/no_output/"
check 2 "tilelab: error: $work/no_output: not a dataset folder of lab vector-add (no readable output.raw" \
  "$cli" diagnose "$kit" --source "$kit/submissions/correct/main.cu" --dataset "$work/no_output"
exit $fail
