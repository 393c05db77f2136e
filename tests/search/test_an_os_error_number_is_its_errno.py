"""`OSError 28` is errno 28 (ENOSPC, "No space left on device"), at every door.

`OSError` alone is a generic exception name and lists no case; `q=OSError 28` listed none
either, the number left to say nothing, although Python prints `OSError: [Errno 28] No space
left on device` and `errno 28` already found the no-space case (IL-0603). With a number the C
library knows, the name is that error number; `RuntimeError 28` or `OSError 999` still list
no case.
"""

from __future__ import annotations

import pytest

from incidents.search import search_cases
from tests.mcp.conftest import InMemoryMcp

pytestmark = pytest.mark.django_db

ENOSPC_CASE = "IL-0603"  # NCCL could not extend /dev/shm: ENOSPC (No space left on device)
NOTE = "OSError 28 read as errno 28: ENOSPC, No space left on device."
GENERIC = "OSError is printed by too many failures to tell them apart: searched without it."
LONE = (
    "{} is printed by too many failures to tell them apart, so no case is listed: add the"
    " message printed after it, or paste the log into log matching."
)


@pytest.mark.parametrize(
    ("query", "note"),
    [
        ("OSError 28", NOTE),
        ("OSError(28)", NOTE),
        ("oserror 28", "oserror 28 read as errno 28: ENOSPC, No space left on device."),
        ("IOError 28", "IOError 28 read as errno 28: ENOSPC, No space left on device."),
    ],
)
def test_an_os_error_with_its_number_finds_what_errno_28_finds(query, note):
    results = search_cases(query=query, limit=5)
    errno = search_cases(query="errno 28", limit=5)
    assert [hit.case.id for hit in results.hits] == [hit.case.id for hit in errno.hits] == [ENOSPC_CASE]
    assert results.notes == [note]
    # Read as errno 28 is: the same reasons (worded by each backend's matches: SQLite
    # "Matches: ENOSPC, No space left on device.", PostgreSQL naming the message's words).
    assert results.hits[0].why == errno.hits[0].why
    assert results.hits[0].why.startswith("Matches: ENOSPC, ")


@pytest.mark.parametrize(("query", "name"), [("RuntimeError 28", "RuntimeError"), ("OSError 999", "OSError")])
def test_a_name_with_no_error_number_still_lists_no_case(query, name):
    results = search_cases(query=query)
    assert (results.total, results.partial_total, results.hits) == (0, 0, [])
    assert results.notes == [LONE.format(name)]


def test_a_pasted_line_with_its_errno_is_unchanged():
    # `OSError: [Errno 28]`: the number follows `Errno`, not the name; the name is left out.
    results = search_cases(query="OSError: [Errno 28]")
    assert [hit.case.id for hit in results.hits] == [ENOSPC_CASE]
    assert results.notes == [GENERIC]


def test_every_door_reads_it_alike(client):
    api = client.get("/api/cases/", {"q": "OSError 28"}).json()
    assert ([hit["id"] for hit in api["results"]], api["count"], api["notes"]) == ([ENOSPC_CASE], 1, [NOTE])
    tool = InMemoryMcp().ok("search_incidents", query="OSError 28")
    assert ([hit["id"] for hit in tool["hits"]], tool["total"], tool["notes"]) == ([ENOSPC_CASE], 1, [NOTE])
    page = client.get("/cases/", {"q": "OSError 28"}).content.decode()
    assert NOTE in page and f'href="/cases/{ENOSPC_CASE}"' in page
    assert "so no case is listed" not in page
