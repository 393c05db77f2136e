from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from incidents.overlap import DEFAULT_MIN_WORDS, case_overlaps
from incidents.overlap_record import OverlapRow, read_record, write_record


class Command(BaseCommand):
    help = (
        "Flag runs of 8 or more words that a case shares with the source text its writer saved "
        "(<sources>/<CASE-ID>.txt). Exits non-zero when any case is flagged."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", help="case JSON files or folders of them")
        parser.add_argument("--sources", required=True, help="folder of <CASE-ID>.txt source texts")
        parser.add_argument("--min-words", type=int, default=DEFAULT_MIN_WORDS)
        parser.add_argument(
            "--record",
            metavar="TSV",
            help="update this record (fixtures/overlap.tsv) with each checked case's outcome",
        )

    def handle(self, *args, paths, sources, min_words, record, **options):
        sources_dir = Path(sources)
        files: list[Path] = []
        for raw in paths:
            path = Path(raw)
            files.extend(sorted(path.glob("*.json")) if path.is_dir() else [path])
        flagged = checked = 0
        recorded = read_record(Path(record)) if record else {}
        today = date.today().isoformat()
        for path in files:
            source = sources_dir / f"{path.stem}.txt"
            if not source.exists():
                continue
            checked += 1
            document = json.loads(path.read_text(encoding="utf-8"))
            source_text = source.read_text(encoding="utf-8")
            runs = case_overlaps(document, source_text, min_words=min_words)
            recorded[path.stem] = OverlapRow.of(
                path.stem, source_text, min_words=min_words, shared_runs=len(runs), checked_on=today
            )
            for run in runs:
                flagged += 1
                self.stdout.write(f"{path.stem}: {len(run.words)} words shared: “{run}”")
        without = len(files) - checked
        if record:
            write_record(Path(record), recorded)
        self.stderr.write(f"checked {checked} case(s) against saved sources; {without} without one")
        if flagged:
            raise CommandError(f"{flagged} shared run(s) of {min_words}+ words")
