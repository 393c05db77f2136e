#!/usr/bin/env bash
# Find wrk, the HTTP load generator of the load test and `make bench`; install Debian's
# package only when it is missing (as root, waiting for a held package lock like the browser).
set -euo pipefail

say() { echo "load tests: $*"; }

if found=$(command -v wrk); then
  say "using wrk at $found"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  say "wrk is missing and installing it needs root: run 'sudo apt-get install wrk', then 'make test' again" >&2
  exit 1
fi

APT_PACKAGE=wrk
. "${BASH_SOURCE[0]%/*}/lib/apt.sh"

say "wrk is missing; installing Debian's wrk package (apt-get update, then apt-get install wrk)"
apt_with_lock_wait update
apt_with_lock_wait install -y wrk
say "installed wrk at $(command -v wrk)"
