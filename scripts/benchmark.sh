#!/usr/bin/env bash
# Measures the learner's feedback loop on this machine and prints a Markdown
# table of medians for the README. Not a test: numbers depend on the machine.
#
#   scripts/benchmark.sh [runs]     (default: 5 warm runs, 3 cold runs)
#
# 1. cold:  a fresh clone, `swift run workshop` until the first progress table
#           (SwiftPM's shared caches in ~/.cache stay warm, as on a learner's
#           machine after their first Swift build)
# 2. edit:  change one line of a chapter, then `swift run workshop check 04`
# 3. warm:  `swift run workshop` again with nothing changed
set -euo pipefail
runs=${1:-5}
cold_runs=$(( runs < 3 ? runs : 3 ))
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export NO_COLOR=1

now() { date +%s.%N; }
median() { sort -n | awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.1f", m }'; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

cold=()
for i in $(seq "$cold_runs"); do
  rm -rf "$work/clone"
  git clone --quiet "$repo" "$work/clone"
  start=$(now)
  (cd "$work/clone" && swift run workshop > "$work/cold.txt" 2>&1)
  cold+=("$(elapsed "$start" "$(now)")")
  grep -q "^Progress:" "$work/cold.txt" || { echo "no progress table in cold run:"; cat "$work/cold.txt"; exit 1; }
done

file="$work/clone/Chapters/04-DebouncedSearch/SearchModel.swift"
edit=()
for i in $(seq "$runs"); do
  # A real edit: a changed statement inside a function body.
  sed -i "s/errorMessage = \"Search failed[0-9]*: /errorMessage = \"Search failed$i: /" "$file"
  grep -q "Search failed$i: " "$file" || { echo "the edit did not apply"; exit 1; }
  start=$(now)
  (cd "$work/clone" && swift run workshop check 04 > "$work/edit.txt" 2>&1) || true
  edit+=("$(elapsed "$start" "$(now)")")
  grep -q "checks pass" "$work/edit.txt" || { echo "no result after edit:"; cat "$work/edit.txt"; exit 1; }
done

warm=()
for i in $(seq "$runs"); do
  start=$(now)
  (cd "$work/clone" && swift run workshop > "$work/warm.txt" 2>&1)
  warm+=("$(elapsed "$start" "$(now)")")
done

echo "| Step | Median (s) | Runs |"
echo "| --- | --- | --- |"
echo "| Cold clone → first progress table | $(printf '%s\n' "${cold[@]}" | median) | ${#cold[@]} |"
echo "| Edit one chapter file → \`workshop check 04\` result | $(printf '%s\n' "${edit[@]}" | median) | ${#edit[@]} |"
echo "| Warm \`swift run workshop\` (all chapters) | $(printf '%s\n' "${warm[@]}" | median) | ${#warm[@]} |"
echo
echo "Machine: $(nproc) cores, $(swift --version 2>&1 | head -1)"
