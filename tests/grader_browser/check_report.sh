#!/usr/bin/env bash
# Opens the grader's class report in a real browser (headless Chromium), so that a report that
# only looks right as text (a broken tag, an unescaped name, an SVG the browser refuses) fails.
#   check_report.sh REPORT.html [STUDENTS]
# Checks that the rendered DOM holds the students' table rows (STUDENTS of them when given,
# else as many as the file holds, at least one) and the SVG charts, and that a screenshot is a
# non-empty PNG. Exit status: 0 passed, 1 failed, 2 bad usage, 77 skipped (no Chromium).
set -u
if [ $# -lt 1 ] || [ $# -gt 2 ] || [ ! -f "$1" ]; then
  echo "usage: check_report.sh REPORT.html [STUDENTS]  (the report must exist)" >&2
  exit 2
fi
browser="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$browser" ]; then
  echo "SKIPPED: chromium is not installed; the report is not checked in a browser"
  exit 77
fi

report="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
# A file URL: the few characters that would end or change the path are percent-encoded.
url="file://$(printf '%s' "$report" | sed -e 's/%/%25/g' -e 's/ /%20/g' -e 's/#/%23/g' -e 's/?/%3F/g')"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# No network, no updates, no first-run work: the report must render from the file alone. Each
# run gets its own profile so that runs never share or lock one. `timeout` because a browser
# that hangs must fail the check rather than the whole test run.
chrome() {
  local profile
  profile="$(mktemp -d "$work/profile.XXXXXX")"
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" "$@"
}

fail() {
  echo "FAILED: $*" >&2
  exit 1
}

if ! chrome --dump-dom "$url" >"$work/dom.html" 2>"$work/dom.err"; then
  tail -n 20 "$work/dom.err" >&2
  fail "chromium could not render $1"
fi
rows_dom="$(grep -o '<tr class="student">' "$work/dom.html" | wc -l)"
rows_file="$(grep -o '<tr class="student">' "$report" | wc -l)"
want="${2:-$rows_file}"
[ "$want" -ge 1 ] || fail "$1 has no student rows to check"
[ "$rows_dom" -eq "$want" ] ||
  fail "the rendered page has $rows_dom student rows, expected $want"
svgs="$(grep -o '<svg' "$work/dom.html" | wc -l)"
[ "$svgs" -ge 2 ] || fail "the rendered page has $svgs <svg> charts, expected the 2 charts"
grep -q '<script' "$work/dom.html" && fail "the rendered page holds a <script> element"

shot="$work/report.png"
if ! chrome --window-size=1200,1600 --hide-scrollbars --screenshot="$shot" "$url" \
    >"$work/shot.out" 2>&1; then
  tail -n 20 "$work/shot.out" >&2
  fail "chromium could not take a screenshot of $1"
fi
[ -s "$shot" ] || fail "the screenshot is missing or empty"
[ "$(head -c 8 "$shot" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] ||
  fail "the screenshot is not a PNG"
echo "PASSED: $1 renders in $(basename "$browser") with $rows_dom student rows, $svgs charts and a $(wc -c <"$shot")-byte screenshot"
