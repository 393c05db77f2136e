from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from incidents.library_summary import current_block, render, replace_block, summarize


class Command(BaseCommand):
    help = (
        "Print the library's figures (cases, topics, organizations, accelerators, sources) computed "
        "from the case files, as the README block; --write FILE rewrites the block between the "
        "library-summary markers in FILE, --check FILE fails when that block is stale."
    )

    def add_arguments(self, parser):
        fixtures = Path(settings.FIXTURES_DIR)
        parser.add_argument(
            "--cases", type=Path, default=fixtures / "cases", help="folder of case JSON files"
        )
        parser.add_argument("--vocab", type=Path, default=fixtures / "vocab.json", help="vocabulary file")
        target = parser.add_mutually_exclusive_group()
        target.add_argument("--write", type=Path, metavar="FILE", help="rewrite the block in FILE")
        target.add_argument("--check", type=Path, metavar="FILE", help="fail when FILE's block is stale")

    def handle(self, *args, cases: Path, vocab: Path, write: Path | None, check: Path | None, **options):
        if not cases.is_dir():
            raise CommandError(f"{cases} is not a folder")
        block = render(summarize(cases, vocab))
        target = write or check
        if target is None:
            self.stdout.write(block)
            return
        try:
            text = target.read_text(encoding="utf-8")
            if check is not None:
                if current_block(text) != block:
                    raise CommandError(f"{check}: the library summary is stale; run with --write {check}")
                self.stdout.write(f"{check}: the library summary is up to date")
                return
            updated = replace_block(text, block)
        except (OSError, ValueError) as exc:
            raise CommandError(f"{target}: {exc}") from exc
        if updated != text:
            target.write_text(updated, encoding="utf-8")
        self.stdout.write(f"{target}: library summary {'rewritten' if updated != text else 'unchanged'}")
