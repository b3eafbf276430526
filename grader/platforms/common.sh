# shellcheck shell=bash
# Sourced by the Gradescope and PrairieLearn entry scripts: grading one submission with the kit,
# as a class of one, on the CPU backend (those platforms' containers have no GPU).

# json_string TEXT: TEXT as a JSON string literal. Control characters other than tab and newline,
# and every byte outside ASCII, are dropped, so the literal is valid whatever TEXT held.
json_string() {
  local s
  s="$(printf '%s' "$1" | LC_ALL=C tr -d '\000-\010\013-\037\177-\377')"
  s="${s//\\/\\\\}"
  s="${s//\"/\\\"}"
  s="${s//$'\t'/\\t}"
  s="${s//$'\n'/\\n}"
  printf '"%s"' "$s"
}

# conf_complete: true when the sourced tilelab.conf set what grade_submission reads; otherwise
# false with the reason in GRADE_ERROR.
conf_complete() {
  GRADE_ERROR=""
  [ -n "${TILELAB_LAB:-}" ] || GRADE_ERROR="tilelab.conf names no lab (TILELAB_LAB)"
  [ -n "${TILELAB_TIMEOUT:-}" ] || GRADE_ERROR="tilelab.conf gives no time limit (TILELAB_TIMEOUT)"
  [ -z "$GRADE_ERROR" ]
}

# grade_submission KIT FILES WORK CONF_DIR: grades a copy of the folder FILES (never changed)
# with the built kit in KIT, as tilelab.conf (sourced before) says; its hidden datasets are
# CONF_DIR/$TILELAB_HIDDEN. GRADE_METADATA, when set, is the platform's own record of the
# submission (Gradescope's submission_metadata.json, outside FILES): the time submitted comes
# from it, never from FILES. Returns 0 with the grader's Gradescope results in GRADE_RESULTS, or 1
# with the reason in GRADE_ERROR. The grader's own output goes to stdout, for the instructor.
grade_submission() {
  local kit="$1" files="$2" work="$3" conf_dir="$4" args
  GRADE_RESULTS="" GRADE_ERROR=""
  mkdir -p "$work/class/submission" || { GRADE_ERROR="cannot create $work/class"; return 1; }
  # -P: a link is copied as a link, which the grader then refuses (a submission is the student's
  # own files), rather than followed to a file of the grading machine.
  if ! cp -R -P "$files/." "$work/class/submission/" 2>"$work/copy.log"; then
    GRADE_ERROR="cannot copy the submission: $(tail -n 3 "$work/copy.log")"
    return 1
  fi
  # A described lab is a folder of the kit's (described/NAME); a matrix lab, its id.
  local lab="$TILELAB_LAB"
  [ -e "$kit/$lab" ] && lab="$kit/$lab"
  args=(grade "$work/class" --lab "$lab" --backend cpu --out "$work/out"
        --timeout "$TILELAB_TIMEOUT" --jobs 1 --quiet)
  [ -z "${TILELAB_HIDDEN:-}" ] || args+=(--hidden "$conf_dir/$TILELAB_HIDDEN")
  [ "${TILELAB_SANDBOX:-1}" != 0 ] || args+=(--no-sandbox)
  [ -z "${GRADE_METADATA:-}" ] || args+=(--submission-metadata "$GRADE_METADATA")
  "$kit/tilelab" "${args[@]}" >"$work/grade.log" 2>&1
  local rc=$?
  cat "$work/grade.log"
  if [ "$rc" != 0 ]; then
    GRADE_ERROR="the grader stopped (exit status $rc): $(tail -n 5 "$work/grade.log")"
    return 1
  fi
  GRADE_RESULTS="$work/out/results/submission/results.json"
  [ -s "$GRADE_RESULTS" ] || { GRADE_ERROR="the grader wrote no results.json"; return 1; }
}
