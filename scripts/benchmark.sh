#!/usr/bin/env bash
# Measures the learner's feedback loop on this machine, each step side by
# side with a reference measured in the same run, and prints a Markdown
# table for docs/maintainers.md ("Feedback speed"). Not a test: times
# depend on the machine; the ratios are what to compare between machines
# and commits.
#
#   scripts/benchmark.sh [runs]     (default: 5 runs of each warm step, 1 cold)
#
# Steps, and the reference each is divided by:
# 1. cold:  a fresh clone, `swift run workshop` until the first progress
#           table; reference: `swift build --build-tests` of another fresh
#           clone of the same package (SwiftPM's shared caches in ~/.cache
#           stay warm for both, as on a learner's machine after their first
#           Swift build)
# 2. warm:  `swift run workshop` again with nothing changed; reference: a
#           no-op `swift build` of the same clone
# 3. edit:  a one-line change to a function body of chapter 04, then
#           `swift run workshop check 04`; reference: the same kind of edit
#           in a one-exercise package, then `swift test`
# 4. watch: `swift run workshop watch 04` running; the same save, timed
#           until its result is printed; same reference as 3
set -euo pipefail
runs=${1:-5}
cold_runs=${COLD_RUNS:-1}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export NO_COLOR=1

now() { date +%s.%N; }
median() { sort -n | awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.2f", m }'; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f×", a / b }'; }

# 1. Cold: the reference build and the workshop's first table, each from a fresh clone.
cold=()
cold_reference=()
for _ in $(seq "$cold_runs"); do
  rm -rf "$work/reference"
  git clone --quiet "$repo" "$work/reference"
  start=$(now)
  (cd "$work/reference" && swift build --build-tests > "$work/reference.txt" 2>&1)
  cold_reference+=("$(elapsed "$start" "$(now)")")
  rm -rf "$work/reference" "$work/clone"
  git clone --quiet "$repo" "$work/clone"
  start=$(now)
  # In English whatever the machine's locale (the checks below read its words);
  # the clone remembers it for the runs after this one.
  (cd "$work/clone" && swift run workshop --lang en > "$work/cold.txt" 2>&1)
  cold+=("$(elapsed "$start" "$(now)")")
  grep -q "^Progress:" "$work/cold.txt" || { echo "no progress table in cold run:"; cat "$work/cold.txt"; exit 1; }
done

# The one-exercise package: one small async function and its checks.
anchor="$work/anchor"
mkdir -p "$anchor/Sources/Exercise" "$anchor/Tests/ExerciseTests"
cat > "$anchor/Package.swift" << 'SWIFT'
// swift-tools-version: 6.2
import PackageDescription

let package = Package(
  name: "Exercise", platforms: [.macOS(.v15)],
  targets: [.target(name: "Exercise"), .testTarget(name: "ExerciseTests", dependencies: ["Exercise"])])
SWIFT
cat > "$anchor/Sources/Exercise/Exercise.swift" << 'SWIFT'
public func search(_ query: String, in items: [String]) async -> [String] {
  let found = items.filter { $0.contains(query) }  // edit: 0
  return found.sorted()
}
SWIFT
cat > "$anchor/Tests/ExerciseTests/ExerciseTests.swift" << 'SWIFT'
import Exercise
import Testing

@Test func findsMatches() async { #expect(await search("a", in: ["ab", "b", "ca"]) == ["ab", "ca"]) }
@Test func findsNothing() async { #expect(await search("z", in: ["ab"]).isEmpty) }
@Test func sortsResults() async { #expect(await search("", in: ["b", "a"]) == ["a", "b"]) }
SWIFT
(cd "$anchor" && swift build --build-tests > /dev/null 2>&1 && swift test > /dev/null 2>&1)
anchor_times=()
for i in $(seq "$runs"); do
  sed -i "s|// edit: [0-9]*|// edit: $i|; s|filter { \$0.contains(query) }|filter { \$0.contains(query) \&\& true }|" \
    "$anchor/Sources/Exercise/Exercise.swift"
  start=$(now)
  (cd "$anchor" && swift test > "$work/anchor.txt" 2>&1)
  anchor_times+=("$(elapsed "$start" "$(now)")")
  grep -q "passed" "$work/anchor.txt" || { echo "the one-exercise package failed:"; cat "$work/anchor.txt"; exit 1; }
  sed -i "s| && true }| }|" "$anchor/Sources/Exercise/Exercise.swift"
done
anchor_median=$(printf '%s\n' "${anchor_times[@]}" | median)

file="$work/clone/Chapters/04-DebouncedSearch/SearchModel.swift"
edits=0
# edit_and_check ENV...: one timed edit-and-check per run, in the environment given.
edit_and_check() {
  local times=()
  for _ in $(seq "$runs"); do
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
  for _ in $(seq "$runs"); do
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

# warm ENV...: the full progress table with nothing changed, and the no-op
# `swift build` it is compared with, alternately.
warm_times=()
noop_times=()
(cd "$work/clone" && swift run workshop > /dev/null 2>&1 && swift build > /dev/null 2>&1)
for _ in $(seq "$runs"); do
  start=$(now)
  (cd "$work/clone" && swift run workshop > "$work/warm.txt" 2>&1)
  warm_times+=("$(elapsed "$start" "$(now)")")
  start=$(now)
  (cd "$work/clone" && swift build > /dev/null 2>&1)
  noop_times+=("$(elapsed "$start" "$(now)")")
done
warm_median=$(printf '%s\n' "${warm_times[@]}" | median)
noop_median=$(printf '%s\n' "${noop_times[@]}" | median)

if command -v bwrap > /dev/null; then sandbox="sandboxed"; else sandbox="not sandboxed: no bubblewrap"; fi
watch_sandboxed=$(watch_saves WORKSHOP_BENCHMARK=1)
watch_plain=$(watch_saves WORKSHOP_NO_SANDBOX=1)
edit_sandboxed=$(edit_and_check WORKSHOP_BENCHMARK=1)
edit_plain=$(edit_and_check WORKSHOP_NO_SANDBOX=1)
cold_median=$(printf '%s\n' "${cold[@]}" | median)
cold_reference_median=$(printf '%s\n' "${cold_reference[@]}" | median)

echo "| Step | Workshop (s) | Reference | Reference (s) | Ratio | Target | Runs |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
echo "| Fresh clone → first progress table ($sandbox) | $cold_median | \`swift build --build-tests\`, fresh clone | $cold_reference_median | $(ratio "$cold_median" "$cold_reference_median") | 1.2× | ${#cold[@]} |"
echo "| Warm \`swift run workshop\`, nothing changed ($sandbox) | $warm_median | no-op \`swift build\` | $noop_median | $(ratio "$warm_median" "$noop_median") | 3× | $runs |"
echo "| Edit chapter 04 → \`workshop check 04\` result ($sandbox) | $edit_sandboxed | one-exercise package: edit → \`swift test\` | $anchor_median | $(ratio "$edit_sandboxed" "$anchor_median") | 2× | $runs |"
echo "| The same, \`WORKSHOP_NO_SANDBOX=1\` | $edit_plain | the same | $anchor_median | $(ratio "$edit_plain" "$anchor_median") | 2× | $runs |"
echo "| Save in chapter 04 → \`workshop watch 04\` result ($sandbox) | $watch_sandboxed | the same | $anchor_median | $(ratio "$watch_sandboxed" "$anchor_median") | 1× | $runs |"
echo "| The same, \`WORKSHOP_NO_SANDBOX=1\` | $watch_plain | the same | $anchor_median | $(ratio "$watch_plain" "$anchor_median") | 1× | $runs |"
echo
echo "Machine: $(nproc) cores, $(swift --version 2>&1 | head -1)"
