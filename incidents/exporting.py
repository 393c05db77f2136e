"""Export: every case as its schema document, one file per case or one JSON Lines stream,
and the vocabulary as a definitions file (`fixtures/vocab.json`'s shape) that imports back.
`export_cases` (the command's) reads both from one snapshot of the database, as a backup does."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .documents import CaseDocument, case_document, dumps_document
from .folder_swap import a_plain_file, not_written_by, shown, written_beside
from .models import ALIAS_FACETS, Case, CaseQuerySet, Facet, Term
from .snapshot import one_snapshot
from .vocabulary import FILE_KEYS

EXPORT_BATCH_SIZE = 200


def iter_documents(
    queryset: CaseQuerySet | None = None, *, build: Callable[[Case], CaseDocument] = case_document
) -> Iterator[CaseDocument]:
    """Yield case documents (`build` of each case, as stored by default) in id order,
    reading `EXPORT_BATCH_SIZE` cases at a time.

    Memory stays bounded by one batch whatever the number of cases.
    """
    cases = (queryset if queryset is not None else Case.objects.all()).order_by("id")
    last_id = ""
    while True:
        batch = list(cases.filter(id__gt=last_id).with_document()[:EXPORT_BATCH_SIZE])
        if not batch:
            return
        for case in batch:
            yield build(case)
        last_id = batch[-1].id


class ExportRefused(Exception):
    """`export_folder` will not write into this folder (the message says why and what to do)."""


def export_folder(directory: Path) -> int:
    """Write every case but the merged-away ones as `<id>.json` so that `directory` holds
    exactly the cases stored now; returns how many. A merged-away case lives on as the case
    it was merged into: its document (status `merged`, which the case schema does not
    take) would make a later `import_cases DIR` refuse the whole folder. A backup keeps it
    (`backup.py`, with the merge in its editorial lines).

    Written into a new sibling folder that then takes the place of `directory`
    (`folder_swap.written_beside`), as backups are: the file of a case deleted or merged
    away since an earlier export there does not stay behind for a later `import_cases
    DIR` to bring back, and a failed export leaves the earlier one as it was. Raises
    ExportRefused, writing nothing, when `directory` holds anything but `*.json` files
    (what an export writes): it is not replaced.
    """
    directory = directory.resolve()
    foreign = not_written_by(directory, lambda entry: a_plain_file(entry, ".json"))
    if foreign:
        raise ExportRefused(
            f"{directory} holds what no export writes ({shown(foreign)}); an export replaces the "
            "folder it is written to: give a new or empty folder, or one holding an earlier export"
        )
    with written_beside(directory) as staging:
        written = export_to_directory(staging, Case.objects.exclude(status=Case.Status.MERGED))
    return len(written)


@dataclass(frozen=True)
class ExportSummary:
    cases: int  # case files written
    terms: int | None  # terms in the vocabulary file; None when none was asked for


def export_cases(directory: Path, vocab: Path | None = None) -> ExportSummary:
    """`export_folder(directory)` and, when `vocab` is given, `export_vocabulary(vocab)`,
    every read from one snapshot of the database (`snapshot.one_snapshot`), as a backup's:
    a term renamed or a case written by another connection meanwhile is in neither file
    or, had it committed before the first read, in both. Read separately, a topic renamed
    after the case files were written was under its old slug in them and its new one in
    the vocabulary file, and `import_cases --vocab FILE DIR` refused the pair; the case
    batches (`EXPORT_BATCH_SIZE`) share the snapshot too. Raises ExportRefused as
    `export_folder` does, writing nothing."""
    with one_snapshot():
        cases = export_folder(directory)
        terms = export_vocabulary(vocab) if vocab is not None else None
    return ExportSummary(cases=cases, terms=terms)


def export_to_directory(directory: Path, cases: CaseQuerySet | None = None) -> list[Path]:
    """Write `<id>.json` for each of `cases` (default every case, all statuses) into
    `directory`, beside whatever it holds; returns the paths. `export_folder` is the one
    that leaves only these."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for document in iter_documents(cases):
        path = directory / f"{document['id']}.json"
        path.write_text(dumps_document(document), encoding="utf-8")
        written.append(path)
    return written


def vocabulary_document() -> dict[str, list[dict[str, Any]]]:
    """Every stored term as a definitions file: each facet's plural key (`FILE_KEYS`, every
    key present) -> terms by name, each with name, slug, description, and synonyms and
    patterns when it has some; accelerators with vendor and family (the family's name);
    error codes with vendor and source_url. Two queries, from one snapshot of the database
    (`snapshot.one_snapshot`; inside `export_cases`' own, its): `GET /api/export/vocab` read
    them apart, so an accelerator family renamed between the two was under its old name in
    its models' `family` and its new one as a term (a file `import_cases --vocab` refuses),
    and a model added with a new family meanwhile was a KeyError. `import_cases --vocab`
    reads it back to the same terms."""
    with one_snapshot():
        names = accelerator_names()
        terms = list(Term.objects.order_by("facet", "name"))
    document: dict[str, list[dict[str, Any]]] = {key: [] for key in FILE_KEYS}
    keys = {facet: key for key, facet in FILE_KEYS.items()}
    for term in terms:
        entry: dict[str, Any] = {"name": term.name, "slug": term.slug, "description": term.description}
        if term.facet == Facet.ACCELERATOR:
            entry["vendor"] = term.vendor
            if term.family_id is not None:
                entry["family"] = names[term.family_id]
        if term.facet == Facet.ERROR_CODE:
            entry["vendor"] = term.vendor
            entry["source_url"] = term.source_url
        if term.synonyms:
            entry["synonyms"] = list(term.synonyms)
        if term.patterns and term.facet not in ALIAS_FACETS:
            entry["patterns"] = list(term.patterns)
        document[keys[Facet(term.facet)]].append(entry)
    return document


def accelerator_names() -> dict[int, str]:
    """Accelerator term id -> name: the names of the families `vocabulary_document` writes."""
    return dict(Term.objects.filter(facet=Facet.ACCELERATOR).values_list("id", "name"))


def export_vocabulary(path: Path) -> int:
    """Write `vocabulary_document()` to `path` as JSON; returns how many terms."""
    document = vocabulary_document()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return sum(len(terms) for terms in document.values())
