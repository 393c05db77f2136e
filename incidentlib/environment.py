"""Reading settings from the environment, each value checked before the site starts.

django-environ (already a dependency) reads `.env` and turns database and cache URLs into
Django's dictionaries; what it does not do is refuse a bad value in words an operator can
act on: `DEBUG=maybe` reads as false, `DB_POOL_MAX_SIZE=abc` fails as a bare `int()` error
and `DATABASE_URL=il_walk` as a `KeyError` later on. `EnvironmentReader` wraps it with the
same method names as `environ.Env`, checks every value against what it accepts, keeps
going with the default, and `raise_problems()` then raises one `ImproperlyConfigured`
naming every bad variable, its value and what it accepts.
"""

from __future__ import annotations

import builtins
import re
import warnings
from collections.abc import Collection
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import environ
from django.core.exceptions import ImproperlyConfigured

# The reader's methods are named as environ.Env's (str, int, list...), which hides the builtins
# inside the class.
Text = str
TRUE_WORDS = ("true", "1", "yes", "on")
FALSE_WORDS = ("false", "0", "no", "off")
# What DRF's throttles understand: requests per second, minute, hour or day (only the
# period's first letter counts to DRF, which would take "10/month" for minutes).
RATE = re.compile(r"(?P<count>[0-9]+)/(?P<period>s|sec|second|m|min|minute|h|hour|d|day)s?", re.IGNORECASE)
DATABASE_ENGINES = {
    "django.db.backends.sqlite3": "SQLite",
    "django.db.backends.postgresql": "PostgreSQL",
}
DATABASE_URL_FORMS = "postgres://user:password@host:5432/name or sqlite:////absolute/path/file.sqlite3"
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
CACHE_URL_FORMS = "redis://host:6379/0 (rediss:// with TLS) or dbcache://table_name"
_ACCEPTED_CACHE_BACKENDS = (
    "django.core.cache.backends.redis.RedisCache",
    "django.core.cache.backends.db.DatabaseCache",
    "django.core.cache.backends.locmem.LocMemCache",
    "django.core.cache.backends.dummy.DummyCache",
)


def shown(value: str) -> str:
    """`value` as a problem may quote it: the password of a URL replaced by ***."""
    try:
        parts = urlsplit(value)
        password = parts.password
    except ValueError:
        return repr(value)
    if not password:
        return repr(value)
    userinfo, _, host = parts.netloc.rpartition("@")
    user = userinfo.split(":", 1)[0]
    return repr(urlunsplit(parts._replace(netloc=f"{user}:***@{host}")))


class EnvironmentReader:
    """Typed, checked reads of environment variables (after `.env`, which never overrides
    the environment). A bad value is recorded as a problem and the default returned, so
    that the rest of the settings can still be read and every problem reported at once.
    An empty value (`NAME=`, as a compose file leaves it) counts as unset, except where a
    method says otherwise."""

    def __init__(self) -> None:
        self._env = environ.Env()
        self.problems: list[Text] = []

    @property
    def ENVIRON(self) -> Any:  # noqa: N802 - the name environ.Env gives it
        return self._env.ENVIRON

    def read_env_file(self, default_path: Path) -> None:
        """Read `ENV_FILE` (or `default_path`) into the environment, without overriding it."""
        environ.Env.read_env(self.str("ENV_FILE", default=str(default_path)), overwrite=False)

    def problem(self, message: Text) -> None:
        """Record a problem found by a check across several values."""
        self.problems.append(message)

    def raise_problems(self) -> None:
        """Raise one ImproperlyConfigured listing every problem recorded, if any."""
        if self.problems:
            listed = "\n".join(f"  - {problem}" for problem in self.problems)
            raise ImproperlyConfigured(
                f"{len(self.problems)} setting(s) in the environment or .env cannot be used "
                f"(set them in .env or the environment of every process):\n{listed}"
            )

    def _raw(self, name: Text) -> Text | None:
        value = self.ENVIRON.get(name)
        return None if value is None else value.strip()

    def _bad(self, name: Text, value: Text, accepted: Text) -> None:
        self.problems.append(f"{name}={shown(value)} is not accepted: {accepted}")

    def str(self, name: Text, default: Text = "") -> Text:
        """The value as written (an empty value stays empty), or `default` when unset."""
        value = self.ENVIRON.get(name)
        return default if value is None else value

    def bool(self, name: Text, default: bool = False) -> builtins.bool:
        """true/1/yes/on or false/0/no/off, in any case."""
        value = self._raw(name)
        if not value:
            return default
        word = value.lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
        self._bad(name, value, f"expected {'/'.join(TRUE_WORDS)} or {'/'.join(FALSE_WORDS)} (in any case)")
        return default

    def int(
        self,
        name: Text,
        default: builtins.int,
        *,
        minimum: builtins.int = 0,
        maximum: builtins.int | None = None,
    ) -> builtins.int:
        """A whole number from `minimum` to `maximum` (no limit when None)."""
        value = self._raw(name)
        if not value:
            return default
        within = f"a whole number from {minimum}" + (f" to {maximum}" if maximum is not None else " up")
        try:
            number = builtins.int(value)
        except ValueError:
            self._bad(name, value, f"expected {within}")
            return default
        if number < minimum or (maximum is not None and number > maximum):
            self._bad(name, value, f"expected {within}")
            return default
        return number

    def float(self, name: Text, default: builtins.float, *, above: builtins.float = 0.0) -> builtins.float:
        """A number greater than `above`."""
        value = self._raw(name)
        if not value:
            return default
        try:
            number = builtins.float(value)
        except ValueError:
            number = above
        if not number > above:
            self._bad(name, value, f"expected a number greater than {above:g}")
            return default
        return number

    def list(self, name: Text, default: builtins.list[Text]) -> builtins.list[Text]:
        """Comma-separated values, blanks dropped; set but empty is an empty list."""
        value = self.ENVIRON.get(name)
        if value is None:
            return default
        return [item.strip() for item in value.split(",") if item.strip()]

    def hosts(self, name: Text, default: builtins.list[Text]) -> builtins.list[Text]:
        """Comma-separated host names (`.example.org` for it and its subdomains, `*`), without
        a scheme, path or port: Django compares them with the request's host alone."""
        kept = []
        for host in self.list(name, default=default):
            if re.fullmatch(r"[\w.\-*]+|\[[0-9a-fA-F:.]+\]", host):
                kept.append(host)
            else:
                self._bad(
                    name, host, "expected host names, comma-separated, e.g. kb.example.org,.example.org"
                )
        return kept

    def path(self, name: Text, default: Path, *, must_exist: builtins.bool = False) -> Path:
        """A file system path; with `must_exist`, one that names an existing file."""
        value = self._raw(name)
        if not value:
            return default
        path = Path(value).expanduser()
        if must_exist and not path.is_file():
            self._bad(name, value, "expected the path of an existing file")
            return default
        return path

    def choice(self, name: Text, default: Text, choices: Collection[Text]) -> Text:
        """One of `choices` (lower-case), written in any case."""
        value = self._raw(name)
        if not value:
            return default
        if value.lower() not in choices:
            self._bad(name, value, f"expected one of {', '.join(choices)} (in any case)")
            return default
        return value.lower()

    def http_url(self, name: Text, default: Text) -> Text:
        """An http:// or https:// URL with a host, without its trailing slash."""
        value = self._raw(name)
        if not value:
            return default
        if not self._is_http_url(value):
            self._bad(
                name, value, "expected an http:// or https:// URL with a host, e.g. https://kb.example.org"
            )
            return default
        return value.rstrip("/")

    def origins(self, name: Text) -> builtins.list[Text]:
        """Comma-separated http(s)://host[:port] origins (no path)."""
        kept = []
        for origin in self.list(name, default=[]):
            if self._is_http_url(origin) and urlsplit(origin).path in ("", "/"):
                kept.append(origin.rstrip("/"))
            else:
                self._bad(
                    name, origin, "expected comma-separated origins, e.g. https://inspector.example.com"
                )
        return kept

    @staticmethod
    def _is_http_url(value: Text) -> builtins.bool:
        try:
            parts = urlsplit(value)
            parts.port  # noqa: B018 - raises on a port that is not a number
        except ValueError:
            return False
        return parts.scheme in ("http", "https") and bool(parts.hostname)

    def rate(self, name: Text, default: Text) -> Text | None:
        """A throttle rate such as 240/minute (per second, minute, hour or day); set but
        empty switches the limit off (None)."""
        value = self._raw(name)
        if value is None:
            return default
        if not value:
            return None
        match = RATE.fullmatch(value.replace(" ", ""))
        if not match or builtins.int(match["count"]) < 1:
            self._bad(
                name,
                value,
                "expected requests per period, e.g. 240/minute (period second, minute, hour or day; "
                "empty to switch the limit off)",
            )
            return default
        return f"{builtins.int(match['count'])}/{match['period'].lower()}"

    def database(self, name: Text, default: Text) -> dict[Text, Any]:
        """A database URL as Django's settings dictionary (empty means `default`)."""
        value = self._raw(name) or default
        config = self._database_config(name, value)
        return config if config is not None else environ.Env.db_url_config(default)

    def databases(self, name: Text) -> builtins.list[dict[Text, Any]]:
        """Comma-separated database URLs, each as Django's settings dictionary."""
        configs = (self._database_config(name, url) for url in self.list(name, default=[]))
        return [config for config in configs if config is not None]

    def _database_config(self, name: Text, url: Text) -> dict[Text, Any] | None:
        accepted = f"expected a database URL, {DATABASE_URL_FORMS}"
        if "://" not in url:
            self._bad(name, url, accepted)
            return None
        try:
            config = environ.Env.db_url_config(url)
        except (ValueError, ImproperlyConfigured) as error:
            self._bad(name, url, f"{accepted} ({error})")
            return None
        if config.get("ENGINE") not in DATABASE_ENGINES:
            self._bad(name, url, f"{accepted}; only PostgreSQL and SQLite are supported")
            return None
        return config

    def cache(self, name: Text, default: Text) -> dict[Text, Any]:
        """A cache URL as Django's settings dictionary (empty means `default`)."""
        value = self._raw(name) or default
        try:
            config = environ.Env.cache_url_config(value)
        except (ValueError, ImproperlyConfigured):
            config = {}
        if config.get("BACKEND") not in _ACCEPTED_CACHE_BACKENDS:
            self._bad(name, value, f"expected a cache URL, {CACHE_URL_FORMS}")
            return environ.Env.cache_url_config(default)
        return config


def check_replicas(env: EnvironmentReader, primary: dict[str, Any], replicas: list[dict[str, Any]]) -> None:
    """Refuse replicas of another database engine than the primary's, and warn about
    replicas of a SQLite primary: nothing copies a SQLite file's writes to another file, so
    reads from it would miss every write (useful in tests of the router only)."""
    if not replicas:
        return
    engine = primary["ENGINE"]
    kinds = sorted({DATABASE_ENGINES[replica["ENGINE"]] for replica in replicas})
    if kinds != [DATABASE_ENGINES[engine]]:
        env.problem(
            f"DATABASE_REPLICA_URLS names {' and '.join(kinds)} databases while DATABASE_URL is "
            f"{DATABASE_ENGINES[engine]}: replicas must be of the primary's kind (PostgreSQL streaming "
            "replicas of a PostgreSQL primary)"
        )
    elif engine == "django.db.backends.sqlite3":
        warnings.warn(
            "DATABASE_REPLICA_URLS with a SQLite DATABASE_URL: nothing copies the primary's writes to "
            "the replica files, so reads sent there miss them; read replicas are for a PostgreSQL "
            "primary (docs/scaling.md)",
            RuntimeWarning,
            stacklevel=2,
        )
