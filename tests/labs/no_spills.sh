#!/usr/bin/env bash
# Checks that each kernel file compiles for Hopper (sm_90, -O3 as the kit builds labs) with no
# register spills: ptxas -v must report 0 bytes of spill stores and loads for every kernel.
#   no_spills.sh NVCC INCLUDE_DIR FILE...
set -u
[ $# -ge 3 ] || { echo "usage: no_spills.sh NVCC INCLUDE_DIR FILE..." >&2; exit 2; }
nvcc="$1" include="$2"
shift 2
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fail=0
for file in "$@"; do
  if ! "$nvcc" -std=c++17 -O3 -arch=sm_90 -I"$include" -Xptxas -v -c -o "$tmp/k.o" "$file" \
       >"$tmp/log" 2>&1; then
    cat "$tmp/log"; echo "FAIL: $file does not compile"; fail=1; continue
  fi
  regs="$(grep -o 'Used [0-9]* registers' "$tmp/log" | tr '\n' ' ')"
  kernels="$(grep -c 'Used [0-9]* registers' "$tmp/log")"
  if [ "$kernels" = 0 ]; then
    cat "$tmp/log"; echo "FAIL: $file: ptxas reported no kernel"; fail=1
  elif grep -E '[1-9][0-9]* bytes spill (stores|loads)' "$tmp/log"; then
    echo "FAIL: $file spills registers"; fail=1
  else
    echo "$file: no spills ($regs)"
  fi
done
exit $fail
