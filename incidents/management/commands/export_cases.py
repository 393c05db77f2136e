from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from incidents.exporting import export_to_directory, export_vocabulary


class Command(BaseCommand):
    help = (
        "Write every case as <id>.json (the case schema document) into DIR and, with --vocab, "
        "the vocabulary as a definitions file; import_cases --vocab FILE DIR reads both back."
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

    def handle(self, *args, directory: Path, vocab: Path | None, **options):
        if directory.exists() and not directory.is_dir():
            raise CommandError(f"{directory} exists and is not a folder")
        if vocab is not None and vocab.resolve().is_relative_to(directory.resolve()):
            # import_cases reads every *.json under DIR as a case.
            raise CommandError("write the vocabulary file outside the cases folder")
        written = export_to_directory(directory)
        self.stdout.write(f"exported {len(written)} case(s) to {directory}")
        if vocab is not None:
            terms = export_vocabulary(vocab)
            self.stdout.write(f"exported {terms} vocabulary term(s) to {vocab}")
