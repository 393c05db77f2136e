#!/usr/bin/env bash
# Find a Chromium for the browser tests; install Debian's package only when none is found.
#
# Looks at $CHROMIUM, then `chromium` and `chromium-browser` on PATH. When none exists it runs
# apt-get (as root), waiting for a package lock held by another apt/dpkg process for up to
# $APT_LOCK_WAIT seconds (default 600), and says what it is doing at each step.
set -euo pipefail

APT_LOCK_WAIT=${APT_LOCK_WAIT:-600}
APT_RETRY_EVERY=${APT_RETRY_EVERY:-10}

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

# apt-get, retried while another process holds the package lock (dpkg's or the lists').
apt_with_lock_wait() {
  local waited=0 log
  log=$(mktemp)
  while true; do
    if DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout="$APT_RETRY_EVERY" "$@" >"$log" 2>&1; then
      rm -f "$log"
      return 0
    fi
    if ! grep -qiE "could not get lock|unable to acquire the dpkg|is another process using it" "$log"; then
      cat "$log" >&2
      rm -f "$log"
      say "apt-get $* failed (output above)" >&2
      return 1
    fi
    if [ "$waited" -ge "$APT_LOCK_WAIT" ]; then
      rm -f "$log"
      say "gave up after ${waited}s: another apt-get or dpkg still holds the package lock." >&2
      say "Let it finish (see: ps aux | grep -E 'apt|dpkg'), or run 'apt-get install chromium' yourself, then 'make test' again." >&2
      return 1
    fi
    say "another apt-get or dpkg holds the package lock; waiting (${waited}s of ${APT_LOCK_WAIT}s)..."
    sleep "$APT_RETRY_EVERY"
    waited=$((waited + (APT_RETRY_EVERY > 0 ? APT_RETRY_EVERY : 1)))
  done
}

say "no Chromium found; installing Debian's chromium package (apt-get update, then apt-get install chromium)"
apt_with_lock_wait update
apt_with_lock_wait install -y chromium
if found=$(find_chromium); then
  say "installed Chromium at $found"
else
  say "apt-get installed chromium but no chromium executable is on PATH" >&2
  exit 1
fi
