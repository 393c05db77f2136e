"""What an import did (`ImportResult`): the cases it created, updated or found unchanged,
and what it left out or kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import seeding


@dataclass(frozen=True)
class ImportResult:
    """What `import_case_files` (or `write_documents`) did: the ids of the cases created,
    updated and left unchanged (each in file order) and how many vocabulary terms were
    written; with `dry_run`, what it would do (`terms_written` 0). The fields below are
    import's alone (`write_documents` leaves them empty)."""

    created: list[str]
    updated: list[str]
    unchanged: list[str]
    terms_written: int
    # "IL-0999 looks like IL-0428 (same source URL ...)": new cases resembling stored ones.
    warnings: tuple[str, ...] = ()
    # With `new_only`: the ids of the documents left out because the library holds them,
    # those merged away mapped to the case each was merged into, and how many vocabulary
    # definitions were left out for a term the library holds.
    skipped: tuple[str, ...] = ()
    skipped_merged: dict[str, str] = field(default_factory=dict)
    terms_skipped: int = 0
    # With `seed`: the held cases left as stored because they were changed here since their
    # last import (a merged-away id among them), in file order.
    kept: tuple[seeding.KeptCase, ...] = ()
