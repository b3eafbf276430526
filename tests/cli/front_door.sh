#!/usr/bin/env bash
# The front door (./tilelab) skips its package check and its build when nothing changed, and
# builds whenever something the build reads did change. It runs here on a small copy of the kit's
# layout, with cmake, ctest, dpkg-query and nvcc replaced by stand-ins that record each call.
#   front_door.sh TILELAB_SCRIPT
set -u
script="$1"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; echo "--- calls:" >&2; cat "$calls" >&2; exit 1; }
root="$work/kit" shims="$work/bin" calls="$work/calls"
mkdir -p "$root/harness" "$root/cmake" "$root/labs/02-tiled" "$shims"
cp "$script" "$root/tilelab"
echo 'project(kit C)' >"$root/CMakeLists.txt"
echo '{}' >"$root/CMakePresets.json"
echo 'add_library(h a.c)' >"$root/harness/CMakeLists.txt"
echo 'int a;' >"$root/harness/a.c"
echo '// a student file' >"$root/labs/02-tiled/template.cu"

# Each stand-in appends "NAME ARGS" to $calls. cmake --build makes the program (which prints its
# arguments), fails with FAKE_BUILD_STATUS, and runs FAKE_DURING_BUILD (an edit made while the
# build runs).
cat >"$shims/cmake" <<'EOF'
#!/usr/bin/env bash
echo "cmake $*" >>"$FAKE_CALLS"
case "$1" in
--preset)
  # As CMake does: the cache names the source folder it was configured for and its own folder.
  dir="${4:-build/$2}"
  mkdir -p "$dir" && dir="$(cd "$dir" && pwd)"
  printf 'CMAKE_CACHEFILE_DIR:INTERNAL=%s\nCMAKE_HOME_DIRECTORY:INTERNAL=%s\n' "$dir" "$PWD" \
    >"$dir/CMakeCache.txt" ;;
--build)
  mkdir -p "$2/cli"
  printf '#!/bin/sh\necho "cli $*"\n' >"$2/cli/tilelab-cli" && chmod +x "$2/cli/tilelab-cli"
  [ -z "${FAKE_DURING_BUILD:-}" ] || eval "$FAKE_DURING_BUILD"
  exit "${FAKE_BUILD_STATUS:-0}" ;;
esac
EOF
# FAKE_MISSING: packages reported as not installed.
cat >"$shims/dpkg-query" <<'EOF'
#!/usr/bin/env bash
echo "dpkg-query $*" >>"$FAKE_CALLS"
for p in ${FAKE_MISSING:-}; do [ "${@: -1}" = "$p" ] && exit 1; done
printf 'install ok installed'
EOF
printf '#!/bin/sh\necho "nvcc $*" >>"$FAKE_CALLS"\n' >"$shims/nvcc"
# FAKE_UID: the user id the front door sees (it installs packages only as root).
printf '#!/bin/sh\n[ "$1" = -u ] && [ -n "$FAKE_UID" ] && { echo "$FAKE_UID"; exit 0; }\nexec %s "$@"\n' \
  "$(command -v id)" >"$shims/id"
printf '#!/bin/sh\necho "ctest $*" >>"$FAKE_CALLS"\n' >"$shims/ctest"
chmod +x "$shims"/*
export PATH="$shims:$PATH" FAKE_CALLS="$calls"

# door STATUS ARGS...: runs the front door, checks its status; its calls are in $calls.
door() {
  local want="$1"; shift
  : >"$calls"
  "$root/tilelab" "$@" >"$work/out" 2>"$work/err"; local rc=$?
  [ "$rc" = "$want" ] || { cat "$work/err" >&2; fail "./tilelab $* exited $rc, expected $want"; }
}
built() { grep -q "^cmake --build" "$calls" || fail "$1: no build"; }
not_built() { ! grep -q "^cmake" "$calls" || fail "$1: cmake ran"; }
packages_checked() { grep -q "^dpkg-query" "$calls" || fail "$1: the packages were not checked"; }
packages_skipped() { ! grep -q "^dpkg-query" "$calls" || fail "$1: dpkg-query ran"; }

door 0 help
grep -q "^cmake --preset default" "$calls" || fail "first use: not configured"
built "first use"; packages_checked "first use"
grep -qx "cli help" "$work/out" || fail "first use: the program did not run"

door 0 help
not_built "nothing changed"; packages_skipped "nothing changed"
grep -qx "cli help" "$work/out" || fail "nothing changed: the program did not run"
door 0 run 02 --source x.cu
not_built "nothing changed (run)"
grep -qx "cli run 02 --source x.cu" "$work/out" || fail "the arguments did not reach the program"

echo 'int a = 1;' >"$root/harness/a.c"
door 0 help; built "an edited source"; packages_skipped "an edited source"
door 0 help; not_built "after the rebuild"

# A file saved while the build runs, likely within the same clock tick as the build's start.
echo 'int a = 2;' >"$root/harness/a.c"
FAKE_DURING_BUILD='echo "int a = 3;" >"$FAKE_ROOT/harness/a.c"' FAKE_ROOT="$root" \
  door 0 help
built "an edit before the build"; grep -q 3 "$root/harness/a.c" || fail "the edit during the build"
door 0 help; built "after an edit during the build"
door 0 help; not_built "after the edit was built"

echo 'int b;' >"$root/harness/b.c"
door 0 help; built "a new file"
rm "$root/harness/b.c"
door 0 help; built "a deleted file"
touch -d '2001-01-01' "$root/harness/a.c"
door 0 help; built "a file dated in the past (cp -p, tar)"
echo 'set(X 1)' >"$root/cmake/Extra.cmake"
door 0 help; built "a new file under cmake/"
echo '{"version": 3}' >"$root/CMakeUserPresets.json"
door 0 help; built "a new CMakeUserPresets.json"
rm "$root/CMakeUserPresets.json"
door 0 help; built "a deleted CMakeUserPresets.json"
mkdir "$root/extra" && echo 'add_library(e e.c)' >"$root/extra/CMakeLists.txt"
door 0 help; built "a new top-level folder with a CMakeLists.txt"
# An edit some time after the build (the stamp made older: one within the same tick of the file
# clock as the stamp's writing cannot be told by its time, and no person edits that fast).
touch -d "@$(( $(date +%s) - 2 ))" "$root/build/default/.build-stamp"
touch "$root/build/default/CMakeCache.txt"
door 0 help; built "an edited CMakeCache.txt"

# Not read by the build: a student's lab file, a grading's output folder.
echo '// edited' >"$root/labs/02-tiled/template.cu"
mkdir -p "$root/grades/02-tiled" && touch "$root/grades/02-tiled/gradebook.csv"
door 0 help; not_built "an edited lab file"

# The programs of examples/kit-labs are built by the tests: a new one or an edit builds; the
# other example submissions are not.
kit_program="$root/examples/kit-labs/vector-add/submissions/correct/main.cu"
mkdir -p "$(dirname "$kit_program")" "$root/examples/submissions/02-tiled/alice"
echo '// a kit-lab program' >"$kit_program"
door 0 help; built "a new kit-labs program"
door 0 help; not_built "after building the kit-labs program"
echo '// edited' >>"$kit_program"
door 0 help; built "an edited kit-labs program"
echo '// a submission' >"$root/examples/submissions/02-tiled/alice/template.cu"
door 0 help; not_built "an example submission of lab 02"

# A failed build leaves no stamp: the next command builds again.
echo 'int a = 4;' >"$root/harness/a.c"
FAKE_BUILD_STATUS=1 door 3 help; built "a failing build"
door 0 help; built "after a failed build"
rm "$root/build/default/cli/tilelab-cli"
door 0 help; built "a missing program"

# `test` needs one more package: checked once, then the stamp covers both lists.
door 0 test --quick
grep -q "^dpkg-query .*chromium" "$calls" || fail "test: its own packages were not checked"
# cmake is on PATH (the stand-in): a CMake that did not come from a Debian package counts.
grep -q "^dpkg-query .*cmake$" "$calls" && fail "test: a cmake on PATH was asked of dpkg"
grep -q "^dpkg-query .*libcjson-dev$" "$calls" || fail "test: the build's libraries were not asked of dpkg"
not_built "test, nothing changed"
grep -q "^ctest" "$calls" || fail "test: ctest did not run"
door 0 test --quick; packages_skipped "test again"
door 0 help; packages_skipped "help after test"

# Packages by command: one that `run` does not need stops only the commands that need it, and the
# message names TILELAB_NO_INSTALL=1. Seen as a user who cannot install (as root the front door
# would run apt-get).
(
  export FAKE_UID=1000
  rm -f "$root/build/.packages-ok"
  FAKE_MISSING="zip libcriterion-dev" door 0 run 02 --source x.cu
  grep -qx "cli run 02 --source x.cu" "$work/out" || fail "run stopped for zip or Criterion"
  FAKE_MISSING="zip libcriterion-dev" door 2 export gradescope 02
  grep -q "export needs packages that are not installed: zip$" "$work/err" || fail "export: $(cat "$work/err")"
  grep -q "TILELAB_NO_INSTALL=1" "$work/err" || fail "export: TILELAB_NO_INSTALL=1 not named"
  FAKE_MISSING="zip" TILELAB_NO_INSTALL=1 door 0 export gradescope 02
  FAKE_MISSING="bubblewrap" door 2 grade x --lab 02
  FAKE_MISSING="bubblewrap" door 0 grade x --lab 02 --no-sandbox
  FAKE_MISSING="libcriterion-dev" door 2 test --quick
  grep -q "libcriterion-dev" "$work/err" || fail "test: Criterion not asked for"
) || exit 1

# A copy of the kit with its build folder (cp -r to another path): the copy's build folder was
# configured for the original, so it is moved aside and the copy configures and builds afresh;
# the original's build is untouched.
cp -r "$root" "$work/copy"
: >"$calls"
"$work/copy/tilelab" help >"$work/out" 2>"$work/err" || { rc=$?; cat "$work/err"; fail "the copy: exit $rc"; }
grep -q "build/default: it was configured for the kit at $root; moved it aside" "$work/err" \
  || fail "the copy: $(cat "$work/err")"
grep -q "^cmake --preset default -B $work/copy/build/default" "$calls" || fail "the copy was not configured afresh"
built "the copy"
grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$work/copy" "$work/copy/build/default/CMakeCache.txt" \
  || fail "the copy's cache"
ls -d "$work/copy/build/default.moved-"* >/dev/null || fail "the stale folder was not kept aside"
door 0 help; not_built "the original after the copy"
: >"$calls"
"$work/copy/tilelab" help >"$work/out" 2>"$work/err"; not_built "the copy, built"
[ ! -s "$work/err" ] || fail "the copy, built: $(cat "$work/err")"
# The kit moved (mv): the same.
mv "$work/copy" "$work/moved"
: >"$calls"
"$work/moved/tilelab" help >"$work/out" 2>"$work/err"
grep -q "configured for the kit at $work/copy" "$work/err" || fail "the moved kit: $(cat "$work/err")"
built "the moved kit"
# TILELAB_BUILD_DIR: a build folder elsewhere.
: >"$calls"
TILELAB_BUILD_DIR="$work/elsewhere" "$work/moved/tilelab" help >"$work/out" 2>"$work/err" \
  || fail "TILELAB_BUILD_DIR: $(cat "$work/err")"
grep -q "^cmake --build $work/elsewhere/default" "$calls" || fail "TILELAB_BUILD_DIR was not used"
# A kit built by root, run by another user who cannot write its build/: the build goes to a folder
# of that user's own.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
  chmod 755 "$work"
  mkdir "$work/home" && chown nobody "$work/home"
  HOME="$work/home" FAKE_CALLS="$work/home/calls" setpriv --reuid=nobody --regid="$(id -g nobody)" \
    --clear-groups "$work/moved/tilelab" help >"$work/out" 2>"$work/err" \
    || fail "another user: exit $?: $(cat "$work/err")"
  grep -q "$work/moved/build cannot be written by nobody: building in $work/home/.cache/tilelab/build-" \
    "$work/err" || fail "another user: $(cat "$work/err")"
  grep -qx "cli help" "$work/out" || fail "another user: the program did not run"
  grep -q "^cmake --build $work/home/.cache/tilelab/build-[0-9]*/default" "$work/home/calls" \
    || fail "another user: not built in their folder"
fi
echo ok: front door
