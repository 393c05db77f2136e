# Shared by the scripts that install a Debian package only when it is missing.
# apt_with_lock_wait ARGS...: apt-get ARGS, retried while another apt/dpkg holds the package
# lock, for up to $APT_LOCK_WAIT seconds (default 600); the caller defines say().
APT_LOCK_WAIT=${APT_LOCK_WAIT:-600}
APT_RETRY_EVERY=${APT_RETRY_EVERY:-10}

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
      say "Let it finish (see: ps aux | grep -E 'apt|dpkg'), or run 'apt-get install ${APT_PACKAGE:-the package}' yourself, then 'make test' again." >&2
      return 1
    fi
    say "another apt-get or dpkg holds the package lock; waiting (${waited}s of ${APT_LOCK_WAIT}s)..."
    sleep "$APT_RETRY_EVERY"
    waited=$((waited + (APT_RETRY_EVERY > 0 ? APT_RETRY_EVERY : 1)))
  done
}

