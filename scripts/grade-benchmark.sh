#!/usr/bin/env bash
# Grades a made-up class of 30 submissions with `workshop grade` and prints
# the figures for docs/instructors.md ("Grading a class"): the whole class, the first submission, and
# each further one. Not a test: numbers depend on the machine.
#
#   scripts/grade-benchmark.sh [--keep <dir>]
#
# The class, as instructors see one (each learner's text is their own: every
# Swift file of a learner carries a comment naming them, so no two learners'
# chapters are the same bytes unless they left a starter untouched):
#   8 solved, 8 untouched starters, 10 half done (3 to 12 chapters solved),
#   1 that does not compile (chapter 04), 1 that hangs (chapter 01 blocks a
#   thread forever), and 2 archives (a .zip of a solved copy, a .tar.gz of
#   a half-done one).
# It runs twice: once with the grader's copies of the course built from
# scratch (cold), once again with them kept (warm).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
keep=""
if [ "${1:-}" = "--keep" ]; then keep=$2; fi
trap '[ -z "$keep" ] && rm -rf "$work"' EXIT
export NO_COLOR=1
class="$work/class"
mkdir -p "$class"

chapters=$(cd "$repo/Chapters" && ls -d [0-9][0-9]-*)
# learner NAME SOLVED_COUNT: a copy of the workshop's chapters, the first
# SOLVED_COUNT chapters solved in the learner's own words.
learner() {
  local name=$1 solved=$2 index=0
  mkdir -p "$class/$name/Chapters"
  for chapter in $chapters; do
    index=$((index + 1))
    if [ "$index" -le "$solved" ]; then
      cp -r "$repo/Solutions/$chapter" "$class/$name/Chapters/$chapter"
      for file in "$class/$name/Chapters/$chapter"/*.swift; do
        printf '\n// Solved by %s.\n' "$name" >> "$file"
      done
    else
      cp -r "$repo/Chapters/$chapter" "$class/$name/Chapters/$chapter"
    fi
  done
}
for i in 1 2 3 4 5 6 7 8; do learner "solved$i" 13; done
for i in 1 2 3 4 5 6 7 8; do learner "starter$i" 0; done
for i in 1 2 3 4 5 6 7 8 9 10; do learner "half$i" $((2 + i)); done
learner broken 13
sed -i 's/func search/func search(/' "$class/broken/Chapters/04-DebouncedSearch/SearchModel.swift"
learner hangs 13
sed -i 's/  func refresh() async throws {/  func refresh() async throws {\n    DispatchSemaphore(value: 0).wait()/' \
  "$class/hangs/Chapters/01-TaskTree/Dashboard.swift"
sed -i '1i import Dispatch' "$class/hangs/Chapters/01-TaskTree/Dashboard.swift"
learner zipped 13
(cd "$class" && zip -qr zipped.zip zipped && rm -rf zipped)
learner tarred 7
(cd "$class" && tar -czf tarred.tar.gz tarred && rm -rf tarred)
count=$(ls "$class" | wc -l)
[ "$count" = 30 ] || { echo "expected 30 submissions, made $count"; exit 1; }

cd "$repo"
swift build --product workshop-instructor > /dev/null
now() { date +%s.%N; }
run() {
  local label=$1
  local start
  start=$(now)
  ./.build/debug/workshop-instructor grade "$class"/* --report-dir "$work/grades-$label" > "$work/$label.txt" 2>&1 || true
  local total
  total=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')
  # The first line printed is the first submission finished.
  local first
  # Never a silent end under `set -e`: a run that reported nothing shows its output.
  first=$( (grep -m1 -E '^  [✓✗] ' "$work/$label.txt" || true) | grep -oE '[0-9]+\.[0-9] s' | head -1 | cut -d' ' -f1 || true)
  local graded
  graded=$(grep -cE '^  [✓✗] ' "$work/$label.txt" || true)
  [ "$graded" = 30 ] || { echo "only $graded submissions reported:"; cat "$work/$label.txt"; exit 1; }
  awk -v label="$label" -v total="$total" -v first="${first:-0}" 'BEGIN {
    printf "| %s | %d s | %.0f s | %.1f s |\n", label, total, first, (total - first) / 29 }'
}
rm -rf .build/workshop-grade
echo "| Run | 30 submissions | First submission | Each further one |"
echo "| --- | --- | --- | --- |"
run cold
run warm
echo
echo "Machine: $(nproc) cores, $(swift --version 2>&1 | head -1), $(command -v bwrap > /dev/null && echo sandboxed || echo 'not sandboxed')"
echo
sed -n '/^Class:/,$p' "$work/warm.txt"
if [ -n "$keep" ]; then mkdir -p "$keep" && cp -r "$work"/* "$keep"/; fi
