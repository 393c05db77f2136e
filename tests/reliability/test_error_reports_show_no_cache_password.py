"""Django's DEBUG page shows the settings, hiding those named like secrets: the cache's
LOCATION, `redis://:password@host/0` from CACHE_URL, was shown as written
(`incidentlib.error_reports`)."""

from __future__ import annotations

import secrets

from django.test import RequestFactory
from django.views.debug import get_default_exception_reporter_filter, technical_500_response

# Made at run time: the DEBUG page quotes this file's source lines in its traceback.
PASSWORD, OTHER = secrets.token_hex(8), secrets.token_hex(8)
LOCATION = f"redis://:{PASSWORD}@127.0.0.1:6379/0"


def caches(location: str, server: str) -> dict:
    return {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": location,
            "OPTIONS": {"servers": [server]},
        }
    }


def test_the_safe_settings_hold_no_url_credential(settings):
    settings.CACHES = caches(LOCATION, f"{LOCATION}?password={OTHER}&db=2")
    settings.SOME_SERVICE_URL = f"https://bot:{OTHER}@example.org/hook?db=1"
    safe = get_default_exception_reporter_filter().get_safe_settings()
    assert safe["CACHES"]["default"]["LOCATION"] == "redis://127.0.0.1:6379/0"
    assert safe["CACHES"]["default"]["OPTIONS"]["servers"] == ["redis://127.0.0.1:6379/0?db=2"]
    assert safe["SOME_SERVICE_URL"] == "https://example.org/hook?db=1"
    # What Django hid by name stays hidden; a URL without credentials stays as written.
    assert safe["SECRET_KEY"] == "********************"
    plain = caches("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0?db=2")
    settings.CACHES = plain
    assert get_default_exception_reporter_filter().get_safe_settings()["CACHES"] == plain


def test_the_debug_page_shows_the_cache_without_its_password(settings):
    settings.CACHES = caches(LOCATION, f"{LOCATION}?password={OTHER}&db=2")
    request = RequestFactory().get("/cases/")
    try:
        raise RuntimeError("boom")
    except RuntimeError as exc:
        page = technical_500_response(request, type(exc), exc, exc.__traceback__).content.decode()
    assert "redis://127.0.0.1:6379/0" in page
    assert PASSWORD not in page and OTHER not in page
