"""Shared test fixtures.

The real fixture cases are imported once per session into the test database. pytest-django
runs non-transactional tests first (each inside a rolled-back transaction, so they all see
the imported cases) and transactional tests last; those flush the tables after each test,
so they request `transactional_cases`, which imports the cases again.

Every test that may use the database may use all of its aliases: on SQLite the throttle
counts live in the cache's own file (the `cache` alias), and any API request writes them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings

from incidents.overlap import case_prose
from incidents.services import import_case_files
from tests.mcp.conftest import InMemoryMcp

FIXTURES = Path(settings.FIXTURES_DIR)
VOCAB_FILE = FIXTURES / "vocab.json"
CASES_DIR = FIXTURES / "cases"


# Lines of a training job's log that the log-reading tests paste: the NCCL watchdog line
# every rank prints (so a log repeats it), two lines naming components' versions, a step
# line naming nothing the cases know, and an Xid 79.
WATCHDOG = (
    "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE) "
    "ran for 1800000 milliseconds before timing out."
)
VERSION_LINES = ["NCCL INFO NCCL version 2.18.1+cuda12.1", "Using PyTorch 2.1.0 on NVIDIA GPU"]
STEP_LINE = "step 1200 loss 2.31"
XID_79_LINE = "NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, GPU has fallen off the bus."

# Every rate scope off: for tests that send many requests from one address.
NO_RATE_LIMITS: dict[str, str | None] = {"api": None, "api-heavy": None, "proposals": None}


def set_throttle_rates(settings, rates: dict[str, str | None]) -> None:
    """Use `rates` (scope -> "N/period", None: not limited) for this test (`settings`: the
    pytest-django fixture, restored afterwards)."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}


@pytest.fixture
def no_rate_limits(settings) -> None:
    """No rate limit at any door (API, heavy work, proposals) for this test."""
    set_throttle_rates(settings, NO_RATE_LIMITS)


def import_real_cases() -> None:
    import_case_files(paths=[CASES_DIR], vocab_paths=[VOCAB_FILE])


def fixture_ids() -> list[str]:
    return sorted(p.stem for p in CASES_DIR.glob("*.json"))


def load_fixture(case_id: str) -> dict:
    return json.loads((CASES_DIR / f"{case_id}.json").read_text(encoding="utf-8"))


def ids_quoting(text: str) -> list[str]:
    """Ids of the published fixture cases whose prose (every field but ids, URLs and source
    titles) contains `text`, compared case-insensitively; read from the JSON files, so tests
    that pin a token's case hold whatever the library's size."""
    needle = text.casefold()
    return [
        case_id
        for case_id in fixture_ids()
        if (document := load_fixture(case_id))["status"] == "published"
        and any(needle in prose.casefold() for prose in case_prose(document))
    ]


DATABASE_FIXTURES = {"db", "transactional_db", "live_server"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Give each database test every alias (`databases="__all__"`) unless it names its own.

    pytest-django lets a test reach only `default` unless its `django_db` mark lists more,
    and sets up only the aliases some test lists: without this, every test that sends an
    API request on SQLite (the throttle writes to the `cache` alias) would have to say so,
    and a test that forgot would fail, or with the alias unset up, reach the real file
    under var/. One rule here instead of a `databases=` on hundreds of tests.
    """
    for item in items:
        marker = item.get_closest_marker("django_db")
        if marker is None and not DATABASE_FIXTURES & set(getattr(item, "fixturenames", ())):
            continue
        kwargs = dict(marker.kwargs) if marker else {}
        if marker and (marker.args or "databases" in kwargs):
            continue
        item.add_marker(pytest.mark.django_db(**kwargs, databases="__all__"), append=False)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        import_real_cases()


@pytest.fixture
def transactional_cases(transactional_db):
    import_real_cases()
    return fixture_ids()


@pytest.fixture
def mcp(db) -> InMemoryMcp:
    """The MCP server driven in memory by the SDK's client, built for this test. The read
    tests (tests/reads/conftest.py) build one per module instead."""
    return InMemoryMcp()


@pytest.fixture
def import_synthetic(tmp_path):
    """Import synthetic case documents (inside the test's transaction); returns their ids."""
    from tests.factories import write_cases

    def run(*documents: dict) -> list[str]:
        folder = tmp_path / f"batch{len(list(tmp_path.iterdir()))}"
        write_cases(folder, list(documents))
        import_case_files(paths=[folder], vocab_paths=[VOCAB_FILE])
        return [d["id"] for d in documents]

    return run
