#!/usr/bin/env bash
# The first-Mac checklist: what a course maintainer runs once on a Mac with
# Xcode 26 (and again after a new Xcode), to confirm what a Linux run of
# `workshop verify` cannot show. Run it from a clean clone:
#
#   scripts/first-mac-check.sh              # verify, then the Mac-only checks
#   scripts/first-mac-check.sh --repeat 3   # options after it go to verify
#
# Each step prints one line, ✓ or ✗, and the script exits 1 if any is ✗:
#   1. `swift run workshop verify` ends "N passed, 0 failed" (skips are said,
#      one line each, and are not failures).
#   2. The toolchain's swiftpm-testing-helper, which runs every `swift test`
#      on this Mac, has the same content after verify as before it.
#   3. A race report names the learner's file and line (macOS's
#      ThreadSanitizer writes frames differently from Linux's): chapter 12,
#      solved but for a getter that reads without the lock, in a copy.
#   4. Xcode sees the package as learners do: the `Workshop-Package` scheme
#      tests every chapter's target and ConcurrencyTestKitTests, and not
#      the runner's own WorkshopCoreTests (they are verify's).
# Everything it builds goes to .build/ (Xcode's to .build/xcode); it changes
# nothing else.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 64
failed=0
say() { # say ok|fail text
  if [ "$1" = ok ]; then echo "✓ $2"; else echo "✗ $2"; failed=1; fi
}

if [ "$(uname)" != Darwin ]; then
  echo "first-mac-check: this is the checklist for a Mac; on Linux, swift run workshop verify is the whole check" >&2
  exit 64
fi

# The helper `swift test` runs: <toolchain>/usr/libexec/swift/pm/swiftpm-testing-helper.
resources=$(swiftc -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["paths"]["runtimeResourcePath"])')
helper="$(cd "$resources/../.." && pwd)/libexec/swift/pm/swiftpm-testing-helper"
if [ ! -x "$helper" ]; then
  say fail "SwiftPM's testing helper is at $helper (it is not: is Xcode 26 selected? xcode-select -p)"
  exit 1
fi
before=$(shasum -a 256 "$helper" | cut -d' ' -f1)

# 1. verify
log=.build/first-mac-check-verify.log
mkdir -p .build
swift run workshop verify "$@" 2>&1 | tee "$log"
closing=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1 | sed 's/\x1b\[[0-9;]*m//g')
if echo "$closing" | grep -Eq '^[0-9]+ passed, 0 failed$'; then
  say ok "verify: $closing"
else
  say fail "verify: ${closing:-no closing line} (expected 'N passed, 0 failed')"
fi

# 2. the helper
after=$(shasum -a 256 "$helper" | cut -d' ' -f1)
if [ "$before" = "$after" ]; then
  say ok "the testing helper is untouched: $helper"
else
  say fail "the testing helper changed while verify ran: reinstall Xcode before any other test runs ($helper)"
fi

# 3. a race report with file and line: in a copy of the course under
# .build/, chapter 12 solved but for one of its wrong fixes
# (Mutations/12-DataRaces/lock-writes-only: the getter reads without the lock).
race=.build/first-mac-check-race.log
copy=.build/first-mac-race
rm -rf "$copy" && mkdir -p "$copy" && git archive HEAD | tar -x -C "$copy"
python3 - "$copy" <<'PY'
import os, re, shutil, sys
root = sys.argv[1]
chapter, solutions = root + "/Chapters/12-DataRaces", root + "/Solutions/12-DataRaces"
for name in os.listdir(solutions):
    shutil.copy(os.path.join(solutions, name), os.path.join(chapter, name))
text = open(root + "/Mutations/12-DataRaces/lock-writes-only.mutation").read()
for part in re.split(r"^--- ", text, flags=re.M)[1:]:
    name, body = part.split("\n", 1)
    path = os.path.join(chapter, name.strip())
    source = open(path).read()
    for find, replace in re.findall(r"^<<<<<<< find\n(.*?)^=======\n(.*?)^>>>>>>> replace\n", body, flags=re.M | re.S):
        source = source.replace(find, replace, 1)
    open(path, "w").write(source)
PY
# The runner verify built (.build/debug links to the platform's folder).
workshop="$PWD/.build/debug/workshop"
(cd "$copy" && NO_COLOR=1 "$workshop" check 12) >"$race" 2>&1
place=$(grep -Eo 'it at Chapters/12-DataRaces/[A-Za-z0-9_+-]+\.swift:[0-9]+' "$race" | head -n 1)
if [ -n "$place" ]; then
  say ok "a race report names the learner's line: ${place#it at }"
else
  say fail "no race report names a file and line in Chapters/12-DataRaces (see $race)"
fi

# 4. what Xcode's test navigator lists
tests=.build/xcode/tests.json
if xcodebuild build-for-testing -quiet -scheme Workshop-Package -destination platform=macOS \
  -derivedDataPath .build/xcode >.build/xcode-build.log 2>&1 &&
  xcodebuild test-without-building -scheme Workshop-Package -destination platform=macOS \
    -derivedDataPath .build/xcode -enumerate-tests -test-enumeration-format json \
    -test-enumeration-output-path "$tests" >>.build/xcode-build.log 2>&1; then
  missing=$(python3 - "$tests" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
chapters = json.load(open("curriculum.json"))["chapters"]
wanted = [c["name"] + "Tests" for c in chapters] + ["ConcurrencyTestKitTests"]
print(" ".join([name for name in wanted if name not in text] + (["+WorkshopCoreTests"] if "WorkshopCoreTests" in text else [])))
PY
)
  if [ -z "$missing" ]; then
    say ok "Xcode's Workshop-Package scheme tests every chapter and the kit, not the runner"
  else
    say fail "Xcode's test list: missing or unexpected $missing (see $tests)"
  fi
else
  say fail "xcodebuild could not list the tests (see .build/xcode-build.log); open the package in Xcode: the Test navigator (⌘6) must list every chapter's target and ConcurrencyTestKitTests, not WorkshopCoreTests"
fi

exit $failed
