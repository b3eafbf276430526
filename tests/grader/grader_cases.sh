#!/usr/bin/env bash
# End-to-end cases of the grader on the CPU backend (no GPU needed).
#   grader_cases.sh CASE CLI KIT_ROOT
set -u
case_name="$1" cli="$2" root="$3"
export TILELAB_ROOT="$root"
work="$(mktemp -d)"; trap '[ "$bg" != 0 ] && kill -9 -- -"$bg" 2>/dev/null; rm -rf "$work"' EXIT
bg=0
class="$root/examples/submissions/02-tiled"
# The CPU backend gives the same verdicts on every machine (a GPU may pass a race by luck).
cli_grade() { "$cli" grade "$@" --backend cpu; }
fail() { echo "FAIL: $*" >&2; exit 1; }
col() { # col FILE STUDENT COLUMN-NAME: a gradebook cell
  awk -F, -v s="$2" -v c="$3" '{ sub(/\r$/, "") } NR==1 { for (i = 1; i <= NF; i++) if ($i == c) k = i } $1 == s { print $k }' "$1"
}
verdicts() { # verdicts STUDENT: the verdicts of its datasets, in order
  awk '/"datasets":/ { on = 1 } /"performance":/ { on = 0 } on' "$work/out/journal/$1.json" |
    grep -o '"verdict":[[:space:]]*"[a-z-]*"' | sed 's/.*"\([a-z-]*\)"$/\1/' | tr '\n' ' '
}
case "$case_name" in
example_class)
  # Hidden datasets at sizes that are not tile multiples: erin's unguarded loads go wrong there.
  "$cli" datasets 03 --size 100 --size 47 --seed 5 --out "$work/hidden" >/dev/null || fail "datasets"
  # A roster: every student but judy, and zara, who handed nothing in.
  { echo "id,name,email"; for s in alice bob carol dave erin frank grace heidi ivan; do
      echo "$s,$s the student,$s@example.edu"; done; echo "zara,Zara,zara@example.edu"; } >"$work/roster.csv"
  cli_grade "$class" --lab 02 --out "$work/out" --hidden "$work/hidden" --timeout 10 --jobs 2 \
    --roster "$work/roster.csv" \
    >"$work/stdout" 2>"$work/stderr" || { rc=$?; cat "$work/stderr"; fail "grade exited $rc"; }
  cat "$work/stdout"
  gb="$work/out/gradebook.csv"
  [ "$(col "$gb" alice 'static checks')" = 10 ] || fail "alice: static checks"
  [ "$(col "$gb" alice email)" = alice@example.edu ] || fail "alice: the roster's email"
  grep -q '^zara,Zara,zara@example.edu,0,100,.*,no submission' "$gb" || fail "zara: no row of her own"
  grep -q '^judy,,,.*,not in the roster' "$gb" || fail "judy: not flagged as missing from the roster"
  [ "$(verdicts alice)" = "pass pass pass pass pass pass pass pass " ] || fail "alice: $(verdicts alice)"
  [ "$(col "$gb" bob 'static checks')" = 0 ] || fail "bob: the naive kernel must fail the required constructs"
  [ "$(verdicts bob)" = "pass pass pass pass pass pass pass pass " ] || fail "bob: $(verdicts bob)"
  # The safety checks find carol's race on every dataset, whatever the results happened to be.
  [ "$(verdicts carol)" = "unsafe unsafe unsafe unsafe unsafe unsafe unsafe unsafe " ] \
    || fail "carol: the missing __syncthreads must be unsafe everywhere: $(verdicts carol)"
  grep -q 'shared-memory race at template.cu:[0-9]* and line [0-9]*' "$work/out/journal/carol.json" \
    || fail "carol: the race's two lines"
  [ "$(col "$gb" carol 'dataset 0 (32x32x32) verdict')" = unsafe ] || fail "carol: the gradebook's verdict column"
  [ "$(col "$gb" erin 'hidden dataset 0 (100x100x100) verdict')" = unsafe ] || fail "erin: the hidden dataset's verdict column"
  # Every total is the sum of its row's item columns (verdict columns aside), to the hundredth.
  awk -F, '{ sub(/\r$/, "") }
           NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "total") t = i; if ($i == "max") m = i }
                     for (i = m + 1; i <= NF; i++) item[i] = $i !~ / verdict$/ && $i != "roster"; next }
           { s = 0; for (i = m + 1; i <= NF; i++) if (item[i]) s += $i
             if ((s - $t) > 0.001 || ($t - s) > 0.001) { print $1 ": total " $t ", columns " s; bad = 1 } }
           END { exit bad }' "$gb" || fail "a total is not the sum of its columns"
  [ "$(verdicts dave)" = "wrong wrong wrong wrong wrong wrong wrong wrong " ] || fail "dave: $(verdicts dave)"
  [ "$(verdicts erin)" = "pass pass pass pass pass unsafe unsafe pass " ] || fail "erin: $(verdicts erin)"
  [ "$(verdicts frank)" = "timeout timeout timeout timeout timeout timeout timeout timeout " ] || fail "frank: $(verdicts frank)"
  verdicts grace | grep -q '^unsafe' || fail "grace: $(verdicts grace)"
  [ "$(col "$gb" heidi compile)" = 0 ] || fail "heidi: compile"
  grep -q '__synchthreads' "$work/out/journal/heidi.json" || fail "heidi: the compiler's message"
  # her own line as she wrote it and a hint, in her feedback and in results.json (Gradescope)
  for f in "$work/out/feedback/heidi.txt" "$work/out/results/heidi/results.json"; do
    grep -qF '   25 |         __synchthreads();' "$f" || fail "heidi: her own line in $f"
    grep -qF 'did you mean __syncthreads?' "$f" || fail "heidi: the hint in $f"
  done
  [ "$(col "$gb" ivan total)" = 10 ] || fail "ivan: only the compile points, got $(col "$gb" ivan total)"
  grep -q 'ivan: could not open' "$work/out/journal/ivan.json" || fail "ivan: its reads must fail"
  grep -q 'ivan: opened' "$work/out/journal/ivan.json" && fail "ivan: read a file it must not see"
  [ "$(col "$gb" judy compile)" = 0 ] && [ "$(col "$gb" judy 'static checks')" = 0 ] || fail "judy"
  grep -q 'cuBLAS' "$work/out/journal/judy.json" || fail "judy: cuBLAS not named"
  # the linker's messages name her file, not the grading machine's folders or intermediate files
  grep -q "template.cu: undefined reference to .cublasSgemm_v2" "$work/out/journal/judy.json" \
    || fail "judy: the linker's message"
  grep -E -q '/out/keep|cudafe1|/usr/bin/ld' "$work/out/journal/judy.json" && fail "judy: server paths in the messages"
  for s in alice judy; do
    r="$work/out/results/$s/results.json"
    for field in '"score"' '"output"' '"visibility"' '"tests"' '"leaderboard"' \
                 '"max_score"' '"status"' '"name"'; do
      grep -q "$field" "$r" || fail "$r lacks $field"
    done
  done
  # What run shows a student: carol's race with its lines, dave's worst element and map, in
  # the feedback and in results.json; hidden datasets never get theirs.
  for f in "$work/out/feedback/carol.txt" "$work/out/results/carol/results.json"; do
    grep -q 'cause: shared-memory race at template.cu:[0-9]* and line [0-9]*: .* is missing' "$f" \
      || fail "carol: no cause line in $f"
  done
  for f in "$work/out/feedback/dave.txt" "$work/out/results/dave/results.json"; do
    grep -q 'worst at (row [0-9]*, col [0-9]*): got .*, expected ' "$f" || fail "dave: no worst element in $f"
    grep -q 'where P is wrong: ' "$f" || fail "dave: no map in $f"
  done
  grep -q 'cause:' "$work/out/feedback/erin.txt" && fail "erin: a hidden dataset's cause in her feedback"
  # Each student's page, linked from the report.
  for s in alice carol dave erin judy; do
    grep -q "<a href=\"pages/$s.html\">$s</a>" "$work/out/report.html" || fail "report: no link to $s's page"
    [ -s "$work/out/pages/$s.html" ] || fail "no page for $s"
  done
  grep -q '<li>cause: shared-memory race at template.cu:' "$work/out/pages/carol.html" || fail "carol's page: no cause"
  grep -q 'out-of-bounds' "$work/out/pages/erin.html" && fail "erin's page: a hidden dataset's finding"
  # Forged reading of a hidden result: erin fails both hidden datasets, alice passes them, both
  # pass every visible one. Before the due date (tests not visible left out) their results.json
  # must be the same, and neither may hold the total.
  if command -v python3 >/dev/null; then
    python3 - "$work/out/results" <<'PY' || fail "results.json tells a hidden result"
import json, sys
def seen(s):
    d = json.load(open(f"{sys.argv[1]}/{s}/results.json"))
    assert "score" not in d and "execution_time" not in d, s
    d["tests"] = [t for t in d["tests"] if t["visibility"] == "visible"]
    return json.dumps(d, sort_keys=True)
a, e = seen("alice"), seen("erin")
if a != e:
    print(a, e, sep="\n---\n")
    sys.exit(1)
PY
  fi
  diff <(grep -v '^tilelab feedback for\|^Graded' "$work/out/feedback/alice.txt") \
       <(grep -v '^tilelab feedback for\|^Graded' "$work/out/feedback/erin.txt") >/dev/null \
    || fail "the feedback tells a hidden result (alice's and erin's differ)"
  grep -q '"visibility":[[:space:]]*"after_due_date"' "$work/out/results/alice/results.json" \
    || fail "hidden tests keep the rubric's visibility"
  [ -s "$work/out/report.html" ] && [ -s "$work/out/feedback/alice.txt" ] || fail "report/feedback"
  ;;
lab03_class)
  # Lab 03's class (examples/submissions/03-arbitrary): eleven datasets (ten shipped, the
  # safety one), so the shares are whole hundredths adding up to 60, and speed only counts
  # where the kernel is right.
  cli_grade "$root/examples/submissions/03-arbitrary" --lab 03 --out "$work/out" --timeout 20 \
    --jobs 2 --quiet >"$work/stdout" 2>"$work/stderr" || { rc=$?; cat "$work/stderr"; fail "grade exited $rc"; }
  gb="$work/out/gradebook.csv"
  for s in ana fay; do
    [ "$(col "$gb" $s total)" = 100 ] || fail "$s: a correct, fast kernel must get 100, got $(col "$gb" $s total)"
  done
  [ "$(col "$gb" ana 'dataset 0 (1x1x1)')" = 5.46 ] && [ "$(col "$gb" ana 'dataset 9 (257x257x257)')" = 5.45 ] \
    || fail "the dataset shares: $(col "$gb" ana 'dataset 0 (1x1x1)') and $(col "$gb" ana 'dataset 9 (257x257x257)')"
  for s in ben cleo dan; do
    verdicts $s | grep -q '^unsafe unsafe unsafe' || fail "$s: $(verdicts $s)"
  done
  grep -q 'out-of-bounds global access at template.cu:2[12]' "$work/out/journal/ben.json" || fail "ben: the read's line"
  grep -q 'barrier divergence at template.cu:' "$work/out/journal/cleo.json" || fail "cleo: the barrier"
  # gus is right only where Width is a multiple of 16 (2048, the performance size): no speed points
  [ "$(verdicts gus | grep -o pass | wc -l)" = 0 ] || fail "gus: $(verdicts gus)"
  [ "$(col "$gb" gus performance)" = 0 ] || fail "gus: performance points for a kernel that passed nothing"
  grep -q 'not timed: no graded dataset passed' "$work/out/journal/gus.json" || fail "gus: why not timed"
  # ida's race needs two phases: widths 1, 2 and 15 pass, the rest are unsafe, no speed points
  [ "$(verdicts ida)" = "pass pass pass unsafe unsafe unsafe unsafe unsafe unsafe unsafe unsafe " ] \
    || fail "ida: $(verdicts ida)"
  [ "$(col "$gb" ida performance)" = 0 ] || fail "ida: timed although unsafe"
  # the model ranks the correct kernels as an H100 does: 32x32 and 16x16 tiles, then 8x8, naive, transposed
  perf() { col "$gb" "$1" performance; }
  awk -v f="$(perf fay)" -v a="$(perf ana)" -v j="$(perf jon)" -v h="$(perf hal)" \
    'BEGIN { exit !(f >= a && a > j && j > h && h > 0) }' \
    || fail "performance order: fay $(perf fay) ana $(perf ana) jon $(perf jon) hal $(perf hal)"
  ;;
bad_roster)
  # A malformed roster stops the grader before it grades anyone: one line naming file and line.
  printf 'id,name\nalice,Alice\nbob\n' >"$work/roster.csv"
  cli_grade "$class" --lab 02 --out "$work/out" --roster "$work/roster.csv" >"$work/o" 2>"$work/e"
  rc=$?
  [ "$rc" = 2 ] || fail "exit status $rc, expected 2"
  [ "$(wc -l <"$work/e")" = 1 ] && grep -q 'roster.csv:3: 1 cell(s), the header has 2' "$work/e" \
    || fail "the message: $(cat "$work/e")"
  [ ! -e "$work/out/journal/alice.json" ] || fail "graded despite the bad roster"
  ;;
resume)
  # Grade, kill -9 in the middle, grade again: the gradebook matches an uninterrupted grading
  # (timing-based columns aside) and the finished submissions were not graded twice.
  cli_grade "$class" --lab 02 --out "$work/full" --timeout 5 --jobs 2 --quiet >/dev/null 2>&1 || fail "full run"
  setsid "$cli" grade "$class" --lab 02 --out "$work/out" --timeout 5 --jobs 1 --quiet >/dev/null 2>&1 --backend cpu &
  bg=$!
  for _ in $(seq 1 600); do
    [ "$(ls "$work/out/journal" 2>/dev/null | grep -c '\.json$')" -ge 3 ] && break
    sleep 0.1
  done
  kill -9 -- -"$bg"; wait "$bg" 2>/dev/null
  before="$(ls "$work/out/journal" | grep -c '\.json$')"
  [ "$before" -ge 3 ] && [ "$before" -lt 10 ] || fail "the kill came at a bad time ($before graded)"
  stamp="$(stat -c %Y "$work/out/journal/alice.json")"
  sleep 1
  cli_grade "$class" --lab 02 --out "$work/out" --timeout 5 --jobs 2 >/dev/null 2>"$work/resumed" || fail "resumed run"
  [ "$(stat -c %Y "$work/out/journal/alice.json")" = "$stamp" ] || fail "alice was graded again"
  # the last line says how many were graded now and how many came from the journal
  all="$(ls -d "$class"/*/ | wc -l)"
  grep -q "graded $((all - before)) submission(s) in [0-9.]* s; $before more reused from the journal" \
    "$work/resumed" || fail "the resumed run's last line: $(tail -1 "$work/resumed")"
  strip() { cut -d, -f1,3-9 "$1"; } # drop total and performance: they depend on timings
  diff <(strip "$work/full/gradebook.csv") <(strip "$work/out/gradebook.csv") || fail "gradebooks differ"
  ;;
roster)
  # A roster whose ids the folders spell otherwise. s02 is S02 (another case: one student, with
  # a warning); s03 is a copy of alice trying to pass for S03, whose own (failing) folder is
  # there: the exact match wins; AB and Ab are both roster id ab (ambiguous: neither is); extra
  # is not in the roster; S09 handed nothing in. Then the same grading resumed, and again with
  # one file changed: how many were reused and how many graded again.
  mkdir -p "$work/class"
  cp -r "$class/alice" "$work/class/s02"
  cp -r "$class/alice" "$work/class/s03"
  for s in S03 AB Ab extra; do cp -r "$class/heidi" "$work/class/$s"; done
  printf 'id,name\nS02,Two\nS03,Three\nab,Ambiguous\nS09,Nine\n' >"$work/roster.csv"
  grade_roster() {
    cli_grade "$work/class" --lab 02 --datasets "$root/datasets/02-tiled" --roster "$work/roster.csv" \
      --out "$work/out" --timeout 30 --jobs 2 >"$work/stdout" 2>"$work/stderr" \
      || { cat "$work/stderr"; fail "grade exited $?"; }
  }
  grade_roster
  cat "$work/stdout" "$work/stderr"
  for w in 'folder "s02" is roster id "S02" (matched ignoring case and surrounding spaces)' \
           'ambiguous: folders "AB" and "Ab" and roster id "ab" differ only in case' \
           'ambiguous: folders "S03" and "s03" differ only in case or surrounding spaces: graded as 2 students' \
           'folder "s03" is not in the roster' 'folder "extra" is not in the roster' \
           'folder "AB" is not in the roster' 'folder "Ab" is not in the roster' \
           'roster id "S09" has no submission folder: 0 points' 'roster id "ab" has no submission folder'; do
    grep -qF "warning: $w" "$work/stderr" || fail "no warning: $w"
  done
  gb="$work/out/gradebook.csv"
  row() { grep "^$1," "$gb" | tr -d '\r'; }
  [ "$(col "$gb" S02 total)" = 100 ] && [ "$(col "$gb" S02 name)" = Two ] || fail "S02: $(row S02)"
  row S02 | grep -q ',"matched folder ""s02"""$' || fail "S02's roster column: $(row S02)"
  [ -z "$(row s02)" ] || fail "s02 is a student of its own: $(row s02)"
  [ "$(col "$gb" S03 total)" = 0 ] && row S03 | grep -q ',$' || fail "S03 must keep its own grade: $(row S03)"
  [ "$(col "$gb" s03 total)" = 100 ] && row s03 | grep -q ',not in the roster$' || fail "s03: $(row s03)"
  for s in AB Ab extra; do row $s | grep -q ',not in the roster$' || fail "$s: $(row $s)"; done
  for s in S09 ab; do
    row $s | grep -q "^$s,[A-Za-z]*,0,100,.*,no submission$" || fail "$s: $(row $s)"
    grep -Eq "^$s +0\.0/100 +no submission$" "$work/stdout" || fail "$s: not in grade's table"
    grep -q '"output":[[:space:]]*"No submission of yours was graded: 0 / 100 points."' \
      "$work/out/results/$s/results.json" || fail "$s: results.json"
    grep -q 'No submission of yours was graded' "$work/out/feedback/$s.txt" || fail "$s: feedback"
    grep -q "<tr class=\"student\"><td>$s</td><td>0 / 100</td>.*no submission" "$work/out/report.html" \
      || fail "$s: the report's table"
  done
  [ "$(wc -l <"$gb")" = 9 ] || fail "the gradebook has $(wc -l <"$gb") lines, expected a header and 8 students"
  grep -Eq '^S02 +100\.0/100 .*matched folder "s02"$' "$work/stdout" || fail "S02 in grade's table"
  grep -q '<tr><th>On the roster, no submission (0 points)</th><td class="absent">2</td></tr>' \
    "$work/out/report.html" || fail "the report's summary: no submission"
  grep -q '<tr><th>Submissions not in the roster</th><td>4</td></tr>' "$work/out/report.html" \
    || fail "the report's summary: not in the roster"
  [ -e "$work/out/results/S02/results.json" ] && [ ! -e "$work/out/results/s02" ] || fail "S02's results.json"
  # Resumed: nothing graded again, and the line says so; then one file changed.
  grade_roster
  grep -q '^graded none: all 6 submission(s) reused from the journal' "$work/stderr" \
    || fail "the resumed run's last line: $(tail -1 "$work/stderr")"
  echo '// a late fix' >>"$work/class/extra/template.cu"
  grade_roster
  grep -q '^graded 1 submission(s) in [0-9.]* s; 5 more reused from the journal' "$work/stderr" \
    || fail "the last line after a change: $(tail -1 "$work/stderr")"
  [ "$(col "$gb" S02 total)" = 100 ] && row S09 | grep -q ',no submission$' || fail "the outputs after resuming"
  ;;
lock)
  setsid "$cli" grade "$class" --lab 02 --out "$work/out" --timeout 30 --jobs 1 --quiet >/dev/null 2>&1 --backend cpu &
  bg=$!
  for _ in $(seq 1 100); do [ -e "$work/out/.lock" ] && break; sleep 0.1; done
  sleep 0.5
  cli_grade "$class" --lab 02 --out "$work/out" --quiet >"$work/o" 2>&1; rc=$?
  cat "$work/o"
  [ "$rc" = 2 ] && grep -q "another grader is working on this folder" "$work/o" || fail "no lock (exit $rc)"
  ;;
output_cap)
  mkdir -p "$work/class/chatty"
  cp "$root/tests/grader/chatty/template.cu" "$work/class/chatty/"
  cli_grade "$work/class" --lab 02 --out "$work/out" --timeout 30 --quiet \
    --datasets "$root/datasets/02-tiled" >/dev/null 2>&1 || fail "grade"
  size=$(grep -o '"stdout":[[:space:]]*"[^"]*"' "$work/out/journal/chatty.json" | head -1 | wc -c)
  [ "$size" -gt 60000 ] && [ "$size" -lt 70000 ] || fail "stdout kept $size bytes (cap 64 KiB)"
  [ "$(verdicts chatty | cut -d' ' -f1)" = pass ] || fail "chatty must still pass"
  ;;
browser)
  # The report renders in headless Chromium (skipped, with a message, without one).
  mkdir -p "$work/class"
  cp -r "$class/alice" "$class/bob" "$class/heidi" "$work/class/"
  cli_grade "$work/class" --lab 02 --out "$work/out" --timeout 30 --quiet >/dev/null 2>&1 || fail "grade"
  "$root/tests/grader_browser/check_report.sh" "$work/out/report.html"; rc=$?
  exit $rc
  ;;
kit_labs)
  # Every kit lab's class graded as whole libwb programs: each program gets the verdict its
  # first line names on the datasets where it fails and passes the others; correct ones get full
  # marks; a broken one never does.
  for lab in "$root"/examples/kit-labs/*/; do
    lab="${lab%/}" name="$(basename "$lab")"
    cli_grade "$lab/submissions" --lab "$lab" --out "$work/$name" --timeout 30 --jobs 2 --quiet \
      >"$work/$name.stdout" 2>&1 || { rc=$?; cat "$work/$name.stdout"; fail "$name: grade exited $rc"; }
    for src in "$lab"/submissions/*/main.cu; do
      student="$(basename "$(dirname "$src")")"
      expect="$(sed -n '1s|^// expect: ||p' "$src")"
      got="$(awk '/"datasets":/ { on = 1 } /"performance":/ { on = 0 } on' \
               "$work/$name/journal/$student.json" | grep -o '"verdict":[[:space:]]*"[a-z-]*"' |
             sed 's/.*"\([a-z-]*\)"$/\1/' | sort -u | tr '\n' ' ')"
      total="$(col "$work/$name/gradebook.csv" "$student" total)"
      echo "$name/$student: expect $expect, datasets: $got, total $total"
      case "$expect" in
        pass) [ "$got" = "pass " ] && [ "$total" = 100 ] || fail "$name/$student: $got $total" ;;
        *) { [ "$got" = "$expect " ] || [ "$got" = "pass $expect " ]; } && [ "$total" != 100 ] \
             || { grep '"detail"' "$work/$name/journal/$student.json" | sort | uniq -c;
                  fail "$name/$student: expected $expect, got $got (total $total)"; } ;;
      esac
    done
  done
  # The refusal says why without the grader's paths.
  grep -q 'the program imports the expected output (the file given with -e)' \
    "$work/vector-add/journal/expected-output.json" || fail "expected-output: the refusal's reason"
  grep -q '/capture/' "$work"/*/journal/*.json && fail "a grader path in a journal entry"
  ;;
kit_lab_outputs)
  # A lab.json lab has no performance part: no "performance" item (it read "0 / 0, failed"),
  # the feedback says speed is not graded, and each passing dataset says what it passed
  # (it read "pass: " with nothing after). A rubric that gives points for speed such a lab
  # cannot earn is refused.
  lab="$root/examples/kit-labs/vector-add"
  mkdir -p "$work/class/ana"
  cp "$lab/submissions/correct/main.cu" "$work/class/ana/"
  cli_grade "$work/class" --lab "$lab" --out "$work/out" --timeout 30 >"$work/stdout" 2>&1 \
    || { cat "$work/stdout"; fail "grade exited $?"; }
  cat "$work/stdout" "$work/out/feedback/ana.txt"
  grep -q '^ana  *100.0/100 .* 10/10  *not graded$' "$work/stdout" || fail "the terminal's row"
  fb="$work/out/feedback/ana.txt"
  grep -q 'performance' "$fb" && fail "a performance item in the feedback"
  grep -q '^Performance: not graded (no points for speed in this lab.s rubric)$' "$fb" \
    || fail "the feedback's performance line"
  grep -Eq 'pass: *$' "$fb" && fail "a dataset item that says nothing after pass:"
  [ "$(grep -Ec "^  dataset [0-9]+ \([0-9]+\): 9 / 9, passed - pass: all [0-9]+ elements within libwb's tolerance in 1 checked run\(s\)$" "$fb")" = 10 ] \
    || fail "the dataset items' outputs"
  rj="$work/out/results/ana/results.json"
  grep -q '"name":[[:space:]]*"performance"' "$rj" && fail "a performance test in results.json"
  grep -Eq '"output":[[:space:]]*"pass: "' "$rj" && fail "an empty pass output in results.json"
  grep -q '"performance"' "$work/out/gradebook.csv" && fail "a performance column in the gradebook"
  rp="$work/out/report.html"
  grep -q 'id="speed"' "$rp" && fail "a speed section in the report"
  grep -q "no points for speed in this lab's rubric" "$rp" || fail "the report's header does not say speed is not graded"
  grep -q 'performance on a' "$rp" && fail "the report's header names a performance dataset"
  # the lab's rubric with points for speed
  mkdir -p "$work/lab"
  cp -r "$lab/datasets" "$work/lab/"
  sed 's/"datasets": "datasets"/"datasets": "datasets", "rubric": "speed.rubric"/' "$lab/lab.json" >"$work/lab/lab.json"
  sed 's/^performance = 0 .*/performance = 20/' "$root/grader/rubrics/program.rubric" >"$work/lab/speed.rubric"
  out="$(cli_grade "$work/class" --lab "$work/lab" --out "$work/out2" 2>&1)"; rc=$?
  echo "$out"
  [ "$rc" = 2 ] || fail "a rubric with points for speed: exit $rc, expected 2"
  grep -q "speed.rubric: performance = 20, but lab vector-add (a lab.json) has no reference solution to time the programs against: set performance = 0" <<<"$out" \
    || fail "the rubric's error"
  ;;
challenge_class)
  # Lab 06's class: lab 05's kernel and the handout's steps as students, two copies of the
  # reference (a tie the roster's times break), and the reference without its edge kernels
  # (fast, right at 4096^3, wrong at the odd sizes: never ranked), and two that break the
  # plain-CUDA rule (below). On the CPU backend by
  # default; CHALLENGE_BACKEND=gpu grades it on a GPU, CHALLENGE_KEEP=DIR keeps the outputs.
  backend="${CHALLENGE_BACKEND:-cpu}"
  steps="$root/solutions/06-challenge/steps"
  add() { mkdir -p "$work/class/$1" && cp "$2" "$work/class/$1/template.cu" || fail "copy $2"; }
  add ana "$root/solutions/05-bank-conflicts/solution.cu"
  add ben "$steps/1-blocktile-1d.cu"
  add cai "$steps/2-blocktile-2d.cu"
  add dev "$steps/3-vectorize.cu"
  add eva "$steps/4-warptile.cu"
  add fay "$steps/5-double-buffer.cu"
  add gus "$root/solutions/06-challenge/solution.cu"
  add hal "$root/solutions/06-challenge/solution.cu"
  mkdir -p "$work/class/ivy"
  sed 's/if (full_cols < l)$/if (full_cols < l \&\& full_cols == 0)/; s/if (full_rows < j \&\& full_cols > 0)$/if (0)/' \
    "$root/solutions/06-challenge/solution.cu" >"$work/class/ivy/template.cu"
  cmp -s "$work/class/ivy/template.cu" "$root/solutions/06-challenge/solution.cu" && fail "ivy: the edits did not apply"
  # Plain CUDA C only (plain_cuda, checked in the compiled PTX): jay's products go through an
  # asm() fma, kim's file carries a tensor-core (wmma) kernel. Both correct; neither is timed.
  mkdir -p "$work/class/jay" "$work/class/kim"
  sed 's/^#include <stdint.h>$/#include <stdint.h>\
static __device__ float fma_asm(float a, float b, float c)\
{\
    float d;\
    asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c));\
    return d;\
}/; s/acc\[r\]\[c\] = fmaf(/acc[r][c] = fma_asm(/' \
    "$root/solutions/06-challenge/solution.cu" >"$work/class/jay/template.cu"
  grep -q 'acc\[r\]\[c\] = fma_asm(' "$work/class/jay/template.cu" || fail "jay: the edits did not apply"
  { cat "$root/solutions/06-challenge/solution.cu"
    printf '#include <mma.h>\n#define TC nvcuda::wmma\n'
    printf '__global__ void Tile16(const half *a, const half *b, float *c)\n{\n'
    printf '    TC::fragment<TC::matrix_a, 16, 16, 16, half, TC::row_major> fa;\n'
    printf '    TC::fragment<TC::matrix_b, 16, 16, 16, half, TC::row_major> fb;\n'
    printf '    TC::fragment<TC::accumulator, 16, 16, 16, float> fc;\n'
    printf '    TC::fill_fragment(fc, 0.0f);\n    TC::load_matrix_sync(fa, a, 16);\n'
    printf '    TC::load_matrix_sync(fb, b, 16);\n    TC::mma_sync(fc, fa, fb, fc);\n'
    printf '    TC::store_matrix_sync(c, fc, 16, TC::mem_row_major);\n}\n'; } >"$work/class/kim/template.cu"
  { echo "id,name,submitted"
    for s in ana ben cai dev eva fay ivy jay kim; do echo "$s,$s,2026-11-20T12:00:00Z"; done
    echo "gus,Gus,2026-11-21T08:00:00Z"
    echo "hal,Hal,2026-11-20T08:00:00Z"; } >"$work/roster.csv"
  "$cli" grade "$work/class" --lab 06 --backend "$backend" --roster "$work/roster.csv" \
    --out "$work/out" --timeout 60 --jobs 2 >"$work/stdout" 2>"$work/stderr" \
    || { rc=$?; cat "$work/stderr"; fail "grade exited $rc"; }
  cat "$work/stdout"
  [ -n "${CHALLENGE_KEEP:-}" ] && { mkdir -p "$CHALLENGE_KEEP"; cp -r "$work/out/." "$CHALLENGE_KEEP/"; }
  gb="$work/out/gradebook.csv"
  for s in ana ben cai dev eva fay gus hal; do
    [ "$(verdicts $s | tr ' ' '\n' | sort -u | tr -d '\n')" = pass ] || fail "$s: $(verdicts $s)"
  done
  verdicts ivy | grep -q wrong || fail "ivy: wrong at the edges, got $(verdicts ivy)"
  [ -z "$(col "$gb" ivy 'leaderboard rank')" ] || fail "ivy is ranked"
  # the two references first, the earlier submission ahead; lab 05's kernel last, step 1 next
  ranks="$(for s in hal gus ben ana; do printf '%s=%s ' $s "$(col "$gb" $s 'leaderboard rank')"; done)"
  [ "$ranks" = "hal=1 gus=2 ben=7 ana=8 " ] || fail "ranks: $ranks"
  for s in cai dev eva fay; do
    r="$(col "$gb" $s 'leaderboard rank')"
    [ "$r" -ge 3 ] && [ "$r" -le 6 ] || fail "$s: rank $r"
  done
  # the reference's own file: full points on a GPU; on the CPU backend its predicted 1.00x is
  # scored 10 % lower (the model's margin: 40 log(0.9 / 0.1) / log(10) = 38.17)
  full=40; [ "$backend" = gpu ] || full=38.17
  [ "$(col "$gb" gus performance)" = "$full" ] || fail "gus: $(col "$gb" gus performance) speed points, expected $full"
  ana_points="$(col "$gb" ana performance)"
  awk -v p="$ana_points" 'BEGIN { exit !(p > 0 && p < 20) }' || fail "ana: $ana_points speed points"
  grep -q '<td>-</td><td>ivy</td><td colspan="4">unranked: wrong</td>' "$work/out/report.html" \
    || fail "ivy's row in the report"
  [ "$(verdicts jay | tr ' ' '\n' | sort -u | tr -d '\n')" = pass ] || fail "jay: $(verdicts jay)"
  for s in jay kim; do
    [ -z "$(col "$gb" $s 'leaderboard rank')" ] || fail "$s is ranked"
    [ "$(col "$gb" $s performance)" = 0 ] || fail "$s: $(col "$gb" $s performance) speed points"
    [ "$(col "$gb" $s 'static checks')" = 0 ] || fail "$s: $(col "$gb" $s 'static checks') static points"
    grep -q "<td>-</td><td>$s</td><td colspan=\"4\">unranked: refused</td>" "$work/out/report.html" \
      || fail "$s's row in the report"
  done
  grep -q "inline assembly (asm) in the submission's code, template.cu:[0-9]*" "$work/out/journal/jay.json" \
    || fail "jay: the finding"
  grep -q 'a tensor-core instruction in Tile16 (PTX line [0-9]*: wmma\.' "$work/out/journal/kim.json" \
    || fail "kim: the finding"
  ;;
plain_cuda_class)
  # plain_cuda (lab 06's rule) in a copy of lab 02's rubric. Two honest files whose inline
  # assembly is the toolkit's headers' pass: honest_pipeline (tests/grader/plain_cuda: tiles
  # staged with __pipeline_memcpy_async) and intrinsics (lab 02's solution loading through __ldg
  # and __ldcs, storing through __stcs). jay_asm (the solution with an asm() fma of its own)
  # fails, and so does every way of dressing its asm up as the toolkit's: a #line naming a
  # toolkit header (line_spoof), a macro that writes a line marker nvcc's front end believes
  # (hash_macro), a header of its own named cuda_pipeline.h (own_header), and a macro in force at
  # <cuda_pipeline.h> that turns the toolkit's `asm volatile` statements into its own instruction
  # (macro_volatile).
  { cat "$root/grader/rubrics/02-tiled.rubric"; echo "plain_cuda = yes"; } >"$work/plain.rubric"
  helpers="$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")/../include/cuda_pipeline_helpers.h"
  cp -r "$root/tests/grader/plain_cuda" "$work/class"
  solution="$root/solutions/02-tiled/solution.cu" jay="$work/class/jay_asm/template.cu"
  for s in intrinsics jay_asm line_spoof hash_macro own_header macro_volatile; do mkdir -p "$work/class/$s"; done
  sed 's|= M\[\(.*\)\];$|= __ldg(\&M[\1]);|; s|= N\[\(.*\)\];$|= __ldcs(\&N[\1]);|
       s|^    P\[Row \* Width + Col\] = Pvalue;|    __stcs(\&P[Row * Width + Col], Pvalue);|' \
    "$solution" >"$work/class/intrinsics/template.cu"
  sed 's|^#include "lab.h"$|&\
static __device__ float fma_asm(float a, float b, float c)\
{\
    float d;\
    asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c));\
    return d;\
}|; s|Pvalue += Mds\[ty\]\[i\] \* Nds\[i\]\[tx\];|Pvalue = fma_asm(Mds[ty][i], Nds[i][tx], Pvalue);|' \
    "$solution" >"$jay"
  [ "$(grep -c '__ldg\|__ldcs\|__stcs' "$work/class/intrinsics/template.cu")" = 3 ] || fail "intrinsics: the edits did not apply"
  grep -q 'Pvalue = fma_asm(' "$jay" || fail "jay_asm: the edits did not apply"
  sed "s|^static __device__ float fma_asm|#include <cuda_pipeline.h>\n#line 180 \"$helpers\"\n&|" "$jay" \
    >"$work/class/line_spoof/template.cu"
  sed "s|^static __device__ float fma_asm|#include <cuda_pipeline.h>\n#define FROM_THE_TOOLKIT # 180 \"$helpers\"\nFROM_THE_TOOLKIT\n&|" \
    "$jay" >"$work/class/hash_macro/template.cu"
  sed -n '/^static __device__ float fma_asm/,/^}/p' "$jay" >"$work/class/own_header/cuda_pipeline.h"
  sed '/^static __device__ float fma_asm/,/^}/d; s|^#include "lab.h"$|&\n#include "cuda_pipeline.h"|' "$jay" \
    >"$work/class/own_header/template.cu"
  sed 's|^#include <cuda_pipeline.h>$|#define volatile(...) ("membar.gl;" ::: "memory")\n&\n#undef volatile|' \
    "$work/class/honest_pipeline/template.cu" >"$work/class/macro_volatile/template.cu"
  for s in line_spoof hash_macro own_header macro_volatile; do
    cmp -s "$work/class/$s/template.cu" "$jay" && fail "$s: the edits did not apply"
  done
  "$cli" datasets 02 --size 64 --seed 3 --out "$work/ds" >/dev/null || fail "datasets"
  cli_grade "$work/class" --lab 02 --rubric "$work/plain.rubric" --datasets "$work/ds" \
    --perf-size 256 --out "$work/out" --timeout 30 --jobs 2 >"$work/stdout" 2>"$work/stderr" \
    || { rc=$?; cat "$work/stderr"; fail "grade exited $rc"; }
  cat "$work/stdout"
  gb="$work/out/gradebook.csv"
  plain() { # plain STUDENT: the plain-CUDA check's ok and detail
    python3 -c 'import json, sys
for c in json.load(open(sys.argv[1]))["static"]:
    if c["name"].startswith("plain CUDA C"): print(c["ok"], c["detail"])' "$work/out/journal/$1.json"
  }
  for s in honest_pipeline intrinsics; do
    plain $s | grep -q "^True no tensor-core instruction; the [0-9]* inline-assembly blocks in the PTX come from the toolkit's headers" \
      || fail "$s: $(plain $s)"
    [ "$(col "$gb" $s 'static checks')" = 10 ] || fail "$s: static checks"
    [ "$(verdicts $s)" = "pass pass " ] || fail "$s: $(verdicts $s)"
    [ "$(col "$gb" $s performance)" != 0 ] || fail "$s: not timed"
  done
  line() { grep -n -m1 "$2" "$work/class/$1" | cut -d: -f1; } # line FILE PATTERN
  expect() { # expect STUDENT DETAIL
    plain "$1" | grep -qF "False $2" || fail "$1: $(plain "$1")"
    [ "$(col "$gb" "$1" 'static checks')" = 0 ] || fail "$1: static checks"
    [ "$(col "$gb" "$1" performance)" = 0 ] || fail "$1: timed"
  }
  own="inline assembly (asm) in the submission's code"
  expect jay_asm "$own, template.cu:$(line jay_asm/template.cu '^ *asm(')"
  expect line_spoof "template.cu:$(line line_spoof/template.cu '^#line'): a #line directive or line marker"
  expect hash_macro "$own, template.cu:$(line hash_macro/template.cu '^ *asm(')"
  expect own_header "$own, cuda_pipeline.h:$(line own_header/cuda_pipeline.h '^ *asm(')"
  expect macro_volatile "template.cu:$(line macro_volatile/template.cu '^#define volatile'): #define volatile is in force at the #include <cuda_pipeline.h> of template.cu:$(line macro_volatile/template.cu '^#include <cuda_pipeline.h>')"
  ;;
leaderboard)
  # leaderboard = yes and the log curve in a copy of lab 02's rubric. twin and mallory hand in
  # alice's file: the same predicted time, a tie that the roster's times break. mallory's folder
  # claims an early time every way a student could (Gradescope's metadata file, a "submitted"
  # file, old mtimes): none of it is believed.
  { cat "$root/grader/rubrics/02-tiled.rubric"
    printf 'leaderboard = yes\nperformance_curve = log\nperformance_zero = 0.1\nperformance_full = 1.0\n'
  } >"$work/board.rubric"
  mkdir -p "$work/class"
  cp -r "$class/alice" "$class/bob" "$class/carol" "$work/class/"
  cp -r "$class/alice" "$work/class/twin"
  cp -r "$class/alice" "$work/class/mallory"
  printf '{"id": 1, "created_at": "2000-01-01T00:00:00Z"}\n' >"$work/class/mallory/submission_metadata.json"
  echo "2000-01-01T00:00:00Z" >"$work/class/mallory/submitted"
  touch -d 2000-01-01T00:00:00Z "$work/class/mallory" "$work/class/mallory"/*
  { echo "id,name,submitted"
    echo "alice,Alice,2026-11-20T12:00:00Z"
    echo "twin,Twin,2026-11-20 09:00"
    echo "mallory,Mallory,2026-11-20T18:00:00-05:00"
    echo "bob,Bob,2026-11-19T08:00:00Z"
    echo "carol,Carol,2026-11-18T08:00:00Z"; } >"$work/roster.csv"
  cli_grade "$work/class" --lab 02 --rubric "$work/board.rubric" --roster "$work/roster.csv" \
    --out "$work/out" --timeout 30 --jobs 2 >"$work/stdout" 2>"$work/stderr" \
    || { rc=$?; cat "$work/stderr"; fail "grade exited $rc"; }
  cat "$work/stdout"
  gb="$work/out/gradebook.csv"
  ranks="$(for s in twin alice mallory bob carol; do printf '%s=%s ' $s "$(col "$gb" $s 'leaderboard rank')"; done)"
  [ "$ranks" = "twin=1 alice=2 mallory=3 bob=4 carol= " ] || fail "ranks: $ranks"
  grep -q '"submitted":[[:space:]]*"2026-11-20T23:00:00Z"' "$work/out/results/mallory/results.json" \
    || fail "mallory: the roster's time, not her files': $(grep -A1 extra_data "$work/out/results/mallory/results.json")"
  grep -q '<td>3</td><td>mallory</td>.*<td>2026-11-20T23:00:00Z</td></tr>' "$work/out/report.html" \
    || fail "mallory's row in the report"
  grep -q '<td>-</td><td>carol</td><td colspan="4">unranked: unsafe</td>' "$work/out/report.html" \
    || fail "carol: unranked, unsafe"
  grep -q 'Leaderboard .* predicted H100 times (CPU backend)' "$work/out/report.html" || fail "predicted"
  grep -q '^leaderboard: 4 of 5 ranked by kernel time (predicted H100); the top 4$' "$work/stdout" \
    || fail "the summary's leaderboard"
  grep -Eq '^ +1 twin +[0-9.]+ +[0-9.]+ +[0-9.]+x  2026-11-20T09:00:00Z$' "$work/stdout" \
    || fail "the summary's first place"
  # the log curve: bob (all datasets pass) gets 20 * log(ratio / 0.1) / log(10), at the ratio
  # scored (on the CPU backend the model's prediction less its margin)
  ratio="$(grep -A5 '"performance":' "$work/out/journal/bob.json" | grep -o '"scored_ratio":[[:space:]]*[0-9.e+-]*' | sed 's/.*:[[:space:]]*//')"
  awk -v r="$ratio" -v p="$(col "$gb" bob performance)" \
    'BEGIN { want = 20 * log(r / 0.1) / log(10); exit !(r > 0.1 && r < 1 && (p - want)^2 < 0.0001) }' \
    || fail "bob: performance $(col "$gb" bob performance) for a ratio of $ratio on the log curve"
  # Gradescope: a class of one, the time from the metadata the instructor's side passes
  mkdir -p "$work/one"
  cp -r "$work/class/mallory/." "$work/one/"
  printf '{"created_at": "2026-11-21T01:02:03.5+01:00"}\n' >"$work/metadata.json"
  cli_grade "$work/one" --lab 02 --rubric "$work/board.rubric" --out "$work/out1" --timeout 30 \
    --submission-metadata "$work/metadata.json" --quiet >/dev/null 2>"$work/stderr1" \
    || { rc=$?; cat "$work/stderr1"; fail "grade --submission-metadata exited $rc"; }
  grep -q '"submitted":[[:space:]]*"2026-11-21T00:02:03.5Z"' "$work/out1/results/one/results.json" \
    || fail "the metadata's created_at: $(grep -A1 extra_data "$work/out1/results/one/results.json")"
  # a bad time in the roster stops the grader, naming the roster, the line and the value
  sed -i 's/^bob,Bob,.*/bob,Bob,next Friday/' "$work/roster.csv"
  cli_grade "$work/class" --lab 02 --roster "$work/roster.csv" --out "$work/out2" >/dev/null 2>"$work/e"
  rc=$?
  [ "$rc" = 2 ] && grep -q 'roster.csv:5: submitted "next Friday" is not an ISO 8601 time' "$work/e" \
    || fail "a bad submitted time (exit $rc): $(cat "$work/e")"
  ;;
slow_libwb)
  # Correct whole libwb programs with too little parallelism (tests/grader/slow_libwb: one
  # thread per row, or per column, of C: at 2048^3 eight blocks, each thread 2048 x 2048
  # multiply-adds). The model's sample is the whole grid; its busy limits must prove them slower
  # than the time at which they earn no speed points, in seconds rather than the hour the whole
  # product takes the interpreter, and say why. basic (the kit's basic-matmul program, a thread
  # per element) keeps its points.
  mkdir -p "$work/class/row" "$work/class/column" "$work/class/basic"
  cp "$root/tests/grader/slow_libwb/main.cu" "$work/class/row/main.cu"
  { echo "#define PER_COLUMN"; cat "$root/tests/grader/slow_libwb/main.cu"; } >"$work/class/column/main.cu"
  cp "$root/examples/kit-labs/basic-matmul/submissions/correct/main.cu" "$work/class/basic/main.cu"
  start=$SECONDS
  timeout 600 "$cli" grade "$work/class" --lab 04 --libwb --backend cpu \
    --out "$work/out" --jobs 1 >"$work/stdout" 2>"$work/stderr" \
    || { cat "$work/stderr"; fail "grade exited $? after $((SECONDS - start)) s"; }
  cat "$work/stdout"
  [ $((SECONDS - start)) -lt 300 ] || fail "the grading took $((SECONDS - start)) s"
  gb="$work/out/gradebook.csv"
  for s in row column; do
    [ "$(verdicts $s | tr ' ' '\n' | sort -u | tr -d '\n')" = pass ] || fail "$s: $(verdicts $s)"
    [ "$(col "$gb" $s performance)" = 0 ] || fail "$s: speed points $(col "$gb" $s performance)"
    grep -q '"slower_than":[[:space:]]*true' "$work/out/journal/$s.json" || fail "$s: not slower_than"
    grep -q "predicted slower than [0-9.]* ms: in matrixMultiplyLines, one [a-z' ]* more than [0-9]* " \
      "$work/out/journal/$s.json" || fail "$s: the reason"
    grep -q "predicted slower than [0-9.]* ms" "$work/out/feedback/$s.txt" || fail "$s: the feedback"
    # the bound reads as a bound, never as the kernel's time, and it is not ranked by it
    grep -q "^Performance.*: below [0-9.]*x the reference's speed (your kernel slower than [0-9.]* ms" \
      "$work/out/feedback/$s.txt" || fail "$s: the feedback's performance line"
    grep -Eq "^$s +[0-9.]+/100 .* <[0-9.]+x \(predicted\)" "$work/stdout" || fail "$s: the summary's speed"
  done
  # The honest side: a thread per element is predicted as before (0.73x the reference) and
  # earns speed points.
  grep -q '"slower_than"' "$work/out/journal/basic.json" && fail "basic: slower_than"
  awk -v p="$(col "$gb" basic performance)" 'BEGIN { exit !(p > 10) }' \
    || fail "basic: speed points $(col "$gb" basic performance)"
  ;;
*) fail "unknown case $case_name" ;;
esac
echo "ok: $case_name"
