#!/usr/bin/env bash
# End-to-end cases for the tilelab command-line program, one per CTest test.
#   cli_cases.sh CASE CLI DATASETS [ARGS...]
set -u
case_name="$1" cli="$2" shipped="$3"; shift 3
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# run STATUS CMD...: runs CMD, keeps stdout/stderr in $work/out and $work/err, checks the status.
run() {
  local want="$1"; shift
  "$@" >"$work/out" 2>"$work/err"; local rc=$?
  cat "$work/out"; cat "$work/err" >&2
  [ "$rc" = "$want" ] || fail "\"$*\" exited $rc, expected $want"
}
has() { grep -qF -- "$1" "$work/out" "$work/err" || fail "output lacks: $1"; }

case "$case_name" in
malformed)
  # ARGS: fixture file, the message's text after the file name. The broken file stands in for A.
  fixture="$1" after_name="$2"
  mkdir "$work/ds"
  for f in input0 input1 output; do cp "$fixture" "$work/ds/$f.raw"; done
  run 2 "$cli" check-dataset "$work/ds"
  [ "$(wc -l <"$work/err")" = 1 ] || fail "expected exactly one line on stderr"
  has "$work/ds/input0.raw$after_name"
  ;;
lab_ids)
  # No lab is named by its id outside the registry (datagen/lab_sizes.c): the commands, the
  # grader and the runner ask a lab's capabilities. ARGS: the kit's root. Comments may name one.
  root="$1"
  grep -rnE '"[0-9]{2}-[a-z][a-z-]*"' "$root"/cli "$root"/grader "$root"/runner "$root"/explain \
    --include=*.c --include=*.h | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/\*|\*)' >"$work/found"
  [ ! -s "$work/found" ] || fail "a lab id outside the registry: $(cat "$work/found")"
  ;;
toy_lab)
  # docs/contributing.md's toy lab. ARGS: the program built with one more lab registered
  # (toy_lab.c). It names the lab in every usage text and error that lists the labs, resolves it
  # by id, number and name in every command, writes its datasets from its size table and follows
  # its capabilities (a square lab's performance size, no default dataset for diagnose); the
  # kit's own program, built without it, does not know it.
  toy="$1"
  lacks() { ! grep -qF -- "$1" "$work/out" "$work/err" || fail "output has: $1"; }
  # Usage texts, generated from the registry.
  run 0 "$toy" run --help; has "  LAB              01-basic ... 07-toy (or 01, 2, tiled, ...)"
  run 0 "$toy" grade --help; has "  --lab LAB       01-basic ... 07-toy (or 02, tiled, ...)"
  run 0 "$toy" export --help; has "  LAB             01-basic ... 07-toy (or 02, tiled, ...)"
  run 0 "$toy" help datasets
  has "                  06-challenge, 07-toy (or 01, 2, tiled, ...), or \`all\` for every lab"
  run 0 "$cli" run --help; has "01-basic ... 06-challenge (or"; lacks "07-toy"
  run 0 "$cli" help datasets  # the kit's, as it was written by hand
  has "  LAB             01-basic, 02-tiled, 03-arbitrary, 04-rectangular, 05-bank-conflicts,"
  has "                  06-challenge (or 01, 2, tiled, ...), or \`all\` for every lab"

  # Errors that list the labs.
  run 2 "$toy" run nosuch; has "05-bank-conflicts 06-challenge 07-toy, or a lab.json)"
  run 2 "$toy" diagnose nosuch; has "06-challenge 07-toy, or a lab.json)"
  run 2 "$toy" datasets nosuch; has "06-challenge 07-toy, or all, or kit-labs)"
  run 2 "$toy" grade "$work" --lab nosuch; has "(01-basic ... 07-toy, or a lab.json"
  run 2 "$cli" run toy; has "no lab \"toy\""

  # Its sizes: the datasets command writes one dataset per size of its table.
  run 0 "$toy" datasets toy --out "$work/ds"
  [ -f "$work/ds/0/input0.raw" ] && [ -f "$work/ds/1/output.raw" ] && [ ! -e "$work/ds/2" ] ||
    fail "expected datasets 0 and 1 of the toy lab's two sizes"
  head -n 1 "$work/ds/1/input0.raw" | grep -qx '8 8' || fail "dataset 1 is not 8 x 8"
  run 0 "$cli" check-dataset "$work/ds/0"

  # One resolution for every command, by id, number and name; then its capabilities decide.
  mkdir -p "$work/root/labs/07-toy" "$work/subs"
  echo '// a toy lab file' >"$work/root/labs/07-toy/template.cu"
  export TILELAB_ROOT="$work/root"
  for name in 07-toy 7 toy; do
    run 2 "$toy" run "$name"
    has "run: no datasets in datasets/07-toy (make them with ./tilelab datasets 07-toy)"
  done
  run 2 "$toy" diagnose 7; has "diagnose: lab 07-toy has no default dataset: give --dataset DIR"
  run 2 "$toy" grade "$work/subs" --lab toy --perf-size 3x5x8
  has "--perf-size: lab 07-toy multiplies square matrices; give one size N"
  ;;
help)
  run 0 "$cli" help
  for c in test datasets check-dataset bench help; do has "  $c "; done
  for c in datasets check-dataset bench; do
    run 0 "$cli" "$c" --help; has "usage: ./tilelab $c"
    run 0 "$cli" help "$c"; has "usage: ./tilelab $c"
  done
  run 2 "$cli" frobnicate; has "no command \"frobnicate\""
  ;;
bad_usage)
  run 2 "$cli" datasets; has "name a lab"
  run 2 "$cli" datasets 07; has "no lab \"07\""
  run 2 "$cli" datasets 03 --size 12x0x3 --out "$work/x"; has "--size"
  run 2 "$cli" datasets 03 --format yaml; has "--format expects text or binary"
  run 2 "$cli" datasets 03 --bogus; has "unknown or incomplete option \"--bogus\""
  run 2 "$cli" check-dataset; has "name a dataset folder"
  run 2 "$cli" check-dataset "$work/none"; has "not a folder"
  mkdir "$work/empty"; run 2 "$cli" check-dataset "$work/empty"; has "no dataset found"
  ;;
shipped_datasets_check)
  # The numbered folders are the shipped ones; large/ (made on demand) is not part of the test.
  run 0 "$cli" check-dataset "$shipped"/*/[0-9]*
  has "summary: "; grep -q "0 wrong, 0 unreadable" "$work/out" || fail "not all shipped datasets are ok"
  ;;
shipped_datasets_reproduce)
  # The shipped datasets are exactly what the generator writes for seed 0.
  run 0 "$cli" datasets all --out "$work/regen"
  for lab in "$shipped"/*/; do
    lab="$(basename "$lab")"
    diff -r --exclude=large "$shipped/$lab" "$work/regen/$lab" >/dev/null \
      || fail "datasets/$lab differs from a fresh generation"
  done
  ;;
kit_labs_reproduce)
  # ARGS: examples/kit-labs. Its committed datasets are exactly what the generator writes for
  # seed 0; another seed gives other values, the same seed the same files.
  kit="$1"
  run 0 "$cli" datasets kit-labs --out "$work/regen"; has "64 created"
  for lab in "$kit"/*/; do
    lab="$(basename "$lab")"
    [ -d "$kit/$lab/datasets" ] || fail "examples/kit-labs/$lab has no datasets folder"
    diff -r "$kit/$lab/datasets" "$work/regen/$lab" >"$work/diff" \
      || { head -5 "$work/diff"; fail "examples/kit-labs/$lab/datasets differs from a fresh generation"; }
  done
  run 0 "$cli" datasets kit-labs --seed 9 --out "$work/s9"
  diff -q "$work/regen/histogram/1/input.raw" "$work/s9/histogram/1/input.raw" >/dev/null \
    && fail "a new seed changed nothing"
  run 0 "$cli" datasets kit-labs --seed 9 --out "$work/s9"; has "64 unchanged"
  run 2 "$cli" datasets kit-labs --size 5 --out "$work/x"; has "takes --out, --seed and --force only"
  ;;
deterministic)
  run 0 "$cli" datasets 04 --seed 77 --out "$work/a"
  run 0 "$cli" datasets 04 --seed 77 --out "$work/b"
  diff -r "$work/a" "$work/b" >/dev/null || fail "same seed, different files"
  run 0 "$cli" datasets 04 --seed 78 --out "$work/c"
  diff -q "$work/a/6/input0.raw" "$work/c/6/input0.raw" >/dev/null && fail "a new seed changed nothing"
  run 0 "$cli" datasets 04 --seed 77 --out "$work/a"; has "17 unchanged"
  ;;
nothing_lost)
  run 0 "$cli" datasets 03 --size 5 --size 3x4x2 --out "$work/d" --check; has "2 checked ok"
  echo "2 2" >"$work/d/1/output.raw"; echo "1 2 3 4" >>"$work/d/1/output.raw"
  cp "$work/d/1/output.raw" "$work/saved"
  run 2 "$cli" datasets 03 --size 5 --size 3x4x2 --out "$work/d"; has "different content"
  cmp -s "$work/d/1/output.raw" "$work/saved" || fail "a refused regeneration changed the file"
  run 0 "$cli" datasets 03 --size 5 --size 3x4x2 --out "$work/d" --force; has "1 replaced"
  run 0 "$cli" check-dataset "$work/d"
  ;;
wrong_expected_output)
  run 0 "$cli" datasets 04 --size 6x5x4 --out "$work/w"
  # Nudge one expected value (row 2, col 3) by one part in a thousand.
  awk 'NR==4 { $4 = $4 * 1.001 } { print }' "$work/w/0/output.raw" >"$work/t" && mv "$work/t" "$work/w/0/output.raw"
  run 1 "$cli" check-dataset "$work/w"; has "WRONG expected output: 1 element(s) off"; has "row 2 col 3"
  ;;
tolerance)
  # ARGS: the fixture folder (tests/data/tolerance, its README gives each verdict).
  fx="$1"
  run 0 "$cli" check-dataset "$fx/two-decimals"
  has "two-decimals: ok, bound rule (5x7x4, text; largest deviation "; has " ulps at row "
  run 0 "$cli" check-dataset --tolerance libwb "$fx/two-decimals"; has "ok, libwb rule"
  run 1 "$cli" check-dataset --tolerance exact "$fx/two-decimals"
  has "WRONG expected output: 20 element(s) off under the exact rule"
  for rule in bound libwb exact; do
    run 1 "$cli" check-dataset --tolerance "$rule" "$fx/off-by-one"
    has "WRONG expected output: 1 element(s) off under the $rule rule; first at row 2 col 1:"
    has "largest deviation "; grep -q "ulps at row 2 col 1)" "$work/out" || fail "$rule: not at row 2 col 1"
    run 0 "$cli" check-dataset --tolerance "$rule" "$fx/generated"; has "ok, $rule rule"
  done
  has "bit-exact"
  # Several folders: one line each, the summary, the worst status.
  run 1 "$cli" check-dataset "$fx"; has "summary: 2 ok, 1 wrong, 0 unreadable"
  run 2 "$cli" check-dataset --tolerance relative "$fx/generated"
  has "--tolerance expects bound, libwb or exact, got \"relative\""
  ;;
binary_and_large)
  run 0 "$cli" datasets 02 --size 40x24x8 --format binary --out "$work/b" --check; has "binary created"
  head -c 8 "$work/b/0/input0.raw" | grep -q TILELAB || fail "no binary magic"
  ;;
program_bad_datasets)
  # A whole program on broken datasets: bad input naming the file and place, never the
  # program's fault; a description that is not one says which key.
  lab="$TILELAB_ROOT/examples/kit-labs/vector-add"
  src="$lab/submissions/correct/main.cu"
  mkdir -p "$work/d/0"
  printf '3\n1\n2\n' >"$work/d/0/input0.raw"
  printf '3\n1\n2\n3\n' >"$work/d/0/input1.raw"
  printf '3\n2\n4\n6\n' >"$work/d/0/output.raw"
  run 2 "$cli" run "$lab" --source "$src" --dataset "$work/d/0" --backend cpu --no-time
  has "BAD INPUT"
  has "input0.raw: ended after 2 of 3 values"
  printf '{"name": "x", "type": "vector", "tolerance": "close", "inputs": ["a"],\n "output": "o", "datasets": "d"}\n' >"$work/lab.json"
  run 2 "$cli" run "$work/lab.json" --source "$src"
  has '"tolerance" is "close"; expected one of bound, libwb, exact, libgputk'
  ;;
save_outputs_names)
  # Two datasets whose folders share a name ("0"), one given with a trailing slash: two files,
  # each named with the folder above, each holding its own dataset's result (16x16 and 32x32).
  run 0 "$cli" datasets 02 --size 16 --out "$work/a"
  run 0 "$cli" datasets 02 --size 32 --out "$work/b"
  quick=(run 02 --solution --backend cpu --no-time --no-safety)
  run 0 "$cli" "${quick[@]}" --dataset "$work/a/0" --dataset "$work/b/0/" --save-outputs "$work/d"
  has "result saved to $work/d/a-0.raw"; has "result saved to $work/d/b-0.raw"
  [ "$(ls "$work/d" | wc -l)" = 2 ] || fail "expected exactly two files in $work/d"
  [ "$(stat -c %s "$work/d/a-0.raw")" -lt "$(stat -c %s "$work/d/b-0.raw")" ] \
    || fail "a-0.raw does not hold the 16x16 result"
  # The same folder twice: numbered. A lone folder keeps its own name, "." and "0/" too.
  run 0 "$cli" "${quick[@]}" --dataset "$work/a/0" --dataset "$work/a/0/" --save-outputs "$work/e"
  has "result saved to $work/e/0.raw"; has "result saved to $work/e/0-2.raw"
  (cd "$work/b/0" && run 0 "$cli" "${quick[@]}" --dataset . --save-outputs "$work/f")
  has "result saved to $work/f/0.raw"
  ;;
bench_steps)
  # ARGS: the kit's root. Every step (lab 05's padded solution, then the steps folder's files in
  # order) gets a row that passed, with the CPU backend's counters and a predicted time; the TSV
  # has the same rows; the roofline picture is well-formed SVG with a labelled point per step.
  root="$1"
  run 2 "$cli" bench --svg "$work/x.svg"; has "are for the steps suite"
  run 2 "$cli" bench steps --backend tpu; has "--backend expects gpu or cpu"
  run 2 "$cli" bench steps --counts-size 0; has "--counts-size"
  run 2 "$cli" bench steps --tsv "$work/none/t.tsv"; has "$work/none/t.tsv: cannot write the table (--tsv)"
  steps=(0-lab05-padded)
  for f in "$root"/solutions/06-challenge/steps/[0-9]*.cu; do steps+=("$(basename "$f" .cu)"); done
  [ ${#steps[@]} -ge 6 ] || fail "expected at least 5 step files, found ${#steps[@]} steps"
  [ -f "$root/solutions/06-challenge/solution.cu" ] && steps+=("${#steps[@]}-solution")
  run 0 "$cli" bench steps --backend cpu --size 256 --svg "$work/r.svg" --tsv "$work/t.tsv"
  has "performance model's H100 time at 256^3"
  for s in "${steps[@]}"; do
    grep -qE "^  $s +pass +[0-9]+ +[0-9]+ .* [0-9]+\.[0-9]{3} +[0-9]+ +[0-9.]+ (issue|LSU|L2|DRAM|launch)$" "$work/out" \
      || fail "no passing row with figures for step $s"
  done
  [ "$(grep -c '^  [0-9]' "$work/out")" = ${#steps[@]} ] || fail "expected ${#steps[@]} step rows"
  # Step numbers in order: 0, 1, 2, ...
  grep -o '^  [0-9]*-' "$work/out" | tr -d ' -' | awk '$1 != NR - 1 { exit 1 }' || fail "steps out of order"
  [ "$(head -1 "$work/t.tsv" | cut -f1-2)" = "$(printf 'step\tcheck')" ] || fail "TSV header"
  [ "$(wc -l <"$work/t.tsv")" = $((${#steps[@]} + 1)) ] || fail "TSV: a header and a line per step"
  awk -F'\t' -v want="$(head -1 "$work/t.tsv" | awk -F'\t' '{ print NF }')" \
    'NF != want || $2 != (NR == 1 ? "check" : "pass") { exit 1 }' "$work/t.tsv" || fail "TSV rows"
  if command -v xmllint >/dev/null; then
    xmllint --noout "$work/r.svg" || fail "the SVG is not well-formed"
  else
    tail -1 "$work/r.svg" | grep -q '^</svg>$' || fail "the SVG is not closed"
  fi
  [ "$(grep -c '<circle ' "$work/r.svg")" = ${#steps[@]} ] || fail "expected a point per step"
  for s in "${steps[@]}"; do grep -q ">$s (" "$work/r.svg" || fail "no label for $s"; done
  grep -q 'H100 FP32 FMA peak 67 TFLOP/s' "$work/r.svg" || fail "no compute roof"
  grep -q '<polyline ' "$work/r.svg" || fail "no roofs"
  ;;
*) fail "unknown case $case_name" ;;
esac
echo "ok: $case_name"
