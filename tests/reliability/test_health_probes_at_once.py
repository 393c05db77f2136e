"""Two `/healthz` probes at once each read back their own value: they wrote one key, and the
probe whose value the other overwrote answered 503 (the bench's warm-up sends two at once)."""

from __future__ import annotations

import threading

from django.core.cache import caches

from incidentlib import health


def test_a_probe_between_anothers_write_and_read_does_not_fail_it(settings):
    # A cache both threads share without a database connection of their own (as Redis).
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    backend = caches["default"]
    original_set = backend.set
    other: list[str] = []

    def set_then_probe_elsewhere(key, value, *args, **kwargs):
        original_set(key, value, *args, **kwargs)
        if not other:  # once: the other probe, from another thread, runs before this one reads
            other.append("running")
            probe = threading.Thread(target=lambda: other.append(health.cache_status()))
            probe.start()
            probe.join()

    backend.set = set_then_probe_elsewhere  # type: ignore[method-assign]
    try:
        assert health.cache_status() == health.OK
    finally:
        del backend.set
    assert other == ["running", health.OK]
