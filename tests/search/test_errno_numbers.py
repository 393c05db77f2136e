"""An error number means its C library name and message: `errno 28` is ENOSPC, "No space
left on device", whether a person types it or a log prints it (`[Errno 28]`)."""

from __future__ import annotations

import pytest

from incidents.search import read_log, search_cases
from incidents.search.errnos import by_name, by_number
from incidents.search.planning import interpret

pytestmark = pytest.mark.django_db

ENOSPC_CASE = "IL-0603"  # NCCL could not extend /dev/shm: ENOSPC (No space left on device)


@pytest.mark.parametrize(
    ("number", "name", "message"),
    [
        (28, "ENOSPC", "No space left on device"),
        (110, "ETIMEDOUT", "Connection timed out"),
        (104, "ECONNRESET", "Connection reset by peer"),
        (12, "ENOMEM", "Cannot allocate memory"),
    ],
)
def test_the_table_is_the_c_librarys(number, name, message):
    assert (by_number(number).name, by_number(str(number)).message) == (name, message)
    assert by_name(name.lower()).number == number


def test_an_unknown_number_or_name_is_none():
    assert (by_number(9999), by_number("x"), by_name("EPOCH")) == (None, None, None)


@pytest.mark.parametrize("query", ["errno 28", "Errno 28", "errno28", "errno:28"])
def test_an_error_number_is_searched_as_its_name_and_message(query):
    atoms = [atom.text() for atom in interpret(query).groups[0]]
    assert {"ENOSPC", "No space left on device"} <= set(atoms)
    results = search_cases(query=query, limit=5)
    assert [h.case.id for h in results.hits][:1] == [ENOSPC_CASE]


def test_a_symbolic_name_is_searched_as_its_number_and_message_too():
    atoms = [atom.text().lower() for atom in interpret("ENOMEM").groups[0]]
    assert atoms == ["enomem", "errno 12", "cannot allocate memory"]


def test_errno_is_not_corrected_to_error():
    results = search_cases(query="errno 28", limit=5)
    assert results.suggestion is None
    assert [h.case.id for h in results.hits][:1] == [ENOSPC_CASE]


def test_a_log_printing_the_number_finds_the_case_that_names_the_error():
    log = "OSError: [Errno 28] while extending /dev/shm/nccl-7a2c0 for the NCCL shared memory transport\n"
    hit = read_log(log).hits[0]
    assert hit.case.id == ENOSPC_CASE
    assert "ENOSPC" in hit.matched_terms


def test_an_upper_case_word_that_is_no_error_name_is_no_token():
    log = "EPOCH 3 finished; EVAL loss 2.31\n"
    assert all("EPOCH" not in h.matched_terms for h in read_log(log).hits)
