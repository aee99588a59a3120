#!/usr/bin/env bash
# Opens class pages (written by `swift run workshop grade` as class.html) in
# headless Chromium, 1400 px wide and at a phone's 390 px, and fails when the page is wider than the
# window, two texts outside the heat map overlap, the heat map does not hold
# one cell per check and submission, a cell has no symbol or no words for a
# screen reader, or the page would fetch anything.
#
#   scripts/check-class-page.sh grades/class.html...
#
# Exits 0 when every page passes, 1 when one does not, and 2, with one line
# saying what is missing, when Node.js or Chromium is not installed
# (scripts/install-tools.sh installs both).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
node=$(command -v node || command -v nodejs || true)
[ -x "$node" ] || node=""
chromium=$(command -v chromium || command -v chromium-browser || command -v google-chrome ||
  { [ -x "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome" ] &&
    echo "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"; } || true)
[ -x "$chromium" ] || chromium=""
if [ -z "$node" ] || [ -z "$chromium" ]; then
  echo "check-class-page: needs Node.js and Chromium (Debian: apt-get install nodejs chromium); scripts/install-tools.sh installs both" >&2
  exit 2
fi
if [ $# -eq 0 ]; then
  echo "usage: scripts/check-class-page.sh <class.html>..." >&2
  exit 64
fi
exec "$node" "$here/slides/classpage.cjs" "$chromium" "$@"
