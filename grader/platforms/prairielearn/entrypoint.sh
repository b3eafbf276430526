#!/usr/bin/env bash
# PrairieLearn's external grader runs this (the question's info.json names it as entrypoint) in
# the tilelab grading image, whose kit was built from serverFilesCourse/tilelab (its Dockerfile).
# It grades the student's files in /grade/student on the CPU backend as the question's
# /grade/tests/tilelab.conf says, and writes /grade/results/results.json in PrairieLearn's format.
# Whatever fails, a valid results.json says what: not gradable, so the student loses no attempt.
# GRADE_ROOT replaces /grade, TILELAB_KIT the image's kit (/opt/tilelab).
set -u
root="${GRADE_ROOT:-/grade}"
kit="${TILELAB_KIT:-/opt/tilelab}"
course_kit="$root/serverFilesCourse/tilelab"
results="$root/results/results.json"

# not_gradable MESSAGE: the message for the student, and it on stderr for the instructor.
not_gradable() {
  local text
  echo "tilelab grader: $1" >&2
  if declare -F json_string >/dev/null; then text="$(json_string "$1")"
  else text='"the grader is incomplete (grader/platforms/common.sh is missing)"'; fi
  mkdir -p "$root/results"
  printf '{"gradable": false, "score": 0, "message": %s, "tests": []}\n' "$text" >"$results"
  exit 0
}

# shellcheck disable=SC1091
. "$course_kit/grader/platforms/common.sh" \
  || not_gradable "cannot read $course_kit/grader/platforms/common.sh"
# shellcheck disable=SC1091
. "$root/tests/tilelab.conf" || not_gradable "cannot read the question's tests/tilelab.conf"
conf_complete || not_gradable "the question's tests/$GRADE_ERROR"
[ -x "$kit/tilelab" ] || not_gradable "no tilelab kit in $kit: the question's image must be the \
one built from serverFilesCourse/tilelab/Dockerfile"
# The image's kit and the course's must come from the same export, or the image grades with a
# kit (rubric, datasets, grader) other than the one in the course.
cmp -s "$kit/export-id" "$course_kit/export-id" || not_gradable "the grading image was built \
from another export of the kit than serverFilesCourse/tilelab holds: build and push the image again"
work="$(mktemp -d)" || not_gradable "cannot create a temporary folder"
trap 'rm -rf "$work"' EXIT
grade_submission "$kit" "$root/student" "$work" "$root/tests" || not_gradable "$GRADE_ERROR"
mkdir -p "$root/results" \
  && "$kit/tilelab" export prairielearn-results "$GRADE_RESULTS" "$results" 2>"$work/convert.log" \
  || not_gradable "cannot write $results: $(tail -n 3 "$work/convert.log")"
