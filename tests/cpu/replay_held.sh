#!/usr/bin/env bash
# What a sampled replay takes for the sampled blocks' work: only what a kernel stored. A memset
# of P after the launch is not (its words come back NaN); a device-to-device copy of what a
# kernel stored into scratch is (a copy carries what wrote its source). Hand-made capture logs
# of a kernel whose thread t of block b stores 1.0 at word 32 b + t of its pointer, 4 blocks,
# 2 of them sampled.
# And device memory is backed only where written: 3 GiB a kernel never touches costs nothing.
#   replay_held.sh TILELAB_REPLAY
set -euo pipefail
replay="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
cat >k.ptx <<'PTX'
.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
.reg .b32 %r<8>;
.reg .b64 %rd<8>;
.reg .f32 %f<2>;
ld.param.u64 %rd1, [p];
cvta.to.global.u64 %rd1, %rd1;
mov.u32 %r0, %tid.x;
mov.u32 %r1, %ctaid.x;
mad.lo.s32 %r2, %r1, 32, %r0;
mul.wide.u32 %rd2, %r2, 4;
add.s64 %rd3, %rd1, %rd2;
mov.f32 %f1, 0f3F800000;
st.global.f32 [%rd3], %f1;
ret;
}
PTX

# The words of P the check run sent back that are not NaN (the pattern), and how many are 1.0.
words_of() {
  local header
  header="$(head -n 1 "$1")"
  [ "$header" = "output launch:check 1 128" ] || { echo "unexpected frame: $header" >&2; exit 1; }
  od -An -v -tx4 -j "$(( ${#header} + 1 ))" -N 512 "$1" | tr -s ' ' '\n' | grep -v '^$' |
    sort | uniq -c | awk '{printf "%s:%s ", $2, $1}'
}

run() { # LOG: the replay of the log, sampled, its P's words counted
  "$replay" --backend cpu --log "$1" --ptx k.ptx --generate 5:1x1x128 --no-time \
    --diagnose d.json --sample-blocks 2 --sample-seed 11 3>out.bin
  grep -aq '"status":"ok"' out.bin || { echo "the replay failed: $(tail -c 400 out.bin)" >&2; exit 1; }
  words_of out.bin
}

# 1. The kernel stores into P, then a memset overwrites all of P: nothing counts as written.
printf 'tilelab-capture 1\nkernel 0 k\ncall launch 1 1 128\nlaunch 0 4 1 1 32 1 1 0 @P:0\nmemset P 0 0 512\nend\ndone\n' >memset.log
got="$(run memset.log)"
[ "$got" = "ffffffff:128 " ] || { echo "memset after the launch: expected 128 NaN words, got $got" >&2; exit 1; }

# 2. The kernel stores into scratch, copied into P: the two sampled blocks' 64 words count.
printf 'tilelab-capture 1\nkernel 0 k\nalloc a1 512\ncall launch 1 1 128\nlaunch 0 4 1 1 32 1 1 0 @a1:0\ncopy P 0 a1 0 512\nend\ndone\n' >copy.log
got="$(run copy.log)"
[ "$got" = "3f800000:64 ffffffff:64 " ] || { echo "copy of a kernel's stores: expected 64 words of 1.0 and 64 NaN, got $got" >&2; exit 1; }

# 3. The kernel stores into P directly, nothing after: the same 64 words.
printf 'tilelab-capture 1\nkernel 0 k\ncall launch 1 1 128\nlaunch 0 4 1 1 32 1 1 0 @P:0\nend\ndone\n' >direct.log
got="$(run direct.log)"
[ "$got" = "3f800000:64 ffffffff:64 " ] || { echo "stores into P: expected 64 words of 1.0 and 64 NaN, got $got" >&2; exit 1; }
grep -q '"answer_words": 32' d.json || { echo "the diagnosis counts no sampled block's 32 words: $(cat d.json)" >&2; exit 1; }

# 4. A 3 GiB allocation whose first 512 bytes the kernel stores (copied into P), three timed
#    repetitions, the checks' shadows on: the replayer's memory stays far below 3 GiB (device
#    memory and its shadow are backed only where written, and put back without being touched).
printf 'tilelab-capture 1\nkernel 0 k\nalloc a1 3221225472\ncall launch 1 1 128\nlaunch 0 4 1 1 32 1 1 0 @a1:0\ncopy P 0 a1 0 512\nend\ndone\n' >big.log
/usr/bin/time -f '%M' -o rss.txt "$replay" --backend cpu --log big.log --ptx k.ptx \
  --generate 5:1x1x128 --reps 3 --diagnose d.json 3>out.bin
grep -aq '"status":"ok"' out.bin || { echo "the replay of 3 GiB failed: $(tail -c 400 out.bin)" >&2; exit 1; }
rss_kib="$(tail -n 1 rss.txt)"
[ "$rss_kib" -lt $((512 * 1024)) ] || { echo "3 GiB untouched took $rss_kib KiB of the replayer's memory" >&2; exit 1; }
echo "replay_held: ok (3 GiB allocation, ${rss_kib} KiB resident)"
