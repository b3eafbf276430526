#!/usr/bin/env bash
# Compares two gradings of the same class (e.g. one on a GPU, one on the CPU backend): the
# correctness points (every gradebook column but total, max, performance, leaderboard rank)
# student by student, and the order the performance points put the students in. Prints a
# table; exit status 0 when every student's correctness points are the same in both and no two
# students' performance points are ordered the other way round (by more than half a point each).
#   tools/compare-grades.sh [--most-above TOL] GRADEBOOK_A GRADEBOOK_B [LABEL_A LABEL_B]
# --most-above TOL: also fail when a student's performance points in B are more than TOL above
# A's (B the CPU backend, A a GPU: the CPU backend never gives more than a GPU, docs/grader.md).
set -u
most_above=""
if [ "${1:-}" = --most-above ]; then most_above="${2:-}"; shift 2; fi
if [ $# -lt 2 ] || [ "${1:-}" = --help ]; then
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
  [ "${1:-}" = --help ]; exit $?
fi
a="$1" b="$2" la="${3:-A}" lb="${4:-B}"
for f in "$a" "$b"; do [ -r "$f" ] || { echo "compare-grades: cannot read $f" >&2; exit 2; }; done
# student<TAB>correctness points<TAB>performance points, one line per student
# (RFC 4180 cells: an id may be quoted and hold commas; ids are shown as the gradebook has them)
points() {
  awk '{ sub(/\r$/, ""); n = 0; rest = $0
         while (length(rest) > 0 || n == 0) {
           if (substr(rest, 1, 1) == "\"") {
             cell = ""; rest = substr(rest, 2)
             while (1) { q = index(rest, "\""); cell = cell substr(rest, 1, q - 1); rest = substr(rest, q + 1)
                         if (substr(rest, 1, 1) == "\"") { cell = cell "\""; rest = substr(rest, 2) } else break }
             cut = index(rest, ","); rest = cut ? substr(rest, cut + 1) : ""
           } else {
             cut = index(rest, ","); cell = cut ? substr(rest, 1, cut - 1) : rest
             rest = cut ? substr(rest, cut + 1) : ""
           }
           f[++n] = cell
           if (!cut) break
         }
         if (NR == 1) { for (i = 1; i <= n; i++) name[i] = f[i]; next }
         c = 0; p = 0
         for (i = 2; i <= n; i++)
           if (name[i] == "performance") p = f[i]
           else if (name[i] != "total" && name[i] != "max" && name[i] != "leaderboard rank") c += f[i]
         gsub(/\t/, " ", f[1]); printf "%s\t%.2f\t%.2f\n", f[1], c, p }' "$1" | sort
}
join -t $'\t' -a 1 -a 2 -e missing -o 0,1.2,1.3,2.2,2.3 <(points "$a") <(points "$b") | awk -F'\t' -v la="$la" -v lb="$lb" -v most="$most_above" '
  BEGIN { printf "%-20s %12s %12s %6s %10s %10s %8s\n", "student", "correct " la, "correct " lb, "same", "perf " la, "perf " lb, "perf diff" }
  { same = $2 == $4 ? "yes" : "NO"; if (same == "NO") differ++
    diff = ($3 == "missing" || $5 == "missing") ? "-" : sprintf("%+.2f", $5 - $3)
    printf "%-20s %12s %12s %6s %10s %10s %8s\n", $1, $2, $4, same, $3, $5, diff
    if (most != "" && diff != "-" && $5 - $3 > most + 0) {
      printf "%s gives %s %.2f performance points more than %s (at most %s)\n", lb, $1, $5 - $3, la, most
      above++ } }
  { n++; who[n] = $1; pa[n] = $3; pb[n] = $5 }
  END { printf "%d student(s), %d with different correctness points\n", NR, differ
        # Performance order: a pair is discordant when one grading puts x ahead of y by more
        # than half a point and the other puts y ahead of x by more than half a point.
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) {
          if (pa[i] == "missing" || pb[i] == "missing" || pa[j] == "missing" || pb[j] == "missing") continue
          da = pa[i] - pa[j]; db = pb[i] - pb[j]; pairs++
          if ((da > 0.5 && db < -0.5) || (da < -0.5 && db > 0.5)) {
            printf "performance order differs: %s puts %s %s %s, %s the other way round\n", la, who[i], (pa[i] > pa[j] ? "ahead of" : "behind"), who[j], lb
            discord++ } }
        printf "performance points: %d pair(s) of students, %d ranked the other way round\n", pairs, discord
        if (most != "") printf "performance points: %d student(s) more than %s above in %s\n", above, most, lb
        exit differ > 0 || discord > 0 || above > 0 }'
