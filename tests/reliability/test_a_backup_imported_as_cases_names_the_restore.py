"""A backup folder given to a plain `import_cases` is refused, naming `--restore`: read as
cases, its vocab.json was refused as a case document ("missing required field"), and a
user had to guess that backups come back another way."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from incidents.models import Case

pytestmark = pytest.mark.django_db


def test_a_plain_import_of_a_backup_folder_says_to_restore_it(tmp_path, capsys):
    folder = tmp_path / "nightly"
    call_command("export_cases", str(folder), "--backup")
    cases, history = Case.objects.count(), Case.history.count()

    with pytest.raises(CommandError, match="import refused: 1 problem"):
        call_command("import_cases", str(folder))

    assert capsys.readouterr().err.splitlines()[-1] == (
        f"{folder}: $: a backup folder written by `export_cases --backup`: restore it with "
        f"`manage.py import_cases --restore {folder}`"
    )
    assert (Case.objects.count(), Case.history.count()) == (cases, history)


def test_its_cases_folder_alone_still_imports(tmp_path, capsys):
    folder = tmp_path / "nightly"
    call_command("export_cases", str(folder), "--backup")
    call_command("import_cases", str(folder / "cases"))
    assert f"{Case.objects.count()} unchanged" in capsys.readouterr().out
