"""A code named only to say the failure did not print it ("instead of failing with ENOSPC",
"did not see any Xid 79") tags neither a case at import nor a log line (`negation.py`); a
code the failure printed still does, "could not" included ("NCCL could not extend
/dev/shm: ENOSPC" is how the failure prints it). None of the 173 fixture cases names a code
in such a way: their codes are unchanged (`test_error_code_patterns.py` reads their lines)."""

from __future__ import annotations

import pytest

from incidents import services
from incidents.documents import case_document
from incidents.models import Case, CaseTerm, Facet
from incidents.negation import negated
from incidents.search import read_log
from tests.search.test_error_code_patterns import CODES

NEGATED = [
    "the loader retried instead of failing with ENOSPC",
    "Rather than an Xid 79, the node logged nothing at all",
    "since 2.19 NCCL no longer fails with ENOSPC here",
    "we did not see any Xid 79 on the node",
    "the driver didn't report Xid 79 for that GPU",
    "the run finished without a single `Xid 79`",
    "There was no Xid 79 on the node",
]

SHOWN = [
    ("NCCL could not extend /dev/shm: ENOSPC", ["ENOSPC"]),
    ("the GPU did not recover after Xid 79", ["Xid 79"]),
    ("the GPU never recovered from Xid 79", ["Xid 79"]),
    # A cue in another clause speaks of something else.
    ("It did not restart, and then Xid 79 came", ["Xid 79"]),
    ("the write failed with ENOSPC rather than EIO", ["ENOSPC"]),
    # Negated once and printed once: the code is shown.
    ("we did not see Xid 79 on gpu-3. NVRM: Xid (PCI:0000:3b:00): 79, pid=4242", ["Xid 79"]),
]


@pytest.mark.parametrize("text", NEGATED)
def test_a_negated_mention_is_no_code(text):
    assert CODES.find(text) == []


@pytest.mark.parametrize("text, codes", SHOWN)
def test_a_mention_the_failure_printed_is_its_code(text, codes):
    assert CODES.find(text) == codes


def test_negation_reads_the_clause_before_the_mention_only():
    text = "ran without errors; ENOSPC at step 4"
    assert negated(text, text.index("ENOSPC")) is False
    text = "ran without ENOSPC at step 4"
    assert negated(text, text.index("ENOSPC")) is True


@pytest.mark.django_db
def test_a_case_saying_it_did_not_fail_with_a_code_is_not_tagged_with_it():
    case = Case.objects.published().exclude(terms__slug="enospc").order_by("id").first()
    assert case is not None
    document = dict(case_document(Case.objects.with_document().get(id=case.id)))
    retried = " The writer retried instead of failing with ENOSPC."
    document["detection"] = (document.get("detection") or "") + retried
    services.save_case_document(document, reason="test")
    codes = CaseTerm.objects.filter(case_id=case.id, term__facet=Facet.ERROR_CODE)
    assert not codes.filter(term__slug="enospc").exists()
    document["detection"] += " Later it failed: OSError: [Errno 28] No space left on device (ENOSPC)."
    services.save_case_document(document, reason="test")
    assert CaseTerm.objects.get(case_id=case.id, term__slug="enospc").derived is True


@pytest.mark.django_db
def test_a_log_line_saying_a_code_did_not_occur_reports_no_code():
    log = (
        "health check: GPU 0000:3b:00.0 ok, no Xid 79 since boot\nnode-17 ran without an Xid 79 for 30 days\n"
    )
    assert [c.term.name for c in read_log(log).error_codes] == []
    shown = log + "NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, GPU has fallen off the bus\n"
    assert [(c.term.name, c.line_numbers) for c in read_log(shown).error_codes] == [("Xid 79", (3,))]
