"""Error reports (Django's DEBUG page, mailed 500s) without the credentials URL settings carry.

Django hides a setting by its name (`PASSWORD`, `SECRET_KEY`, `API_KEY`...), but a cache's
`LOCATION` (`redis://:password@host:6379/0`, read from `CACHE_URL`) has an innocent name and
was shown as written. `CredentialFreeReporterFilter` (`DEFAULT_EXCEPTION_REPORTER_FILTER`)
also takes the user name, the password and secret query options out of every URL in a
string setting, at any depth (`incidents.cache_identity.bare_location`).
"""

from __future__ import annotations

from typing import Any

from django.views.debug import SafeExceptionReporterFilter

from incidents.cache_identity import bare_location


class CredentialFreeReporterFilter(SafeExceptionReporterFilter):
    """Django's filter, and every URL in a string setting without its credentials."""

    def cleanse_setting(self, key: Any, value: Any) -> Any:
        value = super().cleanse_setting(key, value)
        if isinstance(value, str) and "://" in value:
            return bare_location(value)
        return value
