"""Django settings for incidentlib, read from the environment.

Every setting that differs between machines comes from an environment variable (or a
`.env` file at the project root), read and checked by `incidentlib.environment`: a bad
value stops the start with one message naming each bad variable (docs/configuration.md
lists them all; a test keeps that table and this file in step). Defaults are safe for
local development: an SQLite file under `var/`.
"""

from __future__ import annotations

from pathlib import Path

# CONTENT_SECURITY_POLICY is read by django-csp's middleware.
from incidentlib.cache_database import CACHE_ALIAS, sqlite_cache_database
from incidentlib.environment import LOG_LEVELS, EnvironmentReader, check_replicas
from incidentlib.security import CONTENT_SECURITY_POLICY, HEADER_SETTINGS, tls_settings  # noqa: F401

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

env = EnvironmentReader()
# Variables already in the environment win over the file; ENV_FILE names another file.
env.read_env_file(BASE_DIR / ".env")

DEBUG = env.bool("DEBUG", default=False)
# Without DEBUG the app refuses to start on a missing or weak SECRET_KEY or a missing
# ALLOWED_HOSTS: `make setup` writes both into `.env` once (a random key, the loopback hosts).
SECRET_KEY = env.str("SECRET_KEY", default="")
MIN_SECRET_KEY_LENGTH = 50
if DEBUG and not SECRET_KEY:
    SECRET_KEY = "incidentlib-development-key-not-for-production"
elif len(SECRET_KEY) < MIN_SECRET_KEY_LENGTH or len(set(SECRET_KEY)) < 5:
    env.problem(
        f"SECRET_KEY must be set to a random value of at least {MIN_SECRET_KEY_LENGTH} characters "
        "when DEBUG is off (in the environment or .env; `make setup` writes one to .env)"
    )
if not DEBUG and "ALLOWED_HOSTS" not in env.ENVIRON:
    env.problem(
        "ALLOWED_HOSTS must be set when DEBUG is off: the host names the site answers to, "
        "comma-separated (`make setup` writes 127.0.0.1,localhost,[::1] to .env)"
    )
ALLOWED_HOSTS = env.hosts("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])
# Origins besides the site's own (http(s)://<ALLOWED_HOSTS entry>[:port]) whose pages may call
# /mcp, e.g. a browser-based MCP client: "https://inspector.example.com".
MCP_ALLOWED_ORIGINS = env.origins("MCP_ALLOWED_ORIGINS")
PORT = env.int("PORT", default=8000, minimum=1, maximum=65535)
# HTTPS=true when the site is reached over TLS: secure cookies, HSTS, redirect from http://.
# BEHIND_TLS_PROXY=true when a proxy terminates TLS and always sends X-Forwarded-Proto.
HTTPS = env.bool("HTTPS", default=False)
globals().update(tls_settings(HTTPS, behind_proxy=env.bool("BEHIND_TLS_PROXY", default=False)))
globals().update(HEADER_SETTINGS)
# Where the site is reachable, for absolute links given outside a request (MCP tool results).
SITE_URL = env.http_url("SITE_URL", default=f"http://127.0.0.1:{PORT}")

INSTALLED_APPS = [
    # Editors and reviewers work in the Django admin, signed in with Django accounts.
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.contenttypes",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django.contrib.sitemaps",  # its sitemap.xml template
    "rest_framework",
    "rest_framework.authtoken",  # write API: DRF's token authentication
    "simple_history",  # case history (see incidents/history.py)
    "corsheaders",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "incidents",
    "api",
    "mcp_server",
]

MIDDLEWARE = [
    # HTTPS=true: plain HTTP redirected with 308 (method and body kept), not SecurityMiddleware's 301.
    "incidentlib.middleware.TlsRedirectMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # /healthz before anything reads the Host header: load balancers probe by address.
    "incidentlib.middleware.HealthCheckMiddleware",
    # whitenoise's, its files read a block at a time under ASGI (incidentlib/static_files.py).
    "incidentlib.static_files.StaticFilesMiddleware",
    "incidentlib.middleware.RejectNulMiddleware",
    # One read of the store generation per request (incidents/store_cache.py).
    "incidentlib.middleware.StoreGenerationMiddleware",
    # Before CommonMiddleware so that its redirects and answers carry CORS headers too.
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Sessions, CSRF and accounts serve the admin and the proposal form; the read-only pages
    # never touch the session, so they cost no query and set no cookie.
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, so that it sees database errors raised by views first.
    "incidentlib.middleware.DatabaseUnavailableMiddleware",
]

ROOT_URLCONF = "incidentlib.urls"
ASGI_APPLICATION = "incidentlib.asgi.application"
WSGI_APPLICATION = "incidentlib.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                # For the admin; both are lazy, so pages that do not use them pay nothing.
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]


# An empty DATABASE_URL= or CACHE_URL= (as a compose file or a shell script leaves it) means
# the default, not an unreadable URL.
DATABASES = {
    "default": env.database("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'incidentlib.sqlite3'}"),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    VAR_DIR.mkdir(exist_ok=True)
    DATABASES["default"].setdefault("OPTIONS", {})
    DATABASES["default"]["OPTIONS"].setdefault("transaction_mode", "IMMEDIATE")
    # Seconds a writer waits for another writer's transaction (an import) before giving up.
    DATABASES["default"]["OPTIONS"].setdefault("timeout", 60)
    DATABASES["default"]["OPTIONS"].setdefault(
        "init_command", "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
    )

# PostgreSQL compiles (JIT) the expressions of any query it costs high, such as a search
# that scores every match of a common word: 18 ms of compilation per search at 10,000 cases,
# never won back by queries of tens of milliseconds.
_NO_JIT = "-c jit=off"
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("options", _NO_JIT)

# A connection that broke (database restarted) is noticed and replaced at the next request.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# PostgreSQL connection pool per worker process (psycopg_pool through Django): with
# DB_POOL_MAX_SIZE set, a burst of requests waits up to DB_POOL_TIMEOUT seconds for one of
# that many connections instead of each opening its own and exhausting max_connections.
DB_POOL_MAX_SIZE = env.int("DB_POOL_MAX_SIZE", default=0)
DB_POOL_TIMEOUT = env.float("DB_POOL_TIMEOUT", default=60.0)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and DB_POOL_MAX_SIZE:
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": DB_POOL_MAX_SIZE,
        "timeout": DB_POOL_TIMEOUT,
    }

# Read replicas (docs/scaling.md): DATABASE_REPLICA_URLS=url1,url2 adds the aliases replica1,
# replica2, ... (same health checks and pool as the primary; a test run mirrors the primary)
# and the router that sends reads outside transactions to them (incidentlib/db_router.py).
_replicas = env.databases("DATABASE_REPLICA_URLS")
check_replicas(env, DATABASES["default"], _replicas)
for _number, _replica in enumerate(_replicas, start=1):
    _replica["CONN_HEALTH_CHECKS"] = True
    if _replica["ENGINE"] == "django.db.backends.postgresql":
        _replica.setdefault("OPTIONS", {}).setdefault("options", _NO_JIT)
    _pool = DATABASES["default"].get("OPTIONS", {}).get("pool")
    if _pool and _replica["ENGINE"] == DATABASES["default"]["ENGINE"]:
        _replica.setdefault("OPTIONS", {})["pool"] = dict(_pool)
    _replica["TEST"] = {"MIRROR": "default"}
    DATABASES[f"replica{_number}"] = _replica

# Shared cache: DRF throttling counts requests here, so every worker process must see the
# same counts. The database cache needs no extra service: on SQLite it lives in a file of its
# own beside the case database (incidentlib/cache_database.py: created on first use, its
# writes never wait for an import's write lock), on PostgreSQL in a table of the case
# database (created by the api app's migration). CACHE_URL=redis://127.0.0.1:6379/0
# switches to Redis.
CACHES = {
    "default": env.cache("CACHE_URL", default="dbcache://incidentlib_cache"),
}
if CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache":
    # The same backend, its connection pools and clients shared by all requests of the process.
    CACHES["default"]["BACKEND"] = "incidentlib.redis_cache.SharedPoolRedisCache"
if CACHES["default"]["BACKEND"].endswith(("DatabaseCache", "LocMemCache")):
    # Only these backends cull by count; the Redis client would take it for a connection option.
    CACHES["default"].setdefault("OPTIONS", {}).setdefault("MAX_ENTRIES", 20_000)
_case_file = str(DATABASES["default"]["NAME"])
if (
    CACHES["default"]["BACKEND"].endswith("DatabaseCache")
    and DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3"
    and _case_file != ":memory:"
    and "mode=memory" not in _case_file
):
    DATABASES[CACHE_ALIAS] = sqlite_cache_database(_case_file, CACHES["default"]["LOCATION"])
# Store reads cached per store generation (incidents/store_cache.py: store version, vocabulary
# counts, passage vectors). On by default with CACHE_URL (a cache server every process shares);
# off with the database cache, where each cache read is a query of about the cost it saves.
STORE_CACHE = env.bool("STORE_CACHE", default=bool(env.str("CACHE_URL").strip()))
# Replicas and the cache's own file are routed by incidentlib/db_router.py.
DATABASE_ROUTERS = ["incidentlib.db_router.ReplicaRouter"] if len(DATABASES) > 1 else []


DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# History rows are written by `incidents.history.record` once per editorial change, after the
# case and its child rows are all written, instead of on every model save.
SIMPLE_HISTORY_ENABLED = False
# Reverting from the admin's history page would write the case around the service.
SIMPLE_HISTORY_REVERT_DISABLED = True

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "var" / "static"
STATICFILES_DIRS = [BASE_DIR / "static"]
# whitenoise serves static files from the app itself; in DEBUG it finds them without collectstatic.
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["api.parsers.JSONBodyParser"],
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "UNAUTHENTICATED_USER": None,
    "EXCEPTION_HANDLER": "api.errors.problem_exception_handler",
    # drf-spectacular's, its operations grouped by the tags below (api/tags.py).
    "DEFAULT_SCHEMA_CLASS": "api.tags.TaggedAutoSchema",
    # Requests per client address (REMOTE_ADDR, or the address NUM_PROXIES proxies away in
    # X-Forwarded-For). "api" covers every endpoint, "api-heavy" log matching, triage and export;
    # MCP calls over HTTP and /match/ posts count in the same counts (api.throttling.count_request).
    # An empty value switches a scope off.
    "DEFAULT_THROTTLE_CLASSES": ["api.throttling.ClientRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "api": env.rate("API_THROTTLE_RATE", default="240/minute"),
        "api-heavy": env.rate("API_HEAVY_THROTTLE_RATE", default="30/minute"),
        # Proposals received (the form and POST /api/proposals/ share it), per client address;
        # proposals refused as invalid count apart, against a larger rate
        # (incidents/proposals/receive.py).
        "proposals": env.rate("PROPOSAL_THROTTLE_RATE", default="10/hour"),
        "proposals-refused": env.rate("PROPOSAL_REFUSED_THROTTLE_RATE", default="60/hour"),
    },
    "NUM_PROXIES": env.int("API_NUM_PROXIES", default=0),
}

# Seconds that browsers and shared caches may reuse a successful API answer before they
# revalidate it with its ETag (answered by a cheap 304).
API_CACHE_MAX_AGE = env.int("API_CACHE_MAX_AGE", default=60)

# CORS: any origin may read the API (no credentials, no cookies); HTML pages are not covered.
CORS_ALLOW_ALL_ORIGINS = True
CORS_URLS_REGEX = r"^/api/.*$"
CORS_ALLOW_METHODS = ("GET", "HEAD", "OPTIONS", "POST")
CORS_ALLOW_HEADERS = (
    "accept",
    "content-type",
    "if-none-match",
    "if-modified-since",
    "user-agent",
)
CORS_EXPOSE_HEADERS = ("ETag", "Last-Modified", "Retry-After", "Link", "Content-Disposition")
CORS_PREFLIGHT_MAX_AGE = 86400

SPECTACULAR_SETTINGS = {
    "TITLE": "incidentlib API",
    "VERSION": "1.0.0",
    "OAS_VERSION": "3.1.0",
    "DESCRIPTION": (BASE_DIR / "api" / "API.md").read_text(encoding="utf-8"),
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api",
    # The groups of /api/docs/, in this order (api/tags.py tags each operation).
    "TAGS": [
        {
            "name": "cases",
            "description": "Read cases: list and search, one case, its similar cases and history, "
            "lookup by reference, export and the change feed.",
        },
        {
            "name": "matching",
            "description": "From what you see to cases: a pasted log (match), symptoms and context "
            "(triage), the versions you run (affected).",
        },
        {"name": "vocabulary", "description": "Topics, vocabulary facets, error codes and statistics."},
        {
            "name": "editing",
            "description": "Proposals anyone may send, and editors' writes (create, update, status, "
            "merge), which need a token.",
        },
    ],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # validatorUrl null: Swagger UI would otherwise send the schema to an online validator.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None, "displayRequestDuration": True},
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.add_case_document_schemas",
        "api.schema.allow_empty_values",
    ],
    "ENUM_GENERATE_CHOICE_DESCRIPTION": False,
    # Several `status` fields with different choice sets: each gets its own enum name.
    "ENUM_NAME_OVERRIDES": {
        "StatusEnum": ["published", "retracted"],
        "ChangeStatusEnum": ["published", "retracted", "merged"],
        "WorkflowStatusEnum": ["draft", "in_review", "published", "retracted"],
        "ProposalStatusEnum": ["received", "in_review", "accepted", "declined"],
    },
}

# Where the case schema and the bundled fixtures live.
CASE_SCHEMA_PATH = env.path(
    "CASE_SCHEMA_PATH", default=BASE_DIR / "incidents" / "case.schema.json", must_exist=True
)
FIXTURES_DIR = BASE_DIR / "fixtures"

# One JSON object per line on stderr (LOG_FORMAT=text for plain lines while developing).
LOG_FORMAT = env.choice("LOG_FORMAT", default="json", choices=("json", "text"))
# The least severe records written (Django's, the app's and uvicorn's start-up lines).
LOG_LEVEL = env.choice("LOG_LEVEL", default="warning", choices=LOG_LEVELS).upper()
# The DEBUG page and error reports show no credential a URL setting carries (CACHE_URL's
# password is in the cache's LOCATION, a name Django does not hide).
DEFAULT_EXCEPTION_REPORTER_FILTER = "incidentlib.error_reports.CredentialFreeReporterFilter"

# Warnings too are records of this log (`incidentlib.logs.configure`).
LOGGING_CONFIG = "incidentlib.logs.configure"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "drop_traceback": {"()": "incidentlib.logs.DropTraceback"},
        "request_client": {"()": "incidentlib.logs.RequestClient"},
    },
    "formatters": {
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
        },
        "text": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT, "filters": ["request_client"]},
        "console_short": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["drop_traceback"],
        },
    },
    "loggers": {
        "django.security.DisallowedHost": {
            "handlers": ["console_short"],
            "level": "WARNING",
            "propagate": False,
        },
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
}

# Sentence vectors already computed, one file per text (incidents/search/encoder.py): a
# second import of the same texts (tests, `make eval`, another database) skips the model.
# Empty string: no disk cache.
EMBEDDING_CACHE_DIR = env.str("EMBEDDING_CACHE_DIR", default=str(VAR_DIR / "embeddings"))

# Above this many published cases, importing or editing a few weighs their words from the
# stored word statistics and compares them with candidate cases found through the search
# index, instead of reading every published profile (exact, O(N));
# incidents/search/word_statistics.py and candidate_cases.py.
WORD_STATISTICS_FROM = env.int("WORD_STATISTICS_FROM", default=5000)

# Searches and log matches a worker process computes at once (incidents/search/gate.py);
# the others wait for a place. Each holds its own database work (SQLite's full-text
# look-ups run in the worker) and numpy temporaries while it runs; 2 keep both cores of a
# 2-worker server busy.
SEARCH_CONCURRENCY = env.int("SEARCH_CONCURRENCY", default=2, minimum=1)

# Last: every value above is read, so the message names every bad one at once.
env.raise_problems()
