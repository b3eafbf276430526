#!/usr/bin/env bash
# A whole libwb program with a bug seeded: libwb_tiled.cu with the line marked SEEDED removed
# (the barrier after a phase's reads), then expect.sh's checks on it.
#   seeded_program.sh PROGRAM EXPECT CLI LAB STATUS [--dataset DIR] -- PATTERN...
set -u
program="$1" expect="$2" cli="$3" lab="$4" status="$5"; shift 5
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
sed '/\/\/ SEEDED:/d' "$program" >"$work/libwb_missing_sync.cu"
cmp -s "$program" "$work/libwb_missing_sync.cu" && { echo "FAIL: no line marked SEEDED"; exit 1; }
"$expect" "$cli" "$lab" "$work/libwb_missing_sync.cu" "$status" "$@"
