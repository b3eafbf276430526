#!/usr/bin/env bash
# The error maps of `tilelab run` (CPU backend): each classic bug's map shows its pattern,
# --report writes a self-contained page, colour appears only on a terminal.
#   errmap_cases.sh CASE CLI ROOT
set -u
case_name="$1" cli="$2" root="$3"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# run STATUS LAB SOURCE DATASET [ARGS...]: tilelab run on one shipped dataset.
run() {
  local want="$1" lab="$2" src="$3" ds="$4"; shift 4
  "$cli" run "$lab" --backend cpu --no-time --source "$src" --dataset "$root/datasets/$ds" "$@" \
    >"$work/out" 2>"$work/err"; local rc=$?
  cat "$work/out"; cat "$work/err" >&2
  [ "$rc" = "$want" ] || fail "exit status $rc, expected $want"
}
has() { grep -qF -- "$1" "$work/out" || fail "output lacks: $1"; }
# rows REGEX...: the map's rows (inside its frame), top to bottom, match the regexes one to one.
rows() {
  sed -n 's/^ *│\(.*\)│$/\1/p' "$work/out" >"$work/rows"
  [ "$(wc -l <"$work/rows")" = $# ] || fail "the map has $(wc -l <"$work/rows") rows, expected $#"
  local i=1
  for re in "$@"; do
    sed -n "${i}p" "$work/rows" | grep -Eq -- "^$re\$" || fail "map row $i is not /$re/"
    i=$((i + 1))
  done
}
full='(█){14}' clean_but_last=' {12}██' first_only='(░|▒|▓|█){2} {12}'
count() { grep -o -- "$1" "$2" | wc -l; }

case "$case_name" in
wrong_index)
  # Nds[tx][i]: every element of every tile is a wrong dot product.
  run 1 02 "$here/wrong_index_02.cu" 02-tiled/1
  has "WRONG"; has "where P is wrong: 16 of 16 tiles (4096 of 4096 elements)"
  has "a tile is 16 rows x 16 columns of P, one block of the launch"
  rows '(█){8}' '(█){8}' '(█){8}' '(█){8}'
  ;;
missing_first_sync|missing_second_sync)
  # Unsafe: the map is of P as the checked run left it, and every tile is wrong there.
  run 1 02 "$here/${case_name}_02.cu" 02-tiled/1
  has "UNSAFE"; has "shared-memory race at ${case_name}_02.cu:"
  has "P as the checked run left it: 16 of 16 tiles wrong"
  rows '(█){8}' '(█){8}' '(█){8}' '(█){8}'
  ;;
no_bounds)
  # Every check removed: every tile's last phase reads past the edge of M's rows and past the
  # end of N, so every tile is wrong; the checked run skips those reads, which leaves NaN in
  # every element, and a solid map says no more than its heading.
  run 1 03 "$here/no_bounds_03.cu" 03-arbitrary/7
  has "UNSAFE"; has "out-of-bounds global access at no_bounds_03.cu:"
  has "P as the checked run left it: 49 of 49 tiles wrong (10000 of 10000 elements, every one NaN"
  rows
  ;;
no_store_guard)
  # Loads guarded, store not: the last column of blocks has threads past column 99 whose
  # stores land on the next row's first columns (and, in the last row, past P's end).
  run 1 03 "$here/no_store_guard_03.cu" 03-arbitrary/7
  has "UNSAFE"; has "out-of-bounds global access at no_store_guard_03.cu:"
  has "P as the checked run left it: 7 of 49 tiles wrong"
  rows "$first_only" "$first_only" "$first_only" "$first_only" "$first_only" "$first_only" \
       "$first_only"
  ;;
grid_rounded_down)
  # Width / TILE_WIDTH blocks: the partial last row and column of tiles are never written;
  # the same map from the checked run (wrong is final there) and from the plain replay.
  for safety in "" --no-safety; do
    run 1 03 "$here/grid_rounded_down_03.cu" 03-arbitrary/7 $safety
    has "WRONG"; has "where P is wrong: 13 of 49 tiles (784 of 10000 elements, all NaN or Inf)"
    rows "$clean_but_last" "$clean_but_last" "$clean_but_last" "$clean_but_last" \
         "$clean_but_last" "$clean_but_last" "$full"
  done
  # The map is drawn from --save-outputs' file when there is one.
  run 1 03 "$here/grid_rounded_down_03.cu" 03-arbitrary/7 --save-outputs "$work/saved"
  [ -f "$work/saved/7.raw" ] || fail "--save-outputs wrote no 7.raw"
  has "where P is wrong: 13 of 49 tiles"
  ;;
report)
  # One section per dataset, an SVG for each wrong one (a rect per tile), a source name with
  # < and & escaped, nothing loaded from elsewhere.
  src="$work/a<b&c.cu"
  cp "$here/grid_rounded_down_03.cu" "$src"
  "$cli" run 03 --backend cpu --no-time --source "$src" --dataset "$root/datasets/03-arbitrary/3" \
    --dataset "$root/datasets/03-arbitrary/7" --report "$work/page.html" >"$work/out" 2>&1
  [ $? = 1 ] || fail "a wrong kernel's run did not exit 1"
  page="$work/page.html"
  [ -f "$page" ] || fail "no report written"
  [ "$(head -1 "$page")" = "<!DOCTYPE html>" ] || fail "the page does not start with a doctype"
  [ "$(tail -1 "$page")" = "</html>" ] || fail "the page does not end with </html>"
  [ "$(count '<svg' "$page")" = 2 ] || fail "expected 2 <svg, one per wrong dataset"
  [ "$(count '</svg>' "$page")" = 2 ] || fail "expected 2 </svg>"
  [ "$(count '<rect ' "$page")" = 53 ] || fail "expected 4 + 49 tiles' rects"
  [ "$(count '<section' "$page")" = 2 ] || fail "expected a section per dataset"
  grep -qF 'a&lt;b&amp;c.cu' "$page" || fail "the source's name is not escaped"
  grep -qF 'a<b' "$page" && fail "the source's name appears unescaped"
  grep -qF '<title>rows 96-99, columns 0-15: 64 of 64 wrong</title>' "$page" \
    || fail "no tooltip for the last row's first tile"
  grep -qF '<td>0</td><td>96</td><td>NaN</td>' "$page" || fail "no first wrong element (0, 96)"
  grep -qF 'The first 20 wrong elements' "$page" || fail "no table of the first wrong elements"
  grep -Eq 'src=|href=|url\(|@import' "$page" && fail "the page loads something from elsewhere"
  ls "$work" | grep -q '\.tmp\.' && fail "a temporary file was left beside the page"
  # With --json the lines give way to one document, and the page still has its map.
  run 1 03 "$here/grid_rounded_down_03.cu" 03-arbitrary/7 --json --report "$page"
  grep -q '│' "$work/out" && fail "a map among --json's output"
  [ "$(count '<svg' "$page")" = 1 ] || fail "--json --report: expected 1 <svg"
  # A passing run says so, with no map; the page is replaced, not appended to.
  run 0 03 "$root/solutions/03-arbitrary/solution.cu" 03-arbitrary/3 --report "$work/page.html"
  grep -qF 'Every dataset passed' "$page" || fail "a passing run's page does not say so"
  [ "$(count '<svg' "$page")" = 0 ] || fail "a passing run's page has a map"
  # A page that cannot be written is bad usage, said before anything is built.
  run 2 03 "$root/solutions/03-arbitrary/solution.cu" 03-arbitrary/3 --report "$work/none/p.html"
  grep -qF -- "--report $work/none/p.html: no folder $work/none" "$work/err" \
    || fail "no reason given"
  ;;
colour)
  # Piped: no escape sequence, whatever TERM says. On a terminal (script gives one): red and
  # yellow cells, unless NO_COLOR is set or TERM is dumb.
  args=(run 03 --backend cpu --no-time --source "$here/grid_rounded_down_03.cu"
        --dataset "$root/datasets/03-arbitrary/7")
  TERM=xterm "$cli" "${args[@]}" >"$work/out" 2>/dev/null
  grep -q $'\033' "$work/out" && fail "colour escapes in piped output"
  has "where P is wrong: 13 of 49 tiles"
  if ! command -v script >/dev/null; then
    echo "script(1) is not installed: the terminal half is not checked"; exit 0
  fi
  printf -v line '%q ' "$cli" "${args[@]}"
  TERM=xterm script -qec "$line" /dev/null >"$work/out" 2>&1
  grep -q $'\033\\[31m██' "$work/out" || fail "no colour on a terminal"
  for env in NO_COLOR=1 TERM=dumb; do
    env TERM=xterm "$env" script -qec "$line" /dev/null >"$work/out" 2>&1
    grep -q $'\033\\[3' "$work/out" && fail "colour on a terminal with $env"
    has "where P is wrong: 13 of 49 tiles"
  done
  ;;
*) fail "unknown case $case_name" ;;
esac
exit 0
