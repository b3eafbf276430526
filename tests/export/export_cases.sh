#!/usr/bin/env bash
# End-to-end cases of ./tilelab export: the bundles are unpacked into the layout each platform
# gives them, and their scripts run there inside bubblewrap (the layout bound at /autograder or
# /grade, the host's /usr and /etc read-only, no network), the kit built by their own install
# step with TILELAB_SKIP_INSTALL=1. The results are checked against the platforms' formats.
#   export_cases.sh CASE CLI KIT_ROOT RESULTS_CHECK
set -u
case_name="$1" cli="$2" root="$3" check="$4"
export TILELAB_ROOT="$root"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
class="$root/examples/submissions/02-tiled"
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

# in_box BINDS... -- COMMAND...: runs COMMAND in a container like the platform's: the host's
# /usr and /etc read-only (and dpkg's database, which the front door's package check reads), the
# host's /proc (a sandbox inside can then mount its own), a private /tmp, no network, a clean
# environment.
in_box() {
  local args=(bwrap --ro-bind /usr /usr --ro-bind /etc /etc) d
  for d in bin sbin lib lib32 lib64 libx32; do
    if [ -L "/$d" ]; then args+=(--symlink "$(readlink "/$d")" "/$d")
    elif [ -d "/$d" ]; then args+=(--ro-bind "/$d" "/$d"); fi
  done
  [ -d /var/lib/dpkg ] && args+=(--ro-bind /var/lib/dpkg /var/lib/dpkg)
  args+=(--bind /proc /proc --dev /dev --tmpfs /tmp --unshare-net --die-with-parent --clearenv
         --setenv PATH /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
         --setenv HOME /tmp)
  while [ "$1" != -- ]; do args+=("$1"); shift; done
  shift
  "${args[@]}" "$@"
}

need_box() {
  command -v bwrap >/dev/null || skip "bubblewrap is not installed"
  in_box -- bwrap --ro-bind / / --proc /proc --dev /dev --unshare-all -- /usr/bin/true \
    2>"$work/box.err" || skip "bubblewrap cannot nest sandboxes here: $(cat "$work/box.err")"
}

# hidden datasets at a tile multiple (lab 02's contract) that no shipped one has: 192^3, seed 5
hidden_datasets() {
  "$cli" datasets 02 --size 192 --seed 5 --out "$work/hidden" >/dev/null || fail "datasets"
}

# conforms KIND FILE WHO: FILE, written by the script whose output is in run.log, is KIND's
# results.json and keeps the kit's sums; results_check's "score S max M ..." goes to $work/check.
conforms() {
  [ -s "$2" ] || { cat "$work/run.log"; fail "$3: no results.json"; }
  "$check" --sums "$1" "$2" >"$work/check" || { cat "$work/check"; fail "$3: $2 does not conform"; }
  cat "$work/check"
}

# field FILE KEY: the first number or quoted string after "KEY": in FILE
field() { grep -o "\"$2\":[[:space:]]*[^,}]*" "$1" | head -n 1 | sed 's/^[^:]*:[[:space:]]*//; s/^"//; s/"$//'; }

case "$case_name" in
gradescope)
  need_box
  hidden_datasets
  "$cli" export gradescope 02 --hidden "$work/hidden" --out "$work/gs.zip" >/dev/null \
    || fail "export gradescope exited $?"
  ag="$work/ag"
  mkdir -p "$ag/source" && unzip -q "$work/gs.zip" -d "$ag/source" || fail "unzip"
  # Gradescope's specification: setup.sh and run_autograder at the zip's root
  [ -f "$ag/source/setup.sh" ] && [ -x "$ag/source/run_autograder" ] || fail "the zip's root"
  [ -f "$ag/source/hidden/0/input0.raw" ] || fail "no hidden dataset in the zip"
  cp "$ag/source/run_autograder" "$ag/run_autograder"  # as Gradescope's image build does
  in_box --bind "$ag" /autograder --chdir /autograder --setenv TILELAB_SKIP_INSTALL 1 -- \
    bash /autograder/source/setup.sh >"$work/setup.log" 2>&1 \
    || { rc=$?; tail -n 30 "$work/setup.log"; fail "setup.sh exited $rc"; }
  # Gradescope's record of the submission beside it, and a forged one among the student's files
  printf '{"id": 7, "created_at": "2026-11-20T15:59:00.25-08:00"}\n' >"$ag/submission_metadata.json"
  grade() { # grade STUDENT: a fresh submission and results folder, and run_autograder
    rm -rf "$ag/submission" "$ag/results" && mkdir -p "$ag/submission" "$ag/results"
    [ -z "$1" ] || cp -R "$class/$1/." "$ag/submission/"
    printf '{"created_at": "2000-01-01T00:00:00Z"}\n' >"$ag/submission/submission_metadata.json"
    in_box --bind "$ag" /autograder --chdir /autograder -- /autograder/run_autograder \
      >"$work/run.log" 2>&1 || { rc=$?; cat "$work/run.log"; fail "run_autograder exited $rc"; }
    conforms gradescope "$ag/results/results.json" "$1"
  }
  grade alice
  grep -qx 'score 100 max 100' "$work/check" || fail "alice: full marks expected: $(cat "$work/check")"
  grep -q '"submitted":[[:space:]]*"2026-11-20T23:59:00.25Z"' "$ag/results/results.json" \
    || fail "alice: the time submitted is Gradescope's created_at, not the submission's file's"
  grep -q '"name":[[:space:]]*"hidden dataset 0 (192x192x192)"' "$ag/results/results.json" \
    || fail "alice: the hidden dataset was not graded"
  grep -q '"visibility":[[:space:]]*"after_due_date"' "$ag/results/results.json" \
    || fail "alice: the hidden test keeps the rubric's visibility"
  grade carol
  read -r _ score _ max <"$work/check"
  awk -v s="$score" -v m="$max" 'BEGIN { exit !(s > 0 && s < m) }' \
    || fail "carol: partial marks expected, got $score of $max"
  grep -q 'unsafe: shared-memory race' "$ag/results/results.json" || fail "carol: the race"
  # a broken bundle still gives a valid results.json: score 0 and the reason
  sed -i 's/^TILELAB_LAB=.*/TILELAB_LAB=99-none/' "$ag/source/tilelab.conf"
  grade alice
  grep -qx 'score 0 max 0' "$work/check" || fail "a failed grading must score 0: $(cat "$work/check")"
  grep -q 'no lab \\"99-none\\"' "$ag/results/results.json" || fail "the failure's reason"
  ;;
gradescope_kit_lab)
  # A described lab's bundle: the description and its datasets in the kit, a whole program
  # graded by it, hidden datasets of its own.
  need_box
  lab="$root/examples/kit-labs/vector-add"
  "$cli" datasets kit-labs --seed 9 --out "$work/kit" >/dev/null || fail "datasets kit-labs"
  "$cli" export gradescope "$lab" --hidden "$work/kit/vector-add" --out "$work/gs.zip" \
    >/dev/null || fail "export gradescope exited $?"
  ag="$work/ag"
  mkdir -p "$ag/source" && unzip -q "$work/gs.zip" -d "$ag/source" || fail "unzip"
  [ -f "$ag/source/tilelab/described/vector-add/lab.json" ] || fail "no lab.json in the kit"
  grep -qx 'TILELAB_LAB=described/vector-add' "$ag/source/tilelab.conf" || fail "the conf's lab"
  cp "$ag/source/run_autograder" "$ag/run_autograder"
  in_box --bind "$ag" /autograder --chdir /autograder --setenv TILELAB_SKIP_INSTALL 1 -- \
    bash /autograder/source/setup.sh >"$work/setup.log" 2>&1 \
    || { rc=$?; tail -n 30 "$work/setup.log"; fail "setup.sh exited $rc"; }
  grade() { # grade STUDENT: run_autograder on the kit lab's program
    rm -rf "$ag/submission" "$ag/results" && mkdir -p "$ag/submission" "$ag/results"
    cp "$lab/submissions/$1/main.cu" "$ag/submission/"
    in_box --bind "$ag" /autograder --chdir /autograder -- /autograder/run_autograder \
      >"$work/run.log" 2>&1 || { rc=$?; cat "$work/run.log"; fail "run_autograder exited $rc"; }
    conforms gradescope "$ag/results/results.json" "$1"
  }
  grade correct
  grep -qx 'score 100 max 100' "$work/check" || fail "correct: full marks expected: $(cat "$work/check")"
  grep -q '"name":[[:space:]]*"hidden dataset 0 (16)"' "$ag/results/results.json" \
    || fail "correct: the hidden datasets were not graded"
  grade in1-twice
  read -r _ score _ max <"$work/check"
  [ "$score" = 10 ] || fail "in1-twice: only the compile points expected, got $score of $max"
  ;;
prairielearn)
  need_box
  hidden_datasets
  pl="$work/pl"
  "$cli" export prairielearn 02 --hidden "$work/hidden" --out "$pl" --image example/tilelab \
    >/dev/null || fail "export prairielearn exited $?"
  q="$pl/questions/tilelab-02-tiled"
  info="$q/info.json"
  # info.json's externalGradingOptions, as PrairieLearn documents them
  grep -q '"gradingMethod": "External"' "$info" && grep -q '"enabled": true' "$info" \
    && grep -q '"image": "example/tilelab"' "$info" && grep -q '"serverFilesCourse": \["tilelab/"\]' "$info" \
    && grep -q '"timeout": [0-9]' "$info" || { cat "$info"; fail "info.json"; }
  entry="$(field "$info" entrypoint)"
  [ -n "$entry" ] || fail "info.json names no entrypoint"
  [ -f "$q/template.cu" ] && grep -q 'source-file-name="template.cu"' "$q/question.html" || fail "question.html"
  # The image: the kit built from serverFilesCourse/tilelab in /opt/tilelab, as its Dockerfile does
  grep -q 'COPY . /opt/tilelab' "$pl/serverFilesCourse/tilelab/Dockerfile" || fail "Dockerfile"
  grep -qx build "$pl/serverFilesCourse/tilelab/.dockerignore" || fail ".dockerignore"
  cp -R "$pl/serverFilesCourse/tilelab" "$work/image-kit"
  # (/opt as an image has it: bwrap would make it 0700, which the grader's workers cannot enter)
  in_box --perms 0755 --dir /opt --bind "$work/image-kit" /opt/tilelab \
    --setenv TILELAB_SKIP_INSTALL 1 -- \
    bash /opt/tilelab/grader/platforms/install.sh /opt/tilelab >"$work/image.log" 2>&1 \
    || { rc=$?; tail -n 30 "$work/image.log"; fail "the image's install step exited $rc"; }
  grade() { # grade STUDENT: /grade laid out as PrairieLearn does, and the entrypoint run
    local g="$work/grade"
    rm -rf "$g" && mkdir -p "$g/serverFilesCourse" "$g/student" "$g/data"
    cp -R "$pl/serverFilesCourse/tilelab" "$g/serverFilesCourse/"
    cp -R "$q/tests" "$g/tests"
    cp "$class/$1/template.cu" "$g/student/"
    echo '{}' >"$g/data/data.json"
    [ -z "${2:-}" ] || echo "$2" >"$g/serverFilesCourse/tilelab/export-id"
    in_box --bind "$g" /grade --perms 0755 --dir /opt --bind "$work/image-kit" /opt/tilelab \
      --chdir /grade -- \
      bash -c "chmod +x '$entry' && '$entry'" >"$work/run.log" 2>&1 \
      || { rc=$?; cat "$work/run.log"; fail "the entrypoint exited $rc"; }
    conforms prairielearn "$g/results/results.json" "$1"
  }
  grade alice
  grep -qx 'score 1 max 1 gradable true' "$work/check" || fail "alice: full marks expected: $(cat "$work/check")"
  r="$work/grade/results/results.json"
  grep -q '"name":[[:space:]]*"hidden test 1"' "$r" || fail "alice: the hidden test"
  grep -q "192x192x192" "$r" && fail "a hidden dataset's name is shown"
  grade carol
  read -r _ score _ <"$work/check"
  awk -v s="$score" 'BEGIN { exit !(s > 0 && s < 1) }' || fail "carol: partial marks expected, got $score"
  grep -q 'unsafe: shared-memory race' "$r" || fail "carol: the race"
  # an image built from another export than the course holds: not gradable, and why
  grade alice "02-tiled another"
  grep -qx 'score 0 max 1 gradable false' "$work/check" || fail "mismatched image: $(cat "$work/check")"
  grep -q 'another export of the kit' "$r" || fail "mismatched image: the reason"
  ;;
prairielearn_results)
  # The conversion alone: points kept, a hidden test's name and output not shown.
  cat >"$work/gs.json" <<'EOF'
{"score": 15, "output": "15 / 30 points.", "tests": [
 {"name": "compile", "score": 10, "max_score": 10, "status": "passed", "output": "builds", "visibility": "visible"},
 {"name": "dataset 0 (32x32x32)", "score": 0, "max_score": 10, "status": "failed", "output": "wrong: 3 elements", "visibility": "visible"},
 {"name": "hidden dataset 0 (47x47x47)", "score": 5, "max_score": 10, "status": "passed", "output": "pass: secret", "visibility": "after_due_date"}]}
EOF
  "$cli" export prairielearn-results "$work/gs.json" "$work/pl.json" || fail "exited $?"
  "$check" --sums prairielearn "$work/pl.json" >"$work/check" || { cat "$work/check"; fail "does not conform"; }
  grep -qx 'score 0.5 max 1 gradable true' "$work/check" || fail "score: $(cat "$work/check")"
  grep -q '"output":[[:space:]]*"wrong: 3 elements"' "$work/pl.json" || fail "a visible test's output"
  grep -q 'secret\|47x47x47' "$work/pl.json" && fail "a hidden test's output or name is shown"
  grep -q '"message":[[:space:]]*"15 / 30 points."' "$work/pl.json" || fail "the message"
  echo '{"score": "x"}' >"$work/bad.json"
  "$cli" export prairielearn-results "$work/bad.json" "$work/pl2.json" 2>"$work/err" && fail "bad input accepted"
  grep -q 'not the grader' "$work/err" || fail "bad input's message: $(cat "$work/err")"
  ;;
results_check)
  # The checker itself: the platforms' documented examples pass, and each broken one fails
  # naming the field.
  # ok|bad [--sums] KIND JSON [MESSAGE]
  ok() { printf '%s\n' "${@: -1}" >"$work/r.json"; "$check" "${@:1:$#-1}" "$work/r.json" >"$work/out" \
           || { cat "$work/out"; fail "rejected: ${*: -1}"; }; }
  bad() { printf '%s\n' "${@: -2:1}" >"$work/r.json"; "$check" "${@:1:$#-2}" "$work/r.json" >"$work/out" \
            && fail "accepted: ${*: -2:1}"
          grep -q "${@: -1}" "$work/out" || fail "expected '${*: -1}' for: ${*: -2:1}, got: $(cat "$work/out")"; }
  ok gradescope '{"score": 44.0, "execution_time": 136, "output": "Text", "visibility": "after_due_date", "stdout_visibility": "visible", "extra_data": {}, "tests": [{"score": 2.0, "max_score": 2.0, "name": "Your name here", "number": "1.1", "output": "out", "tags": ["tag1"], "visibility": "visible", "extra_data": {}}], "leaderboard": [{"name": "Accuracy", "value": 0.926}, {"name": "Time", "value": 15.1, "order": "asc"}, {"name": "Stars", "value": "*****"}]}'
  ok gradescope '{"tests": [{"score": 1, "max_score": 2}, {"score": 2, "max_score": 2}]}'
  # A top-level score overrides the tests' (the specification): only --sums holds it to them.
  ok gradescope '{"score": 5, "tests": [{"score": 1, "max_score": 2}, {"score": 2, "max_score": 2}]}'
  bad --sums gradescope '{"score": 5, "tests": [{"score": 1, "max_score": 2}, {"score": 2, "max_score": 2}]}' 'add up to 3'
  bad gradescope '{"tests": [{"max_score": 2}]}' 'no score'
  bad gradescope '{"score": 1, "visibility": "sometimes"}' 'results.visibility'
  bad gradescope '{"score": 1, "tests": [{"score": 3, "max_score": 2}]}' 'above max_score'
  bad gradescope '{"score": "1"}' 'results.score: not a number'
  bad gradescope '{"score": 1, "leaderboard": [{"name": "t", "value": 1, "order": "up"}]}' 'order'
  ok prairielearn '{"gradable": true, "score": 0.25, "message": "Tests completed successfully.", "output": "Running tests...", "tests": [{"name": "Test 1", "description": "d", "points": 1, "max_points": 1, "message": "No errors!", "output": "o"}, {"name": "Test 2", "points": 0, "max_points": 3}]}'
  ok prairielearn '{"gradable": false, "format_errors": ["no file"]}'
  bad prairielearn '{"gradable": true, "message": "m"}' 'results.score: missing'
  bad prairielearn '{"score": 1.5}' 'outside 0..1'
  bad prairielearn '{"score": 0.5, "tests": [{"points": 1, "max_points": 1}]}' 'tests\[0\].name: missing'
  ok prairielearn '{"score": 0.9, "tests": [{"name": "a", "points": 1, "max_points": 2}]}'
  bad --sums prairielearn '{"score": 0.9, "tests": [{"name": "a", "points": 1, "max_points": 2}]}' 'points give 1 of 2'
  bad prairielearn '{"gradable": "yes", "score": 1}' 'results.gradable: not a boolean'
  ;;
settings)
  # --timeout and --no-sandbox reach the bundle's tilelab.conf, which its entry script reads;
  # without --hidden there is no hidden folder. The scripts keep their executable bit.
  "$cli" export gradescope 02 --timeout 25 --no-sandbox --out "$work/gs.zip" >/dev/null || fail "exited $?"
  unzip -p "$work/gs.zip" tilelab.conf >"$work/conf" || fail "no tilelab.conf at the zip's root"
  grep -qx 'TILELAB_LAB=02-tiled' "$work/conf" && grep -qx 'TILELAB_TIMEOUT=25' "$work/conf" \
    && grep -qx 'TILELAB_SANDBOX=0' "$work/conf" && grep -qx 'TILELAB_HIDDEN=' "$work/conf" \
    || { cat "$work/conf"; fail "tilelab.conf"; }
  unzip -Z "$work/gs.zip" run_autograder setup.sh tilelab/tilelab | grep -c '^-rwx' | grep -qx 3 \
    || fail "the scripts are not executable in the zip: $(unzip -Z "$work/gs.zip" run_autograder)"
  unzip -Z1 "$work/gs.zip" | grep -q '^hidden/' && fail "a hidden folder without --hidden"
  unzip -Z1 "$work/gs.zip" | grep -E -q '^tilelab/(tests|examples|docs|build)/|^tilelab/datasets/0[^2]' \
    && fail "the zip holds what grading does not need: $(unzip -Z1 "$work/gs.zip" | grep -E '^tilelab/(tests|examples|docs|build|datasets/0[^2])' | head -n 3)"
  "$cli" export prairielearn tiled --out "$work/pl" >/dev/null || fail "prairielearn exited $?"
  grep -qx 'TILELAB_SANDBOX=1' "$work/pl/questions/tilelab-02-tiled/tests/tilelab.conf" \
    && grep -qx 'TILELAB_TIMEOUT=10' "$work/pl/questions/tilelab-02-tiled/tests/tilelab.conf" \
    || fail "the question's tilelab.conf"
  grep -q '"image": "tilelab-grader"' "$work/pl/questions/tilelab-02-tiled/info.json" || fail "the default image"
  ;;
bad_usage)
  # Each mistake: exit status 2 and one line saying what is wrong.
  expect() { local want="$1"; shift
    "$cli" "$@" >"$work/o" 2>"$work/e"; local rc=$?
    [ "$rc" = 2 ] || fail "$*: exit status $rc, expected 2"
    grep -q "$want" "$work/e" || fail "$*: expected '$want', got: $(cat "$work/e")"; }
  cd "$work" || fail "cd"
  mkdir -p "$work/tmp" && export TMPDIR="$work/tmp"  # where a Gradescope bundle is put together
  expect 'no format "moodle"' export moodle 02
  expect 'no lab "07"' export gradescope 07
  expect 'name a format and a lab' export gradescope
  expect 'is for prairielearn' export gradescope 02 --image x/y
  expect 'not a Docker image name' export prairielearn 02 --image 'Bad Name'
  expect 'whole number from 1 to 600' export gradescope 02 --timeout 0
  mkdir -p "$work/empty" "$work/taken"
  expect 'no dataset folders in it' export gradescope 02 --hidden "$work/empty" --out "$work/x.zip"
  [ -e "$work/x.zip" ] && fail "a failed export left a zip"
  expect 'no dataset folders in it' export prairielearn 02 --hidden "$work/empty" --out "$work/pl"
  [ -e "$work/pl" ] && fail "a failed export left its folder"
  expect 'already exists' export prairielearn 02 --out "$work/taken"
  expect 'give the grader.s results.json' export prairielearn-results only-one
  left=("$work"/tmp/* "$work"/*.tmp-*)
  [ ! -e "${left[0]}" ] && [ ! -e "${left[1]}" ] \
    || fail "a failed export left its temporary folder: ${left[*]}"
  ;;
*) fail "no case $case_name" ;;
esac
echo "ok: $case_name"
