"""`make run` runs `make data`, which imported `fixtures/cases/` over the database on every
start: an action item an editor added was gone (history: an "import" version with no user),
a retracted case was published again, and once a reviewer had merged a bundled case the
import refused the merged-away id, so the site never started. `make data` now seeds
(`import_cases --seed`): new cases are imported, a case changed here since its last import
is kept as stored, and held vocabulary terms are left as stored. (That an untouched case
takes its corrected file is tested in test_make_data_takes_corrected_files.py.)"""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from incidents import services
from incidents.history import case_history
from incidents.models import Case, Facet, Term
from tests.conftest import CASES_DIR, VOCAB_FILE, fixture_ids, load_fixture
from tests.factories import write_cases

from .conftest import edit_action_items, merge, retract, run_make_data_import

pytestmark = pytest.mark.django_db


def test_make_data_keeps_an_editors_change_and_a_retraction(editor, reviewer, capsys):
    edit_action_items(editor, "IL-0429", ["Alert on a rank that stops logging."])
    retract(reviewer, "IL-0430", "Source withdrawn.")

    out = run_make_data_import(capsys)

    count = len(fixture_ids())
    assert out.splitlines()[0] == (
        f"seeded {count} case file(s): 0 new, 0 updated from a changed file, {count - 2} unchanged, "
        "2 kept because edited here"
    )
    # Their files did not change since they were imported: nothing was missed, nothing named.
    assert "kept IL-0429" not in out and "kept IL-0430" not in out
    assert Case.objects.get(id="IL-0429").action_items == ["Alert on a rank that stops logging."]
    assert [(r.user, r.reason) for r in case_history("IL-0429")[:1]] == [("edna", "PATCH through the API")]
    case = Case.objects.get(id="IL-0430")
    assert (case.status, case.retraction_reason) == ("retracted", "Source withdrawn.")
    assert case_history("IL-0430")[0].user == "rita"


def test_make_data_still_starts_after_a_merge_and_says_it_skipped_the_merged_id(reviewer, capsys):
    merge(reviewer, "IL-0432", "IL-0431")

    out = run_make_data_import(capsys)

    assert "skipped IL-0432: merged into IL-0431, its id is never reused" in out
    # The kept case changed too (its history names the merge): both are kept.
    assert "2 kept because edited here" in out.splitlines()[0]
    case = Case.objects.get(id="IL-0432")
    assert (case.status, case.merged_into_id) == ("merged", "IL-0431")
    assert [r.reason for r in case_history("IL-0431")[:1]] == ["IL-0432 merged into this case: duplicate"]
    # Without --new-only, a file reusing the merged-away id is refused as before.
    with pytest.raises(CommandError, match="import refused"):
        call_command("import_cases", str(CASES_DIR / "IL-0432.json"))
    assert "id 'IL-0432' was merged into 'IL-0431' and is never reused" in capsys.readouterr().err


def test_a_case_new_to_the_library_is_imported_beside_the_held_ones(tmp_path, capsys):
    held = load_fixture("IL-0428")
    held["lessons"] = ["A lesson only the file has."]
    new = load_fixture("IL-0428")
    new.update(id="IL-0999", title="A case added to the bundled files after a git pull", related=[])
    new["sources"] = [{"title": "Account", "url": "https://example.org/seeded"}]
    write_cases(tmp_path, [held, new])

    call_command("import_cases", "--new-only", str(tmp_path))

    out = capsys.readouterr().out
    assert "imported 1 case(s): 1 new, 0 updated, 0 unchanged" in out
    assert "skipped 1 case(s) the library holds, left as stored" in out
    assert Case.objects.get(id="IL-0999").title == "A case added to the bundled files after a git pull"
    assert Case.objects.get(id="IL-0428").lessons == load_fixture("IL-0428")["lessons"]


@pytest.mark.parametrize("mode", ["--new-only", "--seed"])
def test_a_new_case_is_still_validated_all_or_nothing(tmp_path, capsys, mode):
    new = load_fixture("IL-0428")
    new.update(id="IL-0998", title="A new case naming a topic nobody defined", topics=["no-such-topic"])
    write_cases(tmp_path, [load_fixture("IL-0429"), new])
    with pytest.raises(CommandError, match="import refused"):
        call_command("import_cases", mode, str(tmp_path))
    assert "$.topics[0]" in capsys.readouterr().err
    assert not Case.objects.filter(id="IL-0998").exists()


def test_make_data_keeps_a_reviewers_vocabulary_edit(capsys):
    term = Term.objects.get(facet=Facet.SYMPTOM, slug="training-job-failure")
    term.description = "Edited by a reviewer in the admin."
    term.synonyms = [*term.synonyms, "job fell over"]
    services.save_term(term)

    out = run_make_data_import(capsys)

    term.refresh_from_db()
    assert (term.description, term.synonyms[-1]) == ("Edited by a reviewer in the admin.", "job fell over")
    defined = sum(len(terms) for terms in json.loads(VOCAB_FILE.read_text(encoding="utf-8")).values())
    assert f"skipped {defined} vocabulary term(s) the library holds, left as stored" in out


def test_a_term_new_to_the_library_is_created_and_a_renamed_one_is_not_duplicated(tmp_path, capsys):
    renamed = Term.objects.get(facet=Facet.SYMPTOM, slug="training-job-failure")
    renamed.name = "Training job died"
    services.save_term(renamed)
    vocabulary = json.loads(VOCAB_FILE.read_text(encoding="utf-8"))
    vocabulary["symptom_tags"].append(
        {"name": "Seeded symptom", "description": "A symptom new in the bundled file."}
    )
    vocab_file = tmp_path / "vocab.json"
    vocab_file.write_text(json.dumps(vocabulary), encoding="utf-8")

    call_command("import_cases", "--new-only", "--vocab", str(vocab_file), str(CASES_DIR / "IL-0428.json"))

    assert Term.objects.get(facet=Facet.SYMPTOM, slug="seeded-symptom").name == "Seeded symptom"
    assert Term.objects.get(facet=Facet.SYMPTOM, slug="training-job-failure").name == "Training job died"
    assert not Term.objects.filter(facet=Facet.SYMPTOM, name="Training job failure").exists()
