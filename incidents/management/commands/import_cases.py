from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from incidents.backup import restore_backup
from incidents.problems import CaseImportError
from incidents.services import import_case_files


class Command(BaseCommand):
    help = (
        "Validate and import case JSON documents (files or folders). All or nothing: any "
        "problem is reported with file and JSON path, and nothing is written."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", help="case JSON files or folders of them")
        parser.add_argument(
            "--restore",
            action="store_true",
            help="PATHS is one folder written by export_cases --backup: restore its cases, "
            "vocabulary, editorial state and history (all or nothing)",
        )
        parser.add_argument(
            "--vocab",
            action="append",
            default=[],
            metavar="FILE",
            help="vocabulary definitions (fixtures/vocab.json style) to create or update terms",
        )
        parser.add_argument("--dry-run", action="store_true", help="validate only, write nothing")
        parser.add_argument(
            "--strict",
            action="store_true",
            help="refuse the import when a new case looks like a stored one (same source URL or "
            "near-identical text) instead of warning",
        )

    def handle(self, *args, paths, vocab, dry_run, strict, restore, **options):
        if restore:
            self._restore(paths, vocab=vocab, dry_run=dry_run, strict=strict)
            return
        try:
            result = import_case_files(paths=paths, vocab_paths=vocab, dry_run=dry_run, strict=strict)
        except CaseImportError as exc:
            for problem in exc.problems:
                self.stderr.write(str(problem))
            raise CommandError(
                f"import refused: {len(exc.problems)} problem(s); nothing was written"
            ) from exc
        for warning in result.warnings:
            self.stderr.write(f"warning: possible duplicate: {warning}")
        verb = "would import" if dry_run else "imported"
        total = len(result.created) + len(result.updated) + len(result.unchanged)
        self.stdout.write(
            f"{verb} {total} case(s): {len(result.created)} new, {len(result.updated)} updated, "
            f"{len(result.unchanged)} unchanged"
        )

    def _restore(self, paths, *, vocab, dry_run, strict) -> None:
        if len(paths) != 1 or vocab or dry_run or strict:
            raise CommandError("--restore takes one backup folder and no other option")
        try:
            summary = restore_backup(Path(paths[0]))
        except CaseImportError as exc:
            for problem in exc.problems:
                self.stderr.write(str(problem))
            raise CommandError(
                f"restore refused: {len(exc.problems)} problem(s); nothing was written"
            ) from exc
        self.stdout.write(
            f"restored {summary.cases} case(s), {summary.terms} term(s) and "
            f"{summary.history_rows} history row(s)"
        )
