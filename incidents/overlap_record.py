"""The kept record of copied-wording checks (`fixtures/overlap.tsv`).

Source texts stay out of the repository (their licences are the publishers'), so the outcome of
each check is what the repository keeps: per case, a fingerprint of the source text the check
read, its length in words, the shared runs found and the day. A row is rewritten whenever
`check_overlap --record` checks that case again; rows of cases not checked this time stay.
"""

from __future__ import annotations

import csv
import hashlib
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from incidents.overlap import words_of


@dataclass(frozen=True)
class OverlapRow:
    """One case's latest check: `source_sha256` is the first 16 hex digits of the SHA-256 of
    the UTF-8 source text; `source_words` counts its words as the checker splits them;
    `shared_runs` is how many runs of `min_words`+ words the case shared with it."""

    case: str
    source_sha256: str
    source_words: int
    min_words: int
    shared_runs: int
    checked_on: str  # ISO date

    @classmethod
    def of(cls, case: str, source: str, *, min_words: int, shared_runs: int, checked_on: str) -> OverlapRow:
        return cls(
            case=case,
            source_sha256=hashlib.sha256(source.encode("utf-8")).hexdigest()[:16],
            source_words=len(words_of(source)),
            min_words=min_words,
            shared_runs=shared_runs,
            checked_on=checked_on,
        )


COLUMNS = [f.name for f in fields(OverlapRow)]


def read_record(path: Path) -> dict[str, OverlapRow]:
    """Rows of the record at `path` by case id; empty when the file does not exist."""
    if not path.exists():
        return {}
    with path.open(encoding="utf-8", newline="") as handle:
        rows = csv.DictReader(handle, delimiter="\t")
        return {
            row["case"]: OverlapRow(
                case=row["case"],
                source_sha256=row["source_sha256"],
                source_words=int(row["source_words"]),
                min_words=int(row["min_words"]),
                shared_runs=int(row["shared_runs"]),
                checked_on=row["checked_on"],
            )
            for row in rows
        }


def write_record(path: Path, rows: dict[str, OverlapRow]) -> None:
    """Write `rows` to `path`, sorted by case id, tab-separated with a header line."""
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, delimiter="\t", lineterminator="\n")
        writer.writeheader()
        for case in sorted(rows):
            writer.writerow(asdict(rows[case]))
