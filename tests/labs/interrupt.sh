#!/usr/bin/env bash
# Ctrl-C on `tilelab run`: every process the command started ends with it.
#   interrupt.sh CLI SOURCE [RUN OPTIONS...]
# Starts `run` on a kernel that runs for long, waits until its replay runs, notes every process
# the command started (sandboxes have sessions of their own: the process tree is followed), sends
# SIGINT to the command (as the terminal does to the foreground process) and checks that none
# of them is left a moment later.
set -um  # job control: a background job then takes SIGINT as a foreground one does
cli="$1" src="$2"; shift 2
out="$(mktemp)"
"$cli" run 02 --source "$src" --backend cpu --no-time --timeout 600 "$@" >"$out" 2>&1 &
pid=$!
descendants() {
  local kids
  kids="$(ps -eo ppid=,pid= | awk -v p="$1" '$1 == p { print $2 }')"
  for k in $kids; do echo "$k"; descendants "$k"; done
}
alive() { # those of the pids given that still run (a zombie has ended)
  for p in "$@"; do
    s="$(ps -o stat= -p "$p" 2>/dev/null)" && [ -n "$s" ] && [ "${s#Z}" = "$s" ] && echo "$p"
  done
}
replay_among() { for p in "$@"; do ps -o args= -p "$p"; done 2>/dev/null | grep -q '^[^ ]*tilelab-replay'; }
started=""
for _ in $(seq 1 200); do
  started="$(descendants "$pid")"
  replay_among $started && break
  sleep 0.1
done
if ! replay_among $started; then
  echo "FAIL: no replay started"; cat "$out"; kill -9 "$pid" $started 2>/dev/null; exit 1
fi
kill -INT "$pid"
wait "$pid"; rc=$?
sleep 1
left="$(alive $started)"
[ -n "$left" ] && for p in $left; do ps -o pid=,args= -p "$p"; done >"$out.left" && kill -9 $left 2>/dev/null
echo "run ended with status $rc"
if [ -n "$left" ]; then echo "FAIL: still running after Ctrl-C:"; cat "$out.left"; rm -f "$out" "$out.left"; exit 1; fi
rm -f "$out"
echo "ok: nothing it started is left ($(echo $started | wc -w) processes ended)"
