"""An import of new cases reads every published profile once, under the write lock: the
duplicate check and the neighbour update share that read (`services.import_case_files`),
and the profiles the update builds from it are those a second read would give."""

from __future__ import annotations

import json

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from incidents.models import Case, Term
from incidents.problems import CaseImportError
from incidents.search import profiles
from incidents.search.models import CaseNeighbour, CaseProfile
from incidents.search.similarity import NEIGHBOURS
from incidents.services import import_case_files
from tests.conftest import CASES_DIR, VOCAB_FILE

pytestmark = pytest.mark.django_db


def retold(tmp_path, case_id: str, new_id: str):
    """A copy of a fixture case under a new id, written to its own folder."""
    document = json.loads((CASES_DIR / f"{case_id}.json").read_text(encoding="utf-8"))
    document["id"] = new_id
    document["related"] = []
    folder = tmp_path / new_id
    folder.mkdir()
    (folder / f"{new_id}.json").write_text(json.dumps(document), encoding="utf-8")
    return folder


def profile_reads(queries) -> list[str]:
    """The queries that read stored word counts of the library, not those of the written
    cases' own rows (which the word statistics take out before storing their new ones,
    `profiles.refresh`: filtered by `counted`)."""
    return [
        q["sql"]
        for q in queries.captured_queries
        if '"incidents_caseprofile"."counts"' in q["sql"]
        and '"incidents_caseprofile"."counted"' not in q["sql"]
    ]


def test_an_import_reads_the_published_profiles_once_for_the_duplicate_check_and_the_neighbours(tmp_path):
    folder = retold(tmp_path, "IL-0463", "IL-990001")
    with CaptureQueriesContext(connection) as queries:
        result = import_case_files(paths=[folder])
    # The library's stored word counts (a pending-neighbours check reads no profile).
    assert len(profile_reads(queries)) == 1, profile_reads(queries)  # every published case's
    assert result.created == ["IL-990001"]
    [warning] = result.warnings
    assert warning.startswith("IL-990001 looks like IL-0463 (")
    ranked = list(CaseNeighbour.objects.filter(case_id="IL-990001").order_by("rank"))
    assert len(ranked) == NEIGHBOURS
    assert ranked[0].neighbour_id == "IL-0463"
    assert ranked[0].score > 0.9
    # ...and the copy entered the list of the case it copies, as its closest neighbour.
    assert CaseNeighbour.objects.get(case_id="IL-0463", rank=1).neighbour_id == "IL-990001"


def test_the_vocabulary_file_the_library_was_built_from_changes_nothing(tmp_path):
    # `import_cases --vocab fixtures/vocab.json` with new cases, as an operator runs it:
    # no term is written again, so the profiles are still read once and no case's
    # organization or accelerator links are recomputed.
    folder = retold(tmp_path, "IL-0463", "IL-990004")
    with CaptureQueriesContext(connection) as queries:
        result = import_case_files(paths=[folder], vocab_paths=[VOCAB_FILE])
    assert result.terms_written == 0
    assert len(profile_reads(queries)) == 1
    # relink_aliases reads every case's organization and accelerator: not run.
    assert not [q for q in queries.captured_queries if '"incidents_case"."accelerator" FROM' in q["sql"]]
    assert CaseNeighbour.objects.get(case_id="IL-990004", rank=1).neighbour_id == "IL-0463"


def test_a_vocabulary_file_changing_one_term_writes_that_term_only(tmp_path):
    vocabulary = json.loads(VOCAB_FILE.read_text(encoding="utf-8"))
    [topic] = [t for t in vocabulary["topics"] if t["slug"] == "inference-outage"]
    topic["synonyms"] = [*topic.get("synonyms", []), "serving blackout"]
    changed = tmp_path / "vocab.json"
    changed.write_text(json.dumps(vocabulary), encoding="utf-8")
    folder = retold(tmp_path, "IL-0463", "IL-990005")
    with CaptureQueriesContext(connection) as queries:
        result = import_case_files(paths=[folder], vocab_paths=[changed])
    assert result.terms_written == 1
    assert "serving blackout" in Term.objects.get(facet="topic", slug="inference-outage").synonyms
    # A term changed: the profiles are read again for the neighbour update.
    assert len(profile_reads(queries)) == 2


def test_an_import_that_renames_a_term_names_it_anew_in_every_list(tmp_path):
    vocabulary = json.loads(VOCAB_FILE.read_text(encoding="utf-8"))
    [topic] = [t for t in vocabulary["topics"] if t["slug"] == "inference-outage"]
    topic["name"] = "Inference outages, renamed"
    renamed = tmp_path / "vocab.json"
    renamed.write_text(json.dumps({"topics": [topic]}), encoding="utf-8")
    folder = retold(tmp_path, "IL-0463", "IL-990003")
    import_case_files(paths=[folder], vocab_paths=[renamed])
    # The copy entered the list of the case it copies, whose terms were read before the
    # import renamed the topic: that list names the topic as it is called now.
    row = CaseNeighbour.objects.get(case_id="IL-0463", neighbour_id="IL-990003")
    assert row.shared_terms["topic"] == ["Inference outages, renamed", "Interconnect faults"]


def test_a_strict_import_refused_for_a_duplicate_leaves_nothing_behind(tmp_path):
    folder = retold(tmp_path, "IL-0463", "IL-990002")
    with pytest.raises(CaseImportError) as raised:
        import_case_files(paths=[folder], strict=True)
    assert "possible duplicate (--strict): IL-990002 looks like IL-0463" in str(raised.value)
    assert not Case.objects.filter(id="IL-990002").exists()
    assert not CaseProfile.objects.filter(case_id="IL-990002").exists()
    assert not CaseNeighbour.objects.filter(neighbour_id="IL-990002").exists()


def as_values(found: list[profiles.Profile]) -> list[tuple]:
    """Everything a profile holds, in order (the order of terms and words numbers the
    columns the scores are summed over)."""
    return [
        (
            p.id,
            list(p.terms.items()),
            list(p.counts.items()),
            list(p.context.items()),
            list(p.surface.items()),
            None if p.embedding is None else p.embedding.tolist(),
        )
        for p in found
    ]


def test_profiles_read_before_a_write_give_what_reading_them_after_gives():
    Case.objects.filter(id="IL-0470").update(status=Case.Status.DRAFT)
    before = profiles.published()
    assert "IL-0470" not in {p.id for p in before}
    # Written since: a case retold, a case unpublished, a case published again.
    Case.objects.filter(id="IL-0463").update(summary="A retold summary: a zebrafish chewed the cable.")
    Case.objects.filter(id="IL-0500").update(status=Case.Status.DRAFT)
    Case.objects.filter(id="IL-0470").update(status=Case.Status.PUBLISHED)
    fresh = profiles.refresh(["IL-0463"])
    assert fresh["IL-0463"].counts["zebrafish"] == 1

    reused = profiles.published(fresh, before=before)
    reused_values = as_values(reused)  # before the second read gives `fresh` its terms again
    read_again = profiles.published(fresh)
    ids = [p.id for p in reused]
    assert "IL-0470" in ids and "IL-0500" not in ids
    assert reused_values == as_values(read_again)
    [retold] = [values for values in reused_values if values[0] == "IL-0463"]
    assert ("root_cause", Case.objects.get(id="IL-0463").root_cause_category.slug) in dict(retold[1])
    assert next(p for p in reused if p.id == "IL-0463") is fresh["IL-0463"]
    assert all(p.embedding is not None and np.isfinite(p.embedding).all() for p in reused)


def test_of_two_vocabulary_files_defining_a_term_the_last_one_is_stored(tmp_path):
    vocabulary = json.loads(VOCAB_FILE.read_text(encoding="utf-8"))
    [topic] = [t for t in vocabulary["topics"] if t["slug"] == "inference-outage"]
    stored = list(Term.objects.get(facet="topic", slug="inference-outage").synonyms)
    changed = tmp_path / "changed.json"
    changed.write_text(
        json.dumps({"topics": [{**topic, "synonyms": ["serving blackout"]}]}), encoding="utf-8"
    )
    folder = retold(tmp_path, "IL-0463", "IL-990006")
    # The later file says what is stored already: nothing changes, whatever the first says.
    result = import_case_files(paths=[folder], vocab_paths=[changed, VOCAB_FILE])
    assert result.terms_written == 0
    assert Term.objects.get(facet="topic", slug="inference-outage").synonyms == stored
