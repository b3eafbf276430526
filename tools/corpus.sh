#!/usr/bin/env bash
# The outside corpus: CUDA kernels from three public projects, run on the GPU and on the CPU
# backend, each output reduced to a digest of its raw bytes, and the two runs compared.
# docs/corpus.md describes it; `tools/corpus.sh --help` lists the commands.
set -u

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DRIVERS_DIR="$ROOT/tools/corpus"
NVCC="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"

# driver (tools/corpus/<driver>.cu)|project|the folder under the corpus it includes from
DRIVERS=(
  "sgemm_cuda|SGEMM_CUDA|SGEMM_CUDA/src"
  "llmc|llm.c|llm.c/dev/cuda"
  "cuda_samples_reduction|cuda-samples|cuda-samples/Samples/2_Concepts_and_Techniques/reduction"
)

needed_files() { # DRIVER: the files it includes from its folder
  case "$1" in
    sgemm_cuda)
      echo kernels.cuh kernels/{1_naive,2_kernel_global_mem_coalesce}.cuh \
        kernels/{3_kernel_shared_mem_blocking,4_kernel_1D_blocktiling}.cuh \
        kernels/{5_kernel_2D_blocktiling,6_kernel_vectorize}.cuh \
        kernels/{7_kernel_resolve_bank_conflicts,8_kernel_bank_extra_col}.cuh \
        kernels/{9_kernel_autotuned,10_kernel_warptiling}.cuh \
        kernels/{11_kernel_double_buffering,12_kernel_double_buffering}.cuh ;;
    llmc) echo common.h softmax_forward.cu layernorm_forward.cu matmul_forward.cu ;;
    cuda_samples_reduction) echo reduction_kernel.cu ;;
  esac
}

# name|clone address|pinned commit; sparse_folders names what is checked out of each
GH="${CORPUS_GIT_BASE:-https://github.com}" # a mirror with the same owner/name paths
REPOS=(
  "SGEMM_CUDA|$GH/siboehm/SGEMM_CUDA.git|60cba6f9b20a198116c76f18de8047f44df8c8b8"
  "llm.c|$GH/karpathy/llm.c.git|f1e2ace651495b74ae22d45d1723443fd00ecd3a"
  "cuda-samples|$GH/NVIDIA/cuda-samples.git|c94ff366aed18c797b8a85dfaac7817b0228b420"
)

sparse_folders() {
  case "$1" in
    SGEMM_CUDA) echo src ;;
    llm.c) echo dev/cuda ;;
    cuda-samples) echo Samples/2_Concepts_and_Techniques/reduction Common ;;
  esac
}

usage() {
  cat <<'EOF'
tools/corpus.sh: run outside CUDA kernels on the GPU and on the CPU backend and compare outputs.

  tools/corpus.sh build --backend gpu|cpu [--corpus DIR] [--out DIR] [--arch sm_XX]
                        [--kit-build DIR]
      Builds every driver (tools/corpus/*.cu) into DIR (default build/corpus/<backend>).
      --corpus: the extracted sources (default .corpus); --arch: default sm_90;
      --kit-build: where the CPU backend's libraries were built (default build/default).
  tools/corpus.sh run --backend gpu|cpu [--build DIR] [--out FILE] [--timeout SECONDS]
      Runs every built driver, each kernel in a process of its own with a time limit (default
      600 s on the CPU backend, 120 s on the GPU), and writes the digest lines to FILE (default
      build/corpus/<backend>.txt); the drivers' messages and the times go to the same name
      with .log for .txt.
  tools/corpus.sh compare GPU_FILE CPU_FILE
      One row per output: identical, DIFFERENT, cpu error: ..., missing. Exit status 0 only
      when every output is byte-identical.
  tools/corpus.sh fetch [DIR]
      Clones the three projects at their pinned commits into DIR (default .corpus); needs
      network access and git.
EOF
}

die() { printf 'corpus.sh: %s\n' "$*" >&2; exit 2; }
say() { printf '[corpus] %s\n' "$*" >&2; }

backend_arg() {
  case "${1:-}" in
    gpu|cpu) printf '%s' "$1" ;;
    *) die "--backend must be gpu or cpu" ;;
  esac
}

abspath() { case "$1" in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }

check_corpus() { # CORPUS: every file a driver includes, named when one is missing
  local corpus="$1" entry name project inc f
  [ -d "$corpus" ] || die "no corpus at $corpus (tools/corpus.sh fetch, or --corpus DIR)"
  for entry in "${DRIVERS[@]}"; do
    IFS='|' read -r name project inc <<<"$entry"
    for f in $(needed_files "$name"); do
      [ -f "$corpus/$inc/$f" ] ||
        die "the corpus lacks $corpus/$inc/$f (needed by tools/corpus/$name.cu)"
    done
  done
}

cmd_build() {
  local backend="" corpus="$ROOT/.corpus" out="" arch="sm_90" kit="$ROOT/build/default"
  while [ $# -gt 0 ]; do
    case "$1" in
      --backend) backend="$(backend_arg "${2:-}")" || exit 2; shift 2 ;;
      --corpus) corpus="$(abspath "${2:?--corpus needs a folder}")"; shift 2 ;;
      --out) out="$(abspath "${2:?--out needs a folder}")"; shift 2 ;;
      --arch) arch="${2:?--arch needs sm_XX}"; shift 2 ;;
      --kit-build) kit="$(abspath "${2:?--kit-build needs a folder}")"; shift 2 ;;
      *) die "build: unknown argument $1" ;;
    esac
  done
  [ -n "$backend" ] || die "build: --backend gpu|cpu is required"
  out="${out:-$ROOT/build/corpus/$backend}"
  check_corpus "$corpus"
  [ -x "$NVCC" ] || die "nvcc not found (put it on PATH or set NVCC)"
  local libs=()
  if [ "$backend" = cpu ]; then
    # The kit's recipe for a program of its own on the CPU backend (cli/lab_build.c, without the
    # harness): no libcudart, the runtime stand-in and the interpreter instead.
    libs=("$kit/cpurt/libtilelab_cpurt.a" "$kit/ptx/libtilelab_ptx.a" -lpthread -lm -lz)
    local lib
    for lib in "${libs[@]:0:2}"; do
      [ -f "$lib" ] || die "$lib is missing: build the kit first (cmake --build build/default)"
    done
  fi
  mkdir -p "$out" || die "cannot create $out"
  # Outside files may define functions that call cuBLAS and that nothing here calls; the linker
  # drops them (and their references) with the sections they are in.
  local gc=(-Xcompiler -ffunction-sections -Xcompiler -fdata-sections -Xlinker --gc-sections)
  local failed=0 entry name project inc exe log start
  for entry in "${DRIVERS[@]}"; do
    IFS='|' read -r name project inc <<<"$entry"
    exe="$out/$name"
    log="$out/$name.build.log"
    start=$SECONDS
    say "$backend: building $name"
    rm -f "$exe" "$exe.ptx"
    local flags=(-std=c++17 -lineinfo "-I$corpus/$inc")
    if [ "$backend" = cpu ]; then
      # The CPU backend runs the kernels' PTX, read from beside the program.
      "$NVCC" "${flags[@]}" -ptx "-arch=compute_${arch#sm_}" "$DRIVERS_DIR/$name.cu" \
        -o "$exe.ptx" >"$log.ptx" 2>&1 &
      local ptx_pid=$!
      "$NVCC" "${flags[@]}" -O3 "-arch=$arch" -cudart none "$DRIVERS_DIR/$name.cu" -o "$exe" \
        "${gc[@]}" "${libs[@]}" >"$log" 2>&1
      local rc=$?
      wait "$ptx_pid" || rc=1
      cat "$log.ptx" >>"$log"
      rm -f "$log.ptx"
    else
      "$NVCC" "${flags[@]}" -O3 "-arch=$arch" "$DRIVERS_DIR/$name.cu" -o "$exe" "${gc[@]}" \
        >"$log" 2>&1
      local rc=$?
    fi
    if [ "$rc" -ne 0 ]; then
      failed=1
      rm -f "$exe" "$exe.ptx"
      say "$backend: $name FAILED to build ($log):"
      grep -E 'error|undefined' "$log" | head -20 >&2
    else
      say "$backend: built $name in $((SECONDS - start)) s"
    fi
  done
  return $failed
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

cmd_run() {
  local backend="" build="" file="" limit=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --backend) backend="$(backend_arg "${2:-}")" || exit 2; shift 2 ;;
      --build) build="$(abspath "${2:?--build needs a folder}")"; shift 2 ;;
      --out) file="$(abspath "${2:?--out needs a file}")"; shift 2 ;;
      --timeout) limit="${2:?--timeout needs seconds}"; shift 2 ;;
      *) die "run: unknown argument $1" ;;
    esac
  done
  [ -n "$backend" ] || die "run: --backend gpu|cpu is required"
  build="${build:-$ROOT/build/corpus/$backend}"
  file="${file:-$ROOT/build/corpus/$backend.txt}"
  if [ -z "$limit" ]; then
    if [ "$backend" = cpu ]; then limit=600; else limit=120; fi
  fi
  mkdir -p "$(dirname "$file")" || die "cannot create the folder of $file"
  : >"$file"
  local entry name project inc exe kernels kernel t0 t1 d0 rc n ran=0
  local log="${file%.txt}.log"
  [ "$log" != "$file" ] || log="$file.log"
  : >"$log"
  for entry in "${DRIVERS[@]}"; do
    IFS='|' read -r name project inc <<<"$entry"
    exe="$build/$name"
    if [ ! -x "$exe" ]; then
      say "$backend: $name is not built ($exe); tools/corpus.sh build --backend $backend"
      printf '%s * *: error: driver not built\n' "$project" >>"$file"
      continue
    fi
    ran=1
    kernels="$("$exe" --list)" || { say "$backend: $exe --list failed"; continue; }
    d0="$(now)"
    for kernel in $kernels; do
      t0="$(now)"
      printf '== %s %s\n' "$name" "$kernel" >>"$log"
      # TILELAB_PTX would make the CPU backend read another file than the driver's own PTX.
      env -u TILELAB_PTX timeout -k 10 "$limit" "$exe" "$kernel" >"$file.part" 2>>"$log"
      rc=$?
      t1="$(now)"
      cat "$file.part" >>"$file"
      n=$(wc -l <"$file.part")
      # A kernel-wide line stands for every output of the kernel that has no line of its own.
      case $rc in
        0) ;;
        124|137) printf '%s %s *: error: timed out after %s s\n' "$project" "$kernel" "$limit" \
                   >>"$file" ;;
        *) if [ $rc -gt 128 ]; then
             printf '%s %s *: error: crashed (signal %d)\n' "$project" "$kernel" $((rc - 128))
           else
             printf '%s %s *: error: exited with status %d\n' "$project" "$kernel" "$rc"
           fi >>"$file" ;;
      esac
      printf '== %s %s: exit %d, %s s\n' "$name" "$kernel" "$rc" "$(elapsed "$t0" "$t1")" \
        >>"$log"
      say "$backend: $name $kernel: $n outputs, $(grep -c ': error: ' "$file.part") errors," \
        "exit $rc, $(elapsed "$t0" "$t1") s"
    done
    say "$backend: $name done in $(elapsed "$d0" "$(now)") s"
    printf '== %s total: %s s\n' "$name" "$(elapsed "$d0" "$(now)")" >>"$log"
  done
  rm -f "$file.part"
  say "$backend: $(wc -l <"$file") lines in $file (messages and times: $log)"
  [ $ran = 1 ] || return 1
}

cmd_compare() {
  [ $# -eq 2 ] || die "compare needs GPU_FILE CPU_FILE"
  local f
  for f in "$1" "$2"; do [ -r "$f" ] || die "cannot read $f"; done
  awk '
    # A line is "<project> <kernel> <config>: <digest>" or "...: error: <message>"; a config of
    # "*" speaks for every output of that kernel (a kernel of "*": of that project) that has no
    # line of its own.
    function parse(side, line,    i, key, p) {
      i = index(line, ": ")
      if (i == 0) return
      key = substr(line, 1, i - 1)
      split(key, p, " ")
      if (p[3] == "*") { wide[side, p[1] " " p[2]] = substr(line, i + 2); return }
      if (!(key in seen)) { seen[key] = 1; keys[++nkeys] = key }
      result[side, key] = substr(line, i + 2)
    }
    function lookup(side, key,    p) {
      if ((side, key) in result) return result[side, key]
      split(key, p, " ")
      if ((side, p[1] " " p[2]) in wide) return wide[side, p[1] " " p[2]]
      if ((side, p[1] " *") in wide) return wide[side, p[1] " *"]
      return ""
    }
    FNR == NR { parse("gpu", $0); next }
    { parse("cpu", $0) }
    END {
      same = 0
      printf "%-13s %-27s %-34s %s\n", "project", "kernel", "config/output", "result"
      for (i = 1; i <= nkeys; i++) {
        k = keys[i]
        g = lookup("gpu", k)
        c = lookup("cpu", k)
        if (g == "") r = "missing on gpu"
        else if (g ~ /^error: /) r = "gpu " g
        else if (c == "") r = "missing"
        else if (c ~ /^error: /) r = "cpu " c
        else if (c == g) { r = "identical"; same++ }
        else r = "DIFFERENT"
        split(k, p, " ")
        printf "%-13s %-27s %-34s %s\n", p[1], p[2], p[3], r
      }
      printf "%d of %d outputs byte-identical\n", same, nkeys
      exit (nkeys > 0 && same == nkeys) ? 0 : 1
    }' "$1" "$2"
}

cmd_fetch() {
  local dir
  dir="$(abspath "${1:-$ROOT/.corpus}")"
  command -v git >/dev/null || die "git is not installed"
  mkdir -p "$dir" || die "cannot create $dir"
  local entry name url commit target failed=0
  for entry in "${REPOS[@]}"; do
    IFS='|' read -r name url commit <<<"$entry"
    target="$dir/$name"
    if [ -e "$target" ]; then
      say "$target exists; left as it is (remove it to fetch it again)"
      continue
    fi
    say "fetching $url at $commit"
    # Only the folders the drivers include, and no file contents beyond those.
    if ! git clone --quiet --filter=blob:none --no-checkout "$url" "$target"; then
      say "git clone $url failed (no network access?)"
      rm -rf "$target"
      failed=1
      continue
    fi
    # shellcheck disable=SC2046 # a list of folders
    if ! git -C "$target" sparse-checkout set $(sparse_folders "$name") ||
       ! git -C "$target" -c advice.detachedHead=false checkout --quiet "$commit"; then
      say "checking out $commit in $target failed"
      rm -rf "$target"
      failed=1
    fi
  done
  [ $failed = 0 ] || die "some repositories could not be fetched (see above)"
  say "corpus ready in $dir"
}

case "${1:-}" in
  build) shift; cmd_build "$@" ;;
  run) shift; cmd_run "$@" ;;
  compare) shift; cmd_compare "$@" ;;
  fetch) shift; cmd_fetch "$@" ;;
  -h|--help|help) usage ;;
  "") usage >&2; exit 2 ;;
  *) usage >&2; die "unknown command $1" ;;
esac
