"""Importing case files: `import_case_files` validates every file, then writes them all in
one transaction or nothing; with `new_only` or `seed` the documents the library holds are
left out or kept as stored. New cases that look like stored ones are warned of.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from contextlib import nullcontext
from pathlib import Path

from django.db import transaction

from .. import duplicates, history, seeding
from ..collector import set_aside_while
from ..documents import normalized_document
from ..id_lists import ids_in
from ..locking import serialize_case_writes
from ..models import Case, Term
from ..problems import CaseImportError, ImportProblem
from ..search import candidate_cases, deferred, profiles, word_statistics
from ..validation import LoadedDocument, expand_paths, load_documents, schema_problems, validate_batch
from ..vocabulary import VocabularyDefinitions, load_vocabulary
from .definitions import changed_definitions
from .preparing import Preparer, _plan
from .results import ImportResult
from .second_process import second_process
from .writing import write_documents


def import_case_files(
    *,
    paths: Iterable[str | Path],
    vocab_paths: Iterable[str | Path] = (),
    dry_run: bool = False,
    strict: bool = False,
    defer_neighbours: bool = False,
    new_only: bool = False,
    seed: bool = False,
) -> ImportResult:
    """Validate and import case JSON files (files or folders) with optional vocabulary files.

    Raises CaseImportError listing every problem (file, JSON path, message); nothing is
    written then. With `dry_run` everything is validated and nothing is written. A new case
    that looks like a stored one (`duplicates.batch_duplicates`: the same source URL or
    near-identical text) is a warning naming both ids; with `strict` it is a problem.
    With `defer_neighbours`, an import that changes most of the library leaves the passage
    embeddings and the similar-case lists to `search.index.finish_pending` (see
    `search/deferred.py`).

    With `new_only` the files seed the library rather than replace it: a document whose id
    the library holds (any status, a merged-away id included) and a definition of a term it
    holds (`_held_terms`) are left out before validation, so what editors did to them is
    kept; they are counted in the result's `skipped`, `skipped_merged` and `terms_skipped`.
    The rest is imported as without it, all or nothing.

    With `seed` (how `make data` imports the bundled files) a document replaces its stored
    case only while nobody changed that case here since an import last wrote it
    (`seeding.split_held`: its latest history row is an import); a case changed since (an
    edit, a retraction, a merge, an accepted correction) is left as stored and listed in
    the result's `kept`, with whether its file changed since that import. Which cases are
    kept is decided again under the write lock, so an edit saved meanwhile is not
    overwritten. Held terms are left out as with `new_only` (terms keep no history). The
    rest is imported all or nothing; a kept case's file never refuses the import.
    """
    if new_only and seed:
        raise ValueError("new_only and seed exclude each other")
    paths = [Path(path) for path in paths]
    problems: list[ImportProblem] = []
    definitions = VocabularyDefinitions()
    for vocab_path in vocab_paths:
        loaded, found = load_vocabulary(Path(vocab_path))
        definitions.terms.extend(loaded.terms)
        problems.extend(found)
    vocabulary_ok = not problems
    files, found = expand_paths(paths)
    problems.extend(found)
    if not files and not problems:
        problems.append(ImportProblem(", ".join(str(p) for p in paths), "$", "no case JSON files found"))
    items, found = load_documents(files)
    problems.extend(found)
    skipped: tuple[str, ...] = ()
    skipped_merged: dict[str, str] = {}
    terms_skipped = 0
    held: list[seeding.Held] = []
    if new_only:
        items, skipped, skipped_merged = _not_held(items)
    if seed:
        items, held = seeding.split_held(items)
    if new_only or seed:
        definitions, terms_skipped = _not_held_terms(definitions)
    # Documents that parsed are checked even when others did not, so one run reports all;
    # with a broken vocabulary file every term would look unknown, so their terms wait for a fix.
    problems.extend(validate_batch(items, definitions, vocabulary=vocabulary_ok))
    if problems:
        raise CaseImportError(problems)
    if dry_run:
        plan = _plan(items, Preparer.load(definitions))
        created = set(plan.created)  # once: per document it was O(N²) (55 s at 10,000 cases)
        texts = _checked_for_duplicates([i for i in items if i.document["id"] in created], strict=strict)
        return ImportResult(
            created=plan.created,
            updated=plan.updated,
            unchanged=plan.unchanged,
            terms_written=0,
            warnings=texts,
            skipped=skipped,
            skipped_merged=skipped_merged,
            terms_skipped=terms_skipped,
            kept=_kept_cases(held, definitions) if seed else (),
        )
    with (
        # The loaded documents live for the whole import, yet every full collection walked
        # all of them (and each batch's model objects) again: about a sixth of 10,000 cases.
        set_aside_while(),
        deferred.later() if defer_neighbours else nullcontext(),
        # The duplicate check counts the new accounts' words; their profiles take them.
        profiles.accounts_kept(),
        transaction.atomic(),
    ):
        # The duplicate check and the neighbour update read the same published profiles:
        # read once, under the write lock, so that nothing changes them in between (reading
        # them twice was a quarter of importing 10 cases into 20,000). Not shared when
        # vocabulary files change terms the profiles name (the update reads them again; a
        # file whose terms are stored as it says changes none) or a full rebuild is pending
        # (no update): the check then reads accounts only. The check runs while the lock is
        # held, so another writer waits for it too.
        serialize_case_writes()
        kept: tuple[seeding.KeptCase, ...] = ()
        if seed:
            # Validated above, decided again here: a case edited since then is kept too.
            items, edited_meanwhile = seeding.split_held(items)
            kept = _kept_cases([*held, *edited_meanwhile], definitions)
        # The duplicate check needs only which documents are new cases (one query); the whole
        # plan, every document prepared and compared with its stored case, is made once, by
        # `write_documents` (making it here too was a fourteenth of a first import).
        stored = set(
            Case.objects.filter(id__in=ids_in([item.document["id"] for item in items])).values_list(
                "id", flat=True
            )
        )
        new_items = [item for item in items if item.document["id"] not in stored]
        # A large library is not read whole: the check and the update read candidates.
        whole = not word_statistics.in_use(len(new_items), candidate_cases.KEPT)
        shared = whole and not changed_definitions(definitions) and not deferred.pending()
        before = profiles.published(account_only=not shared) if new_items and whole else None
        with second_process(len(new_items)) as pool:
            # On a large import the text comparison runs in a second process while this one
            # writes; a --strict refusal found then rolls the writes back.
            checked = _checked_for_duplicates_later(new_items, strict=strict, published=before, pool=pool)
            if not shared:
                before = None  # not held through the writes
            result = write_documents(items, definitions, reason=history.IMPORT, published_before=before)
            texts = checked()
        return dataclasses.replace(
            result,
            warnings=texts,
            skipped=skipped,
            skipped_merged=skipped_merged,
            terms_skipped=terms_skipped,
            kept=kept,
        )


def _kept_cases(held: list[seeding.Held], definitions: VocabularyDefinitions) -> tuple[seeding.KeptCase, ...]:
    """The `held` cases (`seeding.split_held`) in the order of their files' paths, each with
    whether its file changed since the case's last import (`seeding.KeptCase`): the file,
    prepared as import prepares it, differs from the document of that import and from the
    stored case. Only the schema is checked, not the vocabulary: a file naming a term a
    reviewer renamed since still matches its last import, which named the same term. A file
    the schema refuses counts as changed, as nothing tells; a merged-away id's file is not
    read."""
    readable = [entry.item for entry in held if entry.status != Case.Status.MERGED]
    invalid = {problem.file for item in readable for problem in schema_problems(item)}
    plan = _plan([item for item in readable if item.file not in invalid], Preparer.load(definitions))
    imported = seeding.last_imported_documents(plan.updated)
    changed = {item.file for item in readable if item.file in invalid}
    changed |= {
        item.file
        for item in plan.to_write
        if normalized_document(item.document) != imported.get(item.document["id"])
    }
    return tuple(
        seeding.KeptCase(
            case_id=entry.case_id,
            file=entry.item.file,
            status=entry.status,
            merged_into=entry.merged_into,
            last_change=entry.last_change,
            file_changed=entry.item.file in changed,
        )
        for entry in sorted(held, key=lambda entry: entry.item.file)
    )


def _not_held(items: list[LoadedDocument]) -> tuple[list[LoadedDocument], tuple[str, ...], dict[str, str]]:
    """`items` without the documents whose id names a stored case, whatever its status;
    those ids (in file order) and, of them, the merged-away ones mapped to the case each
    was merged into. A document without a string id stays, for validation to report. One
    query."""

    def id_of(item: LoadedDocument) -> str | None:
        case_id = item.document.get("id") if isinstance(item.document, dict) else None
        return case_id if isinstance(case_id, str) else None

    ids = [case_id for item in items if (case_id := id_of(item)) is not None]
    held = {
        case_id: merged_into if status == Case.Status.MERGED else None
        for case_id, status, merged_into in Case.objects.filter(id__in=ids).values_list(
            "id", "status", "merged_into_id"
        )
    }
    skipped = tuple(dict.fromkeys(case_id for case_id in ids if case_id in held))
    merged = {case_id: into for case_id in skipped if (into := held[case_id]) is not None}
    return [item for item in items if id_of(item) not in held], skipped, merged


def _not_held_terms(definitions: VocabularyDefinitions) -> tuple[VocabularyDefinitions, int]:
    """`definitions` without those of a term the library holds: a stored term of the same
    facet with the definition's slug or its name (a reviewer may have changed either in
    the admin; writing the definition would undo that or collide with the renamed term).
    Returns the rest and how many were left out. One query."""
    if not definitions.terms:
        return definitions, 0
    slugs: set[tuple[str, str]] = set()
    names: set[tuple[str, str]] = set()
    for facet, slug, name in Term.objects.filter(facet__in={d.facet for d in definitions.terms}).values_list(
        "facet", "slug", "name"
    ):
        slugs.add((facet, slug))
        names.add((facet, name))
    kept = [d for d in definitions.terms if (d.facet, d.slug) not in slugs and (d.facet, d.name) not in names]
    return VocabularyDefinitions(terms=kept), len(definitions.terms) - len(kept)


def _checked_for_duplicates(
    new_items: list[LoadedDocument], *, strict: bool, published: list[profiles.Profile] | None = None
) -> tuple[str, ...]:
    """The duplicate warnings of `new_items` (`_duplicate_warnings`); with `strict` any
    of them raises CaseImportError instead (nothing written). `published`: every published
    profile, when the caller read them already."""
    return _checked_for_duplicates_later(new_items, strict=strict, published=published)()


def _checked_for_duplicates_later(
    new_items: list[LoadedDocument],
    *,
    strict: bool,
    published: list[profiles.Profile] | None = None,
    pool: Executor | None = None,
) -> Callable[[], tuple[str, ...]]:
    """`_checked_for_duplicates` in two steps (`duplicates.batch_duplicates_later`: with
    `pool` the text comparison runs in that second process meanwhile): the function
    returned gives the warnings, or raises CaseImportError with `strict`."""
    finish = duplicates.batch_duplicates_later(
        [item.document for item in new_items], published=published, pool=pool
    )

    def checked() -> tuple[str, ...]:
        found = finish()
        warnings = [
            (
                item.file,
                f"{item.document['id']} looks like {', '.join(str(d) for d in found[item.document['id']])}",
            )
            for item in new_items
            if item.document["id"] in found
        ]
        if strict and warnings:
            raise CaseImportError(
                [
                    ImportProblem(file, "$", f"possible duplicate (--strict): {text}")
                    for file, text in warnings
                ]
            )
        return tuple(text for _, text in warnings)

    return checked
