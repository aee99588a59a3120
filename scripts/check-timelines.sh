#!/usr/bin/env bash
# Opens timeline pages (written by `swift run workshop check <chapter>
# --timeline`) in headless Chromium and fails when a picture is not drawn,
# a text leaves it, a label reaches past the lanes it joins, or two texts
# overlap.
#
#   scripts/check-timelines.sh .workshop/timelines/*.html
#
# Exits 0 when every picture passes, 1 when one does not, and 2, with one
# line saying what is missing, when Node.js or Chromium is not installed
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
  echo "check-timelines: needs Node.js and Chromium (Debian: apt-get install nodejs chromium); scripts/install-tools.sh installs both" >&2
  exit 2
fi
if [ $# -eq 0 ]; then
  echo "usage: scripts/check-timelines.sh <page.html>..." >&2
  exit 64
fi
exec "$node" "$here/slides/timelines.cjs" "$chromium" "$@"
