from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from incidents.backup import BackupRefused, export_backup
from incidents.database_ready import require_tables
from incidents.exporting import ExportRefused, export_cases


class Command(BaseCommand):
    help = (
        "Write every case as <id>.json (the case schema document) into DIR and, with --vocab, "
        "the vocabulary as a definitions file, both read from one snapshot of the database; "
        "import_cases --vocab FILE DIR reads both back. "
        "DIR then holds exactly the cases stored now: an earlier export there is replaced whole "
        "once the new one is written (a folder holding anything but .json files is refused). "
        "With --backup, a whole backup instead: cases/, vocab.json, editorial.jsonl and "
        "history.jsonl (restore it with import_cases --restore DIR)."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory", type=Path)
        parser.add_argument(
            "--vocab",
            type=Path,
            default=None,
            metavar="FILE",
            help="also write every vocabulary term (fixtures/vocab.json style) to FILE, outside DIR",
        )
        parser.add_argument(
            "--backup",
            action="store_true",
            help="also the vocabulary, each case's editorial state and every history row; DIR then "
            "holds exactly this backup: an earlier backup there is replaced whole once the new one "
            "is written (a folder holding anything else is refused)",
        )

    def handle(self, *args, directory: Path, vocab: Path | None, backup: bool, **options):
        if directory.exists() and not directory.is_dir():
            raise CommandError(f"{directory} exists and is not a folder")
        require_tables()
        if backup:
            if vocab is not None:
                raise CommandError("--backup writes the vocabulary itself (vocab.json); leave out --vocab")
            try:
                summary = export_backup(directory)
            except BackupRefused as exc:
                raise CommandError(str(exc)) from exc
            self.stdout.write(
                f"backed up {summary.cases} case(s), {summary.terms} term(s) and "
                f"{summary.history_rows} history row(s) to {directory}"
            )
            return
        if vocab is not None and vocab.resolve().is_relative_to(directory.resolve()):
            # import_cases reads every *.json under DIR as a case.
            raise CommandError("write the vocabulary file outside the cases folder")
        try:
            exported = export_cases(directory, vocab)
        except ExportRefused as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"exported {exported.cases} case(s) to {directory}")
        if vocab is not None:
            self.stdout.write(f"exported {exported.terms} vocabulary term(s) to {vocab}")
