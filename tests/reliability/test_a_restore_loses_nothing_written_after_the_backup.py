"""A restore without `--replace` loses nothing. It used to refuse a database holding cases or
terms the backup lacks, yet replace without a word the history of the cases the backup
holds: a retraction made after the backup was undone and its history row deleted. It now
refuses when the database holds history rows (or an editorial state) of a case that the
backup lacks, naming the case and saying that `--replace` drops those changes; with
`--replace` the case takes the backup's state and history. The refusal is a plain sentence
(no `$:` JSON path) naming what the database holds beyond the backup and the two ways
forward; `--restore` with another option names the option it takes."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from incidents import services
from incidents.history import case_history
from incidents.models import Case, Facet, Term
from incidents.workflow import REVIEWER
from tests.conftest import load_fixture
from tests.editorial.conftest import make_user

pytestmark = pytest.mark.django_db

WAYS_FORWARD = (
    "Nothing was written. Restore into an empty database (a new DATABASE_URL, then `manage.py "
    "migrate`), or run the restore again with --replace, which {drops} in the restore's transaction."
)


def backed_up(tmp_path: Path, name: str = "backup") -> Path:
    folder = tmp_path / name
    call_command("export_cases", str(folder), "--backup")
    return folder


def read_tree(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in directory.rglob("*") if p.is_file()}


def history_of(case_id: str) -> list[tuple]:
    return [(r.when, r.user, r.reason, r.status) for r in case_history(case_id)]


def retract_0432() -> None:
    services.change_status("IL-0432", "retracted", user=make_user("rita", REVIEWER), reason="withdrawn")


def add_draft(case_id: str) -> None:
    draft = {**load_fixture("IL-0428"), "id": case_id, "status": "draft", "related": []}
    draft["title"] = f"A draft written after the backup ({case_id})"
    services.save_case_document(draft, reason="written after the backup")


def test_a_change_made_after_the_backup_to_a_case_it_holds_is_refused_naming_the_case(tmp_path):
    backup = backed_up(tmp_path)
    retract_0432()
    history = history_of("IL-0432")
    assert [entry[2] for entry in history] == ["withdrawn", "import"]

    with pytest.raises(CommandError) as refused:
        call_command("import_cases", "--restore", str(backup))

    assert str(refused.value) == (
        "restore refused: the database holds what the backup does not: changes made after the backup "
        "to 1 case it holds (IL-0432: 1 history row the backup lacks). "
        + WAYS_FORWARD.format(drops="drops those changes")
    )
    assert history_of("IL-0432") == history
    assert Case.objects.get(id="IL-0432").status == "retracted"


def test_an_editorial_state_other_than_the_backups_is_refused_too(tmp_path):
    backup = backed_up(tmp_path)
    # Written around the workflow (no history row): still not the backup's state.
    Case.objects.filter(id="IL-0428").update(retraction_reason="set by hand")

    with pytest.raises(CommandError) as refused:
        call_command("import_cases", "--restore", str(backup))

    assert str(refused.value).startswith(
        "restore refused: the database holds what the backup does not: changes made after the backup "
        "to 1 case it holds (IL-0428). Nothing was written."
    )
    assert Case.objects.get(id="IL-0428").retraction_reason == "set by hand"


def test_replace_takes_the_changed_case_back_to_the_backups_state_and_history(tmp_path, capsys):
    backup = backed_up(tmp_path)
    history = history_of("IL-0432")
    retract_0432()

    call_command("import_cases", "--restore", str(backup), "--replace")

    assert capsys.readouterr().out.splitlines()[-2:] == [
        "deleted what the backup does not hold (--replace): 0 case(s), 1 history row(s), 0 term(s)",
        "took the 1 case(s) changed after the backup back to its state and history (--replace): IL-0432",
    ]
    assert Case.objects.get(id="IL-0432").status == "published"
    assert history_of("IL-0432") == history
    assert read_tree(backed_up(tmp_path, "again")) == read_tree(backup)


def test_a_restore_over_the_unchanged_database_it_came_from_needs_no_replace(tmp_path, capsys):
    retract_0432()  # a history row with a user and a reason, restored as it was
    backup = backed_up(tmp_path)

    call_command("import_cases", "--restore", str(backup))

    assert capsys.readouterr().out.splitlines()[-1].startswith("restored ")
    assert read_tree(backed_up(tmp_path, "again")) == read_tree(backup)


def test_the_refusal_names_each_kind_with_counts_and_the_first_ids(tmp_path):
    backup = backed_up(tmp_path)
    for number in range(1, 8):
        add_draft(f"IL-90{number:02}")
    add_draft("IL-9100")
    services.delete_cases(["IL-9100"])  # its history row stays
    retract_0432()
    Term.objects.create(facet=Facet.ROOT_CAUSE, slug="added-later", name="Added later", description="x")

    with pytest.raises(CommandError) as refused:
        call_command("import_cases", "--restore", str(backup))

    assert str(refused.value) == (
        "restore refused: the database holds what the backup does not: 7 cases (IL-9001, IL-9002, "
        "IL-9003, IL-9004, IL-9005 and 2 more) with 7 history rows, 1 history row of 1 deleted case "
        "(IL-9100), changes made after the backup to 1 case it holds (IL-0432: 1 history row the backup "
        "lacks) and 1 vocabulary term (root cause added-later). "
        + WAYS_FORWARD.format(drops="deletes them and drops those changes")
    )
    assert "$" not in str(refused.value)


def test_restore_names_the_one_option_it_takes(tmp_path):
    backup = backed_up(tmp_path)
    with pytest.raises(CommandError) as refused:
        call_command("import_cases", "--restore", str(backup), "--vocab", "x.json")
    takes = "--restore takes one backup folder and no option but --replace"
    assert str(refused.value) == f"{takes}; leave out --vocab"

    with pytest.raises(CommandError) as refused:
        call_command("import_cases", "--restore", str(backup), "--dry-run", "--neighbours-later", "--replace")
    assert str(refused.value) == f"{takes}; leave out --dry-run and --neighbours-later"

    with pytest.raises(CommandError) as refused:
        call_command("import_cases", "--restore", str(backup), str(tmp_path / "other"))
    assert str(refused.value) == f"{takes}; 2 paths were given ({backup} {tmp_path / 'other'})"
