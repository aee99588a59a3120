#!/usr/bin/env bash
# Renders every deck in Slides/ (and its Chinese translation in
# Slides/zh-Hans/, as NN-Name.zh-Hans.html) to one self-contained HTML page per deck, with
# Marp's own engine, and optionally checks them in a real browser.
#
#   scripts/render-slides.sh            # writes .build/slides/NN-Name.html
#   scripts/render-slides.sh --check    # then opens every slide in headless
#                                       # Chromium at 1280x720, fails if any
#                                       # content leaves its 16:9 frame, a box
#                                       # is clipped inside it, text is under
#                                       # 24 px, code under 20 px or any text
#                                       # under 4.5:1 contrast, and saves a
#                                       # screenshot of each slide that fails
#
# Exits 0 when done (and every slide fits), 1 when a slide does not, and 2,
# with one line saying what is missing, when a tool is not installed.
#
# The decks stay Marp Markdown, which instructors open in their editor (VS
# Code's Marp extension, Marp CLI). The renderer is Marp's engine itself,
# @marp-team/marp-core 3.6, as PyPI's `marpyter` 0.1.0 ships it inside its
# JupyterLab bundle: Marp's CLI comes from npm, which is not reachable here,
# and the alternatives that install offline do not render Marp (see
# docs/instructors.md, "Rendering and checking the slides"). It runs on
# Node.js. scripts/install-tools.sh installs all three tools; print a deck
# to PDF from the page (Ctrl-P / ⌘P).
#
#   scripts/render-slides.sh [--check] --out <dir> <deck.md>...
#                                       # the same for other decks (the
#                                       # slide check's own tests)
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build/slides
check=""
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
if [ "${1:-}" = "--out" ]; then
  [ $# -ge 3 ] || { echo "usage: render-slides.sh [--check] [--out <dir> <deck.md>...]" >&2; exit 64; }
  out=$2
  shift 2
fi
decks=("$@")
# The English decks, then their translations (Slides/zh-Hans/NN-Name.md).
shopt -s nullglob
[ ${#decks[@]} -gt 0 ] || decks=(Slides/*.md Slides/zh-Hans/*.md)
shopt -u nullglob

engine=$(python3 - << 'PY' 2> /dev/null || true
import os, site, sys, sysconfig
for base in (sys.prefix, site.USER_BASE, sysconfig.get_path("data"), "/usr/local", "/usr"):
    path = os.path.join(base, "share/jupyter/labextensions/marpyter/static")
    if os.path.isdir(path):
        print(path)
        break
PY
)
node=$(command -v node || command -v nodejs || true)
[ -x "$node" ] || node=""
if [ -z "$engine" ] || [ -z "$node" ]; then
  echo "render-slides: needs Node.js and Marp's engine (python3 -m pip install --no-deps marpyter==0.1.0); scripts/install-tools.sh installs both" >&2
  exit 2
fi

# `--has-tools`: exit 0 when Node.js, the engine and Chromium are all here
# (the slide check's tests run only then), 2 with what is missing.
if [ "${decks[0]:-}" = "--has-tools" ]; then
  command -v chromium > /dev/null || command -v chromium-browser > /dev/null || command -v google-chrome > /dev/null ||
    { echo "render-slides: needs Chromium (Debian: apt-get install chromium)" >&2; exit 2; }
  exit 0
fi

rm -rf "$out"
"$node" scripts/slides/marp.cjs render "$engine" "$out" "${decks[@]}"
echo "render-slides: open $out/<deck>.html in a browser"

if [ -n "$check" ]; then
  chromium=$(command -v chromium || command -v chromium-browser || command -v google-chrome ||
  { [ -x "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome" ] &&
    echo "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"; } || true)
  [ -x "$chromium" ] || chromium=""
  if [ -z "$chromium" ]; then
    echo "render-slides: --check needs Chromium (Debian: apt-get install chromium)" >&2
    exit 2
  fi
  "$node" scripts/slides/marp.cjs check "$chromium" "$out" "$out"/*.html
fi
