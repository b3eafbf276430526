#!/usr/bin/env bash
# Runs a kit-lab program the libwb way on every dataset of its lab and checks the outcome.
#   run_lab.sh LAB_DIR PROGRAM SOURCE CHECK
# LAB_DIR/lab.json gives the -t type, the input and output file names and the datasets folder.
# CHECK, with LIST either `all` or dataset numbers (0,3,7):
#   pass         every dataset prints PASS                          (SOURCE expects pass)
#   fail:LIST    exactly the listed datasets print FAIL, the others PASS      (expects wrong)
#   unsafe:LIST  run with the CPU backend's checks on (TILELAB_DIAGNOSE), exactly the listed
#                datasets have a finding (a race, a stray access, a read of memory nothing
#                wrote...), the others PASS                                  (expects unsafe)
#   cheat        every dataset prints PASS when run directly: only a grader that checks what the
#                device computed can see that the answer is not the program's own (expects
#                wrong, or refused for one that reads the expected output)
# Apart from unsafe datasets, every run must end with status 0 (wbSolution does not end the
# program). SOURCE's first line must be its `// expect:` verdict, as above.
set -u
lab="$1" prog="$2" src="$3" spec="$4"
fail() { echo "FAIL: $*" >&2; exit 1; }
json="$lab/lab.json"
[ -r "$json" ] || fail "$json: cannot read"
# lab.json has one fixed layout (examples/kit-labs/README.md): pick its fields with sed.
field() { sed -n "s/.*\"$1\": *\"\\([^\"]*\\)\".*/\\1/p" "$json"; }
type="$(field type)" output="$(field output)" datasets="$(field datasets)"
inputs="$(sed -n 's/.*"inputs": *\[\([^]]*\)\].*/\1/p' "$json" | tr -d ' "')"
[ -n "$type" ] && [ -n "$output" ] && [ -n "$datasets" ] && [ -n "$inputs" ] \
  || fail "$json: type, inputs, output or datasets missing"

verdict="$(sed -n '1s|^// expect: \([a-z]*\)$|\1|p' "$src")"
case "$spec:$verdict" in
  pass:pass | fail:*:wrong | cheat:wrong | cheat:refused | unsafe:*:unsafe) ;;
  *) fail "$src: first line says '$(head -1 "$src")', which does not fit the check '$spec'" ;;
esac

out="$(mktemp)" diag="$(mktemp)"; trap 'rm -f "$out" "$diag"' EXIT
failed=() passed=() bad=0
for i in $(ls "$lab/$datasets" | sort -n); do
  dir="$lab/$datasets/$i/"
  files="$(echo "$inputs" | tr ',' '\n' | sed "s|^|$dir|" | paste -sd,)"
  : >"$diag"
  if [ "${spec%%:*}" = unsafe ]; then
    TILELAB_DIAGNOSE="$diag" "$prog" -i "$files" -e "$dir$output" -t "$type" >"$out" 2>&1; rc=$?
  else
    "$prog" -i "$files" -e "$dir$output" -t "$type" >"$out" 2>&1; rc=$?
  fi
  finding="$(grep -o '"kind": *"[^"]*"' "$diag" | head -1 | sed 's/.*: *"\(.*\)"/\1/')"
  if [ -n "$finding" ]; then
    echo "dataset $i: unsafe ($finding)"; failed+=("$i")
  elif [ "$rc" != 0 ]; then
    echo "dataset $i: exit status $rc"; tail -5 "$out"; bad=1
  elif grep -q '^ *PASS: ' "$out"; then
    echo "dataset $i: PASS"; passed+=("$i")
  elif grep -q '^ *FAIL: ' "$out"; then
    echo "dataset $i: FAIL ($(grep -m1 '^ *FAIL: ' "$out" | sed 's/^ *FAIL: //'))"; failed+=("$i")
  else
    echo "dataset $i: no verdict printed"; tail -5 "$out"; bad=1
  fi
done
[ "$bad" = 0 ] || fail "a run did not end normally"
[ "${#passed[@]}" -gt 0 ] || [ "${#failed[@]}" -gt 0 ] || fail "no datasets in $lab/$datasets"
got="$(IFS=,; echo "${failed[*]-}")"
case "$spec" in
  pass | cheat) [ -z "$got" ] || fail "datasets $got fail; every one must pass" ;;
  fail:all | unsafe:all)
    [ "${#passed[@]}" = 0 ] || fail "datasets $(IFS=,; echo "${passed[*]}") pass; none may" ;;
  fail:* | unsafe:*)
    [ "$got" = "${spec#*:}" ] || fail "the datasets that fail are '$got', expected '${spec#*:}'" ;;
  *) fail "unknown check '$spec'" ;;
esac
echo "ok: $spec"
