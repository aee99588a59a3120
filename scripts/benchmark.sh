#!/usr/bin/env bash
# Measures the learner's feedback loop on this machine and prints a Markdown
# table of medians for the README. Not a test: numbers depend on the machine.
#
#   scripts/benchmark.sh [runs]     (default: 5 warm runs, 3 cold runs)
#
# 1. cold:  a fresh clone, `swift run workshop` until the first progress table
#           (SwiftPM's shared caches in ~/.cache stay warm, as on a learner's
#           machine after their first Swift build)
# 2. watch: `swift run workshop watch 04` running; save a one-line change to
#           a function body of chapter 04; time until its result is printed
# 3. edit:  change one line of a chapter, then `swift run workshop check 04`
# 4. warm:  `swift run workshop` again with nothing changed
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
edits=0
# edit_and_check LABEL ENV...: one timed edit-and-check per run, in the environment given.
edit_and_check() {
  local times=()
  for i in $(seq "$runs"); do
    # A real edit: a changed statement inside a function body.
    edits=$(date +%s%N)
    sed -i "s/errorMessage = \"Search failed[0-9]*: /errorMessage = \"Search failed$edits: /" "$file"
    grep -q "Search failed$edits: " "$file" || { echo "the edit did not apply"; exit 1; }
    start=$(now)
    (cd "$work/clone" && env "$@" swift run workshop check 04 > "$work/edit.txt" 2>&1) || true
    times+=("$(elapsed "$start" "$(now)")")
    grep -q "checks pass" "$work/edit.txt" || { echo "no result after edit:"; cat "$work/edit.txt"; exit 1; }
  done
  printf '%s\n' "${times[@]}" | median
}

# watch_saves ENV...: `workshop watch 04` running; each save of a one-line
# body change, timed until the watcher has printed its result.
watch_saves() {
  local times=() out="$work/watch.txt"
  : > "$out"
  (cd "$work/clone" && exec env "$@" swift run workshop watch 04 > "$out" 2>&1) &
  local watcher=$!
  results() { grep -c "for saves" "$out" || true; }
  # The first grading (every chapter) ends before the first save.
  for _ in $(seq 600); do [ "$(results)" -ge 1 ] && break; sleep 0.1; done
  [ "$(results)" -ge 1 ] || { echo "watch printed no result:"; cat "$out"; kill $watcher; exit 1; }
  for i in $(seq "$runs"); do
    local before; before=$(results)
    edits=$(date +%s%N)
    start=$(now)
    sed -i "s/errorMessage = \"Search failed[0-9]*: /errorMessage = \"Search failed$edits: /" "$file"
    for _ in $(seq 3000); do [ "$(results)" -gt "$before" ] && break; sleep 0.01; done
    [ "$(results)" -gt "$before" ] || { echo "no result after a save:"; cat "$out"; kill $watcher; exit 1; }
    times+=("$(elapsed "$start" "$(now)")")
    sleep 0.5
  done
  kill -INT $watcher 2> /dev/null || true
  wait $watcher 2> /dev/null || true
  printf '%s\n' "${times[@]}" | median
}

# warm ENV...: the full progress table with nothing changed.
warm() {
  local times=()
  for _ in $(seq "$runs"); do
    start=$(now)
    (cd "$work/clone" && env "$@" swift run workshop > "$work/warm.txt" 2>&1)
    times+=("$(elapsed "$start" "$(now)")")
  done
  printf '%s\n' "${times[@]}" | median
}

if command -v bwrap > /dev/null; then sandbox="sandboxed"; else sandbox="not sandboxed: no bubblewrap"; fi
watch_sandboxed=$(watch_saves WORKSHOP_BENCHMARK=1)
watch_plain=$(watch_saves WORKSHOP_NO_SANDBOX=1)
edit_sandboxed=$(edit_and_check WORKSHOP_BENCHMARK=1)
warm_sandboxed=$(warm WORKSHOP_BENCHMARK=1)
edit_plain=$(edit_and_check WORKSHOP_NO_SANDBOX=1)
warm_plain=$(warm WORKSHOP_NO_SANDBOX=1)

echo "| Step | Median (s) | Runs |"
echo "| --- | --- | --- |"
echo "| Cold clone → first progress table | $(printf '%s\n' "${cold[@]}" | median) | ${#cold[@]} |"
echo "| Save a one-line change → \`workshop watch 04\` result ($sandbox) | $watch_sandboxed | $runs |"
echo "| The same, \`WORKSHOP_NO_SANDBOX=1\` | $watch_plain | $runs |"
echo "| Edit one chapter file → \`workshop check 04\` result ($sandbox) | $edit_sandboxed | $runs |"
echo "| The same, \`WORKSHOP_NO_SANDBOX=1\` | $edit_plain | $runs |"
echo "| Warm \`swift run workshop\` (all chapters, $sandbox) | $warm_sandboxed | $runs |"
echo "| The same, \`WORKSHOP_NO_SANDBOX=1\` | $warm_plain | $runs |"
echo
echo "Machine: $(nproc) cores, $(swift --version 2>&1 | head -1)"
