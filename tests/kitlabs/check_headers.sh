#!/usr/bin/env bash
# Every program of examples/kit-labs says, in its first two lines, the verdict the grader must
# give it and why; every lab has a lab.json, datasets and a correct program that must pass.
#   check_headers.sh KIT_LABS_DIR
set -u
kit="$1" bad=0 labs=0
complain() { echo "FAIL: $*" >&2; bad=1; }
for lab in "$kit"/*/; do
  lab="${lab%/}" labs=$((labs + 1))
  [ -r "$lab/lab.json" ] || complain "$lab: no lab.json"
  [ -d "$lab/datasets/0" ] || complain "$lab: no datasets/0"
  [ -r "$lab/submissions/correct/main.cu" ] || complain "$lab: no submissions/correct/main.cu"
  n=0
  for src in "$lab"/submissions/*/main.cu; do
    n=$((n + 1))
    head -1 "$src" | grep -Eqx '// expect: (pass|wrong|unsafe|crash|refused|timeout)' \
      || complain "$src: line 1 is not '// expect: VERDICT'"
    sed -n 2p "$src" | grep -Eq '^// [^ ].{10,}' || complain "$src: line 2 does not say why"
  done
  head -1 "$lab/submissions/correct/main.cu" | grep -qx '// expect: pass' \
    || complain "$lab: the correct program does not expect pass"
  [ "$n" -ge 3 ] || complain "$lab: $n programs; expected a correct one and two broken ones or more"
done
[ "$labs" -gt 0 ] || complain "no labs in $kit"
[ "$bad" = 0 ] && echo "ok: $labs labs"
exit $bad
