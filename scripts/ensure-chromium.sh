#!/usr/bin/env bash
# Find a Chromium for the browser tests; install Debian's package only when none is found.
#
# Looks at $CHROMIUM, then `chromium` and `chromium-browser` on PATH. When none exists it runs
# apt-get (as root), waiting for a package lock held by another apt/dpkg process for up to
# $APT_LOCK_WAIT seconds (default 600), and says what it is doing at each step.
set -euo pipefail

say() { echo "browser tests: $*"; }

find_chromium() {
  local candidate
  for candidate in "${CHROMIUM:-}" chromium chromium-browser; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null 2>&1; then
      command -v "$candidate"
      return 0
    fi
  done
  return 1
}

if found=$(find_chromium); then
  say "using Chromium at $found"
  exit 0
fi

if [ "$(id -u)" != 0 ]; then
  say "no Chromium found and installing one needs root: run 'sudo apt-get install chromium', then 'make test' again" >&2
  exit 1
fi

APT_PACKAGE=chromium
. "${BASH_SOURCE[0]%/*}/lib/apt.sh"

say "no Chromium found; installing Debian's chromium package (apt-get update, then apt-get install chromium)"
apt_with_lock_wait update
apt_with_lock_wait install -y chromium
if found=$(find_chromium); then
  say "installed Chromium at $found"
else
  say "apt-get installed chromium but no chromium executable is on PATH" >&2
  exit 1
fi
