#!/usr/bin/env bash
# The CPU backend installed as a package (cmake/Install.cmake) and used by a course's own program
# the two documented ways: find_package(tilelab), and pkg-config with nvcc -cudart none. The
# prefix is moved after the install, as a copied installation would be.
#   package.sh BUILD_DIR NVCC
set -u
build="$1" nvcc="$2"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
want="tiled 24x40x20, tile 8: 0 wrong, checksum 240460"

cmake --install "$build" --prefix "$work/installed" >"$work/install.log" 2>&1 \
  || { cat "$work/install.log"; fail "cmake --install"; }
mv "$work/installed" "$work/prefix"
prefix="$work/prefix"

# runs PROGRAM: its output must be $want, from the CPU backend (no libcudart linked; without its
# PTX the backend says so).
runs() {
  local program="$1" out
  out="$("$program" 2>&1)" || fail "$program exited $?: $out"
  [ "$out" = "$want" ] || fail "$program printed \"$out\", expected \"$want\""
  ! ldd "$program" | grep -q libcudart || fail "$program links libcudart"
  mv "$program.ptx" "$work/moved.ptx"
  out="$("$program" 2>&1)" && fail "$program ran without its PTX"
  grep -q "tilelab CPU backend: cannot open the kernels' PTX" <<<"$out" || fail "$program without its PTX: $out"
  TILELAB_PTX="$work/moved.ptx" "$program" >/dev/null || fail "$program with TILELAB_PTX"
  echo "ok: $program"
}

# find_package(tilelab)
cmake -S "$here/consumer" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" 2>&1 \
  || { cat "$work/configure.log"; fail "configuring the program with find_package(tilelab)"; }
cmake --build "$work/cmake" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "building it"; }
runs "$work/cmake/tiles"

# pkg-config, nvcc -cudart none
export PKG_CONFIG_PATH="$(dirname "$(find "$prefix" -name tilelab-cpurt.pc)")"
libs="$(pkg-config --libs tilelab-cpurt)" || fail "pkg-config --libs tilelab-cpurt"
arch="$(pkg-config --variable=ptx_arch tilelab-cpurt)"
mkdir "$work/pc"
"$nvcc" -cudart none -arch=sm_90 -DTILE=8 -I"$here/consumer/include" "$here/consumer/tiles.cu" \
  $libs -o "$work/pc/tiles" || fail "nvcc -cudart none ... $libs"
"$nvcc" -ptx -lineinfo -arch="$arch" -DTILE=8 -I"$here/consumer/include" "$here/consumer/tiles.cu" \
  -o "$work/pc/tiles.ptx" || fail "nvcc -ptx"
runs "$work/pc/tiles"
