"""Writes to the case store. Import is all-or-nothing: validate everything, then write in
one transaction; any problem raises `CaseImportError` and leaves the database untouched.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
from collections.abc import Collection, Iterable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from django.db import transaction
from django.utils import timezone

from . import duplicates, history, seeding, store_cache, workflow
from .affected import ComponentIndex, normalised_range
from .bulk_sql import insert_rows
from .codes import CodeVocabulary, case_text
from .collector import set_aside_while
from .document_model import case_model
from .documents import case_document, normalized_document
from .id_lists import ids_in
from .line_endings import unix_newlines, with_unix_newlines
from .locking import serialize_case_writes
from .models import (
    ALIAS_FACETS,
    Case,
    CaseKey,
    CaseRelation,
    CaseTerm,
    Facet,
    ScaleColumn,
    ScaleRow,
    ScaleTable,
    Source,
    Term,
)
from .problems import CaseImportError, ImportProblem
from .references import case_keys, normalised_reference
from .search import candidate_cases, deferred, index, profiles, word_statistics
from .selectors.spelling import spelling_key
from .term_spellings import TermSpellings
from .validation import (
    LoadedDocument,
    alias_references,
    expand_paths,
    load_documents,
    schema_problems,
    term_references,
    validate_batch,
)
from .vocabulary import TermDefinition, VocabularyDefinitions, load_vocabulary, reference_of


@dataclass(frozen=True)
class ImportResult:
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
        texts = _checked_for_duplicates(new_items, strict=strict, published=before)
        if not shared:
            before = None  # not held through the writes
        result = write_documents(items, definitions, reason=history.IMPORT, published_before=before)
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
    warnings = _duplicate_warnings(new_items, published)
    if strict and warnings:
        raise CaseImportError(
            [ImportProblem(file, "$", f"possible duplicate (--strict): {text}") for file, text in warnings]
        )
    return tuple(text for _, text in warnings)


def _duplicate_warnings(
    new_items: list[LoadedDocument], published: list[profiles.Profile] | None = None
) -> list[tuple[str, str]]:
    """(file, "IL-0999 looks like IL-0428 (same source URL ...)") for new cases that look
    like stored ones (`published`: the published profiles, when read already)."""
    found = duplicates.batch_duplicates([item.document for item in new_items], published=published)
    return [
        (
            item.file,
            f"{item.document['id']} looks like {', '.join(str(d) for d in found[item.document['id']])}",
        )
        for item in new_items
        if item.document["id"] in found
    ]


@dataclass(frozen=True)
class _ImportPlan:
    """Which documents create a case, replace one, or equal what is stored already."""

    created: list[str]
    updated: list[str]
    unchanged: list[str]
    to_write: list[LoadedDocument]
    derived: dict[str, list[str]]  # case id -> its error codes found by their patterns


@dataclass(frozen=True)
class Preparer:
    """Import's normalisation of a valid document before it is compared and written:
    every line break as `\\n` (`line_endings`: a browser sends a textarea's as CRLF, so an
    admin form saved untouched is no change), `symptoms.error_codes` by name plus the codes
    its text shows (`codes.CodeVocabulary`), `affected` components by name and every range
    spelled out, `references` spelled out with `id` filled from the URL, the other
    term-valued fields by their terms' references (`term_spellings`: a synonym by its term).
    Export writes documents in this form, so re-importing an export changes nothing."""

    codes: CodeVocabulary
    components: ComponentIndex
    spellings: TermSpellings

    @classmethod
    def load(cls, definitions: VocabularyDefinitions | None = None) -> Preparer:
        """From the stored vocabulary and `definitions` (three queries)."""
        return cls(
            CodeVocabulary.load(definitions),
            ComponentIndex.load(definitions),
            TermSpellings.load(definitions),
        )

    def __call__(
        self, document: dict[str, Any], derived_before: Collection[str] = ()
    ) -> tuple[dict[str, Any], list[str]]:
        """The prepared document and the names of its derived error codes (`derived_before`:
        the case's codes stored as derived, see `CodeVocabulary.split`)."""
        document = self.spellings.normalised(with_unix_newlines(document))
        stated, derived = self.codes.split(document, derived_before)
        prepared = dict(document)
        prepared["symptoms"] = {**document["symptoms"], "error_codes": [*stated, *derived]}
        prepared["affected"] = [normalised_range(a, self.components) for a in document.get("affected", [])]
        prepared["references"] = [normalised_reference(r) for r in document.get("references", [])]
        return prepared, derived


def _plan(items: list[LoadedDocument], prepare: Preparer) -> _ImportPlan:
    stored_cases = list(Case.objects.filter(id__in=ids_in([i.document["id"] for i in items])).with_document())
    stored = {case.id: dict(case_document(case)) for case in stored_cases}
    derived_before = {
        case.id: {link.term.name for link in case.term_links.all() if link.derived} for case in stored_cases
    }
    plan = _ImportPlan(created=[], updated=[], unchanged=[], to_write=[], derived={})
    for item in items:
        case_id = item.document["id"]
        document, plan.derived[case_id] = prepare(item.document, derived_before.get(case_id, ()))
        item = LoadedDocument(item.file, document)
        # Only a stored case can be unchanged: a new one is normalised once, by `_write_cases`
        # (normalising every document here too was a twentieth of a first import).
        if case_id in stored and stored[case_id] == normalized_document(item.document):
            plan.unchanged.append(case_id)
            continue
        (plan.updated if case_id in stored else plan.created).append(case_id)
        plan.to_write.append(item)
    return plan


@transaction.atomic
def write_documents(
    items: list[LoadedDocument],
    definitions: VocabularyDefinitions,
    *,
    user: history.User = None,
    reason: str = "",
    published_before: list[profiles.Profile] | None = None,
) -> ImportResult:
    """Write validated documents and definitions; the same id again replaces that case.

    A document equal to what is stored is left alone, so re-importing the same files keeps
    each case's `modified` time (the change feed stays meaningful) and its derived data.
    The changed cases' index rows and similar-case neighbours are updated here, inside the
    transaction (`refresh_derived`); each written case gets a history row (`history.record`)
    naming `user` and `reason`. Only the definitions that differ from the stored terms are
    written (`changed_definitions`); a stored case not imported that shows a term one of
    them renames gets its `modified` moved and a history row (`_record_document_changes`).
    `published_before`: every published profile (`profiles.published`), read by the caller
    inside this transaction once it held the write lock, so that the neighbour update does
    not read the unchanged ones again; used only when no definition changes a term (the
    profiles' terms are then as they were read).
    """
    serialize_case_writes()
    changed_terms = changed_definitions(definitions)
    if changed_terms:
        published_before = None  # the terms they name change here
    renamed = _renamed_terms(changed_terms)
    shown_before = _document_digests(_cases_using(renamed)) if renamed else {}
    terms_written = _upsert_terms(changed_terms)
    stored_terms = list(Term.objects.select_related("family"))
    terms = {(t.facet, reference_of(t.facet, t.name, t.slug)): t for t in stored_terms}
    resolve = Resolver(stored_terms)
    plan = _plan(items, Preparer.load())
    created = set(plan.created)
    for start in range(0, len(plan.to_write), WRITE_BATCH):
        written = _write_cases(plan.to_write[start : start + WRITE_BATCH], terms, resolve, plan.derived)
        # History from the rows just written, not from a second read of every case: a
        # written case's document is its normalised import document (`_plan` relies on
        # the same equality to find unchanged cases).
        history.record_written(written, user=user, reason=reason, created_ids=created)
    if any(d.facet in ALIAS_FACETS for d in changed_terms):
        # New or moved spellings may change which term a stored case's organization or
        # accelerator names: bring every case's links in step.
        relink_aliases(resolve)
    changed_items = plan.to_write
    ids = [item.document["id"] for item in changed_items]
    CaseRelation.objects.filter(source_id__in=ids_in(ids)).delete()
    CaseRelation.objects.bulk_create(
        CaseRelation(source_id=item.document["id"], target_id=target, position=position)
        for item in changed_items
        for position, target in enumerate(item.document.get("related", []))
    )
    # Stored cases that show a renamed term: their documents changed without being imported.
    imported = set(ids)
    shown = {case_id: digest for case_id, digest in shown_before.items() if case_id not in imported}
    reshown = _record_document_changes(shown, user=user, reason="term renamed by a vocabulary import")
    refresh_derived([*ids, *reshown], published_before)
    return ImportResult(
        created=plan.created, updated=plan.updated, unchanged=plan.unchanged, terms_written=terms_written
    )


def refresh_derived(case_ids: list[str], published_before: list[profiles.Profile] | None = None) -> None:
    """Bring the search index and stored neighbours in step with `case_ids` (inside the
    caller's transaction, so a failed write leaves them untouched too), and retire every
    cached read of the store (`store_cache.changed`: store version, vocabulary counts).
    `published_before`: as for `write_documents`."""
    store_cache.changed(case_ids)
    index.cases_written(case_ids, published_before)


def validate_document(document: dict[str, Any], *, where: str = "document") -> list[ImportProblem]:
    """Import's own validation of one document (schema, cross-checks, vocabulary in the
    database, retired ids); `where` names it in each problem. An empty list means valid."""
    return validate_batch([LoadedDocument(where, document)], VocabularyDefinitions())


@dataclass(frozen=True)
class SaveResult:
    case_id: str
    created: bool
    changed: bool


@transaction.atomic
def save_case_document(
    document: dict[str, Any], *, user: history.User = None, reason: str = "", where: str = "document"
) -> SaveResult:
    """Validate one case document exactly as import does and write it the way import does
    (derived search data and history follow). The admin and the write API save through here.

    Raises CaseImportError (nothing written) with every problem found.
    """
    problems = validate_document(document, where=where)
    if problems:
        raise CaseImportError(problems)
    result = write_documents(
        [LoadedDocument(where, document)], VocabularyDefinitions(), user=user, reason=reason
    )
    case_id = document["id"]
    return SaveResult(
        case_id=case_id, created=case_id in result.created, changed=case_id not in result.unchanged
    )


def next_case_id() -> str:
    """The next free id (`IL-` and one more than the highest number ever used, merged ids
    included, so no id is reused). One query."""
    numbers = [int(cid.split("-", 1)[1]) for cid in Case.objects.values_list("id", flat=True)]
    return f"IL-{max(numbers, default=0) + 1:04d}"


@contextmanager
def writing_cases() -> Iterator[None]:
    """One transaction holding the case write lock (`serialize_case_writes`) from its start:
    what the caller reads inside (the write API's `If-Match` check of a case) still holds
    when the services it calls inside write, as no other writer can come in between."""
    with transaction.atomic():
        serialize_case_writes()
        yield


@transaction.atomic
def change_status(case_id: str, target: str, *, user: history.User, reason: str = "") -> Case:
    """Move a case along the workflow (`workflow.TRANSITIONS`); retracting needs a reason.

    Raises WorkflowError for a transition that does not exist or a case not to be published
    as it stands (no symptoms description: `workflow.check_publishable`), NotAllowed when
    the user lacks the role, ValueError when a retraction has no reason. The search index,
    neighbours and history follow in the same transaction.
    """
    serialize_case_writes()
    case = Case.objects.select_for_update().get(id=case_id)
    workflow.check_transition(user, case.status, target)
    if target == Case.Status.PUBLISHED:
        workflow.check_publishable(case)
    reason = unix_newlines(reason.strip())
    if target == Case.Status.RETRACTED and not reason:
        raise ValueError("a retraction needs a reason")
    case.status = target
    case.retraction_reason = reason if target == Case.Status.RETRACTED else None
    case.save(update_fields=["status", "retraction_reason", "modified"])
    if target == Case.Status.PUBLISHED and case.added is None:
        # Added at the time of this change (`modified`, which the save above set).
        Case.objects.filter(id=case.id).update(added=case.modified)
        case.added = case.modified
    refresh_derived([case.id])
    history.record(case.id, user=user, reason=reason or f"status: {target}")
    return case


@transaction.atomic
def note_in_history(case_id: str, *, user: history.User, reason: str) -> Case:
    """A history row for an editorial event that changes no field of the case (an accepted
    correction proposal: `reason` says which), at a new `modified` time like every write
    (`history`'s one write, one time): the change feed lists the case and its `ETag` moves,
    as its history page changed. Raises Case.DoesNotExist."""
    serialize_case_writes()
    case = Case.objects.select_for_update().get(id=case_id)
    case.save(update_fields=["modified"])
    store_cache.changed([case.id])
    history.record(case.id, user=user, reason=reason)
    return case


@transaction.atomic
def merge_cases(duplicate_id: str, kept_id: str, *, user: history.User, reason: str = "") -> Case:
    """Merge a duplicate into the case that stays: the duplicate becomes `merged`, its id
    redirects to `kept_id` from then on (and is never reused); ids merged into the duplicate
    earlier now point at the kept case too. Reviewers only.

    Raises NotAllowed, or WorkflowError when either case cannot take part (the same case,
    already merged, or a kept case that is not published).
    """
    if not workflow.is_reviewer(user):
        raise workflow.NotAllowed("only a reviewer may merge cases")
    if duplicate_id == kept_id:
        raise workflow.WorkflowError("a case cannot be merged into itself")
    serialize_case_writes()
    cases = {c.id: c for c in Case.objects.select_for_update().filter(id__in=[duplicate_id, kept_id])}
    for case_id in (duplicate_id, kept_id):
        if case_id not in cases:
            raise Case.DoesNotExist(f"no case {case_id!r}")
    duplicate, kept = cases[duplicate_id], cases[kept_id]
    if duplicate.status == Case.Status.MERGED:
        raise workflow.WorkflowError(f"{duplicate_id} was already merged into {duplicate.merged_into_id}")
    if kept.status != Case.Status.PUBLISHED:
        raise workflow.WorkflowError(f"the kept case must be published; {kept_id} is {kept.status}")
    duplicate.status = Case.Status.MERGED
    duplicate.merged_into = kept
    duplicate.save(update_fields=["status", "merged_into", "modified"])
    # Ids merged into the duplicate earlier now redirect to the kept case: a change of theirs
    # too, in the change feed and in their history.
    earlier = sorted(Case.objects.filter(merged_into=duplicate).values_list("id", flat=True))
    Case.objects.filter(id__in=earlier).update(merged_into=kept, modified=timezone.now())
    kept.save(update_fields=["modified"])  # the kept case changed too: mirrors refetch it
    refresh_derived([duplicate_id, kept_id])
    note = unix_newlines(reason.strip()) or "duplicate"
    history.record(duplicate_id, user=user, reason=f"merged into {kept_id}: {note}")
    history.record(kept_id, user=user, reason=f"{duplicate_id} merged into this case: {note}")
    history.record_many(
        earlier, user=user, reason=f"now redirects to {kept_id}: {duplicate_id} merged into it"
    )
    return kept


@transaction.atomic
def save_term(term: Term, *, user: history.User = None) -> Term:
    """Save one vocabulary term edited by hand (checked by `vocabulary.term_problems`); the
    cases that use it are re-indexed, since names and synonyms feed the search index. An
    organization's or accelerator's new spellings relink the cases they now name. An error
    code whose patterns changed is re-derived on every case (`rederive_error_code`) now,
    not at the next import: the cases whose text the new patterns match carry it, those it
    was only derived for and no longer match lose it (a history row each, naming `user`).
    A new name or slug rewrites the documents that show it (`_record_document_changes`:
    their `modified` moves and each gets a history row); an edit no document shows (a
    description, synonyms, a topic's name) moves no case."""
    # Terms name what an import's neighbour update reuses (`write_documents`): one writer.
    serialize_case_writes()
    stored = None
    if term.pk:
        stored = Term.objects.filter(pk=term.pk).values_list("patterns", "name", "slug").first()
    renamed = stored is not None and (stored[1], stored[2]) != (term.name, term.slug)
    term.description = unix_newlines(term.description)
    shown_before = _document_digests(_cases_using([term.pk])) if renamed else {}
    term.save()
    if term.facet in ALIAS_FACETS:
        relink_aliases()
    used_by = set(_cases_using([term.pk]))
    rederived: list[str] = []
    if term.facet == Facet.ERROR_CODE and list(term.patterns) != list(stored[0] if stored else []):
        rederived = rederive_error_code(term)
        used_by |= set(rederived)
        history.record_many(rederived, user=user, reason=f"error code {term.name}: match patterns changed")
    if renamed:
        assert stored is not None
        shown_before = {case_id: d for case_id, d in shown_before.items() if case_id not in rederived}
        _record_document_changes(shown_before, user=user, reason=f"term renamed: {stored[1]} -> {term.name}")
    refresh_derived(sorted(used_by))
    return term


def _cases_using(term_ids: Collection[int]) -> list[str]:
    """Ids of the cases linked to any of `term_ids` or having one as root cause (2 queries)."""
    linked = set(CaseTerm.objects.filter(term_id__in=term_ids).values_list("case_id", flat=True))
    linked |= set(Case.objects.filter(root_cause_category_id__in=term_ids).values_list("id", flat=True))
    return sorted(linked)


def _document_digests(case_ids: list[str]) -> dict[str, str]:
    """Case id -> sha256 of its document as served now (`history.documents_in_batches`), to
    tell afterwards which documents a vocabulary change rewrote."""
    return {
        case.id: _digest(document)
        for batch in history.documents_in_batches(case_ids)
        for case, document in batch
    }


def _digest(document: Any) -> str:
    return hashlib.sha256(orjson.dumps(document, option=orjson.OPT_SORT_KEYS)).hexdigest()


def _record_document_changes(before: dict[str, str], *, user: history.User, reason: str) -> list[str]:
    """The cases of `before` (`_document_digests`) whose documents differ now, as after a
    term was renamed: their `modified` moves (the change feed lists them, mirrors refetch
    them, an `If-Match` read before is stale) and each gets a history row with its new
    document. Returns their ids. Queries: 8 per `history.BATCH` cases, plus 2 per batch
    with a change."""
    changed: list[str] = []
    now = timezone.now()
    for batch in history.documents_in_batches(sorted(before)):
        written = [(case, document) for case, document in batch if _digest(document) != before[case.id]]
        for case, _ in written:
            case.modified = now
        if written:
            Case.objects.filter(id__in=[case.id for case, _ in written]).update(modified=now)
            history.record_written(written, user=user, reason=reason)
            changed.extend(case.id for case, _ in written)
    return changed


def rederive_error_code(term: Term) -> list[str]:
    """Bring every case's use of the error code `term` in step with its patterns: a case
    whose scanned text (`codes.case_text`) they match gets it as derived, a case it was
    derived for that they no longer match loses it; a code a case states stays. The
    changed cases' error codes are rewritten stated first, then derived in vocabulary
    order, as import writes them, and their `modified` time moves (their documents changed:
    the change feed lists them, their history rows take that time, mirrors refetch them, an
    `If-Match` read before is stale). Returns the changed case ids (sorted); the caller
    refreshes derived data and records history. Queries: 4, plus 2 per changed case and 1
    when any changed. Time: one RE2 scan of each case's text (linear in its length)."""
    vocabulary = CodeVocabulary.load()
    links = dict(CaseTerm.objects.filter(term=term).values_list("case_id", "derived"))
    changed: list[str] = []
    for case_id, title, summary, symptoms, detection in Case.objects.order_by("id").values_list(
        "id", "title", "summary", "symptoms_description", "detection"
    ):
        text = case_text(
            {
                "title": title,
                "summary": summary,
                "symptoms": {"description": symptoms},
                "detection": detection,
            }
        )
        shows = vocabulary.shows(term.name, text)
        if (case_id not in links and shows) or (links.get(case_id) and not shows):
            changed.append(case_id)
    codes = {t.name: t for t in Term.objects.filter(facet=Facet.ERROR_CODE)}
    for case_id in changed:
        rows = list(
            CaseTerm.objects.filter(case_id=case_id, term__facet=Facet.ERROR_CODE).select_related("term")
        )
        stated = [row.term.name for row in rows if not row.derived]
        derived = {row.term.name for row in rows if row.derived} ^ {term.name}
        CaseTerm.objects.filter(id__in=[row.id for row in rows]).delete()
        CaseTerm.objects.bulk_create(
            CaseTerm(case_id=case_id, term=codes[name], position=CODE_POSITION + i, derived=name in derived)
            for i, name in enumerate([*stated, *vocabulary.order(derived)])
        )
    if changed:
        Case.objects.filter(id__in=changed).update(modified=timezone.now())
    return changed


def _stored_form(definition: TermDefinition) -> tuple:
    """What `_upsert_terms` writes of a definition, to compare with a stored term."""
    return (
        definition.name,
        definition.description,
        list(definition.synonyms),
        list(definition.patterns),
        definition.vendor,
        definition.source_url,
        definition.family,
    )


def changed_definitions(definitions: VocabularyDefinitions) -> list[TermDefinition]:
    """The definitions whose term is not stored as they say (new, or any field or family
    different), in file order. One query. Re-importing the vocabulary file a library was
    built from changes nothing: its terms are not written again, and what the import
    reuses (the published profiles, the organization and accelerator links) stays valid."""
    if not definitions.terms:
        return []
    facets = {d.facet for d in definitions.terms}
    stored = {
        (t.facet, t.slug): (
            t.name,
            t.description,
            list(t.synonyms),
            list(t.patterns),
            t.vendor,
            t.source_url,
            t.family.name if t.family is not None else None,
        )
        for t in Term.objects.filter(facet__in=facets).select_related("family")
    }
    # Several vocabulary files may define one term: the last definition is the one written.
    last = {(d.facet, d.slug): d for d in definitions.terms}
    return [d for d in last.values() if stored.get((d.facet, d.slug)) != _stored_form(d)]


def _renamed_terms(changed: list[TermDefinition]) -> list[int]:
    """Ids of the stored terms that the `changed` definitions give another name (a term is
    keyed by facet and slug): the documents of the cases using them change (1 query)."""
    wanted = {(str(d.facet), d.slug): d.name for d in changed}
    stored = Term.objects.filter(slug__in={slug for _, slug in wanted}).values_list(
        "id", "facet", "slug", "name"
    )
    return [term_id for term_id, facet, slug, name in stored if wanted.get((facet, slug), name) != name]


def _upsert_terms(changed: list[TermDefinition]) -> int:
    """Write the `changed` definitions (`changed_definitions`); returns how many."""
    written: dict[tuple[str, str], Term] = {}
    for definition in changed:
        term, _ = Term.objects.update_or_create(
            facet=definition.facet,
            slug=definition.slug,
            defaults={
                "name": definition.name,
                "description": definition.description,
                "synonyms": list(definition.synonyms),
                "patterns": list(definition.patterns),
                "vendor": definition.vendor,
                "source_url": definition.source_url,
                "family": None,
            },
        )
        written[(definition.facet, definition.name)] = term
    # Families after every term exists: a model may come before its family in the file, and
    # the family itself may be unchanged (stored, not written here).
    for definition in changed:
        if definition.family is not None:
            term = written[(definition.facet, definition.name)]
            family = written.get((definition.facet, definition.family))
            term.family = family or Term.objects.get(facet=definition.facet, name=definition.family)
            term.save(update_fields=["family"])
    return len(changed)


# Organization and accelerator links come after the document's own terms; their positions
# start here so that rewriting them never collides with a document's ordered terms.
ALIAS_POSITION = 1000
# Error codes (`symptoms.error_codes`) after the document's other terms, before the aliases.
CODE_POSITION = 500


class Resolver:
    """(facet, spelling) -> the organization or accelerator term it names (spellings
    compared by `spelling_key`), from `terms`; raises KeyError for a spelling no term has
    (validation reports those first)."""

    def __init__(self, terms: list[Term]):
        self.by_spelling: dict[tuple[str, str], Term] = {}
        for term in terms:
            if term.facet in ALIAS_FACETS:
                for spelling in (term.slug, term.name, *term.synonyms):
                    self.by_spelling[(term.facet, spelling_key(spelling))] = term
        # (organization, accelerator) -> `_alias_terms`: a library names few of them, and
        # each case's were looked up again (a fiftieth of a first import).
        self.named: dict[tuple[str, str | None], list[Term]] = {}

    def __call__(self, facet: str, spelling: str) -> Term:
        return self.by_spelling[(facet, spelling_key(spelling))]


def _alias_terms(organization: str, accelerator: str | None, resolve: Resolver) -> list[Term]:
    """The terms a case's organization and accelerator strings name: the organization, the
    accelerator and, for a model, its family (so a filter on the family finds it). The
    list is shared by the cases naming the same two: not to be changed."""
    named = resolve.named.get((organization, accelerator))
    if named is None:
        named = resolve.named[(organization, accelerator)] = _named_terms(organization, accelerator, resolve)
    return named


def _named_terms(organization: str, accelerator: str | None, resolve: Resolver) -> list[Term]:
    document = {"organization": organization, "environment": {"accelerator": accelerator}}
    found: list[Term] = []
    for facet, spelling, _path in alias_references(document):
        term = resolve(facet, spelling)
        found.append(term)
        if term.family_id is not None:
            found.append(term.family)  # type: ignore[arg-type]
    return list(dict.fromkeys(found))


def relink_aliases(resolve: Resolver | None = None) -> int:
    """Bring every case's organization and accelerator links in step with its strings and
    the stored vocabulary: a few queries whatever changed. Returns how many cases changed.

    Raises CaseImportError naming the case when a stored string no longer resolves (a
    vocabulary import that dropped a spelling cases use).
    """
    if resolve is None:
        resolve = Resolver(list(Term.objects.filter(facet__in=ALIAS_FACETS).select_related("family")))
    have: dict[str, set[int]] = {}
    for case_id, term_id in CaseTerm.objects.filter(term__facet__in=ALIAS_FACETS).values_list(
        "case_id", "term_id"
    ):
        have.setdefault(case_id, set()).add(term_id)
    problems: list[ImportProblem] = []
    changed: dict[str, list[Term]] = {}
    for case_id, organization, accelerator in Case.objects.values_list("id", "organization", "accelerator"):
        try:
            wanted = _alias_terms(organization, accelerator, resolve)
        except KeyError:
            problems.append(
                ImportProblem(case_id, "$", "its organization or accelerator is no longer in the vocabulary")
            )
            continue
        if {t.id for t in wanted} != have.get(case_id, set()):
            changed[case_id] = wanted
    if problems:
        raise CaseImportError(problems)
    CaseTerm.objects.filter(case_id__in=list(changed), term__facet__in=ALIAS_FACETS).delete()
    CaseTerm.objects.bulk_create(
        CaseTerm(case_id=case_id, term=term, position=ALIAS_POSITION + i)
        for case_id, wanted in changed.items()
        for i, term in enumerate(wanted)
    )
    return len(changed)


# Cases written per round of bulk statements: a fixed number of queries per batch whatever
# its size, and model objects for one batch only in memory at a time.
WRITE_BATCH = 500


def _write_cases(
    items: list[LoadedDocument],
    terms: dict[tuple[str, str], Term],
    resolve: Resolver,
    derived_codes: dict[str, list[str]],
) -> list[tuple[Case, dict[str, Any]]]:
    """Write a batch of prepared documents (new cases and replacements) with a fixed number
    of statements: one insert of the new cases and one update of the replaced ones, one
    delete and one bulk insert per child table (terms, sources, keys, scale tables with
    their columns and rows). Columns the document does not hold (status history,
    retraction, merge, when it was first published) are left as stored; a case published
    for the first time is `added` at its write's time. Returns each case as written (those
    columns read back) with its normalised document."""
    documents = [normalized_document(item.document) for item in items]
    ids = [document["id"] for document in documents]
    editorial = {
        case_id: (reason, merged_into, added)
        for case_id, reason, merged_into, added in Case.objects.filter(id__in=ids_in(ids)).values_list(
            "id", "retraction_reason", "merged_into_id", "added"
        )
    }
    existing = set(editorial)
    now = timezone.now()
    cases: list[Case] = []
    fields: list[str] = []
    for i, document in enumerate(documents):
        columns = case_model().columns(document, lambda facet, reference: terms[(facet, reference)])
        fields = [name for name in columns if name != "id"]
        # One microsecond apart, so that the change feed lists an import's cases in the
        # order written (newest first). Its cursor no longer needs distinct times: it is a
        # keyset on (modified, id) (`api.keyset`), which pages through equal times too.
        case = Case(**columns, modified=now + datetime.timedelta(microseconds=i))
        case.retraction_reason, case.merged_into_id, case.added = editorial.get(case.id, (None, None, None))
        if case.added is None and case.status == Case.Status.PUBLISHED:
            case.added = case.modified
        cases.append(case)
    # Plain executemany, as for the child rows: bulk_create's per-field preparation and
    # per-row placeholders were two fifths of writing a batch (no `auto_now` runs: the
    # times above are kept).
    attnames = [field.attname for field in Case._meta.concrete_fields]
    insert_rows(
        Case, attnames, ([getattr(case, a) for a in attnames] for case in cases if case.id not in existing)
    )
    replaced = [case for case in cases if case.id in existing]
    if replaced:
        Case.objects.bulk_update(replaced, [*fields, "modified", "added"], batch_size=WRITE_BATCH)
        CaseTerm.objects.filter(case_id__in=list(existing)).delete()
        Source.objects.filter(case_id__in=list(existing)).delete()
        CaseKey.objects.filter(case_id__in=list(existing)).delete()
        ScaleTable.objects.filter(case_id__in=list(existing)).delete()
    links: list[tuple[str, int, int, bool]] = []
    sources: list[tuple[str, int, str | None, str]] = []
    keys: list[tuple[str, str, str]] = []
    tables: list[tuple[ScaleTable, dict[str, Any]]] = []
    for document in documents:
        case_id = document["id"]
        links.extend(_term_links(document, terms, resolve, derived_codes.get(case_id, ())))
        sources.extend((case_id, i, s.get("title"), s["url"]) for i, s in enumerate(document["sources"]))
        keys.extend((case_id, kind, key) for kind, key in case_keys(document))
        keys.extend(
            (case_id, CaseKey.Kind.AFFECTED, slug)
            for slug in dict.fromkeys(
                terms[(Facet.COMPONENT, item["component"])].slug for item in document["affected"]
            )
        )
        tables.extend(
            (ScaleTable(case_id=case_id, position=t, caption=table["caption"]), table)
            for t, table in enumerate(document["scale_tables"])
        )
    # Plain executemany: about 15 term links a case made bulk_create's per-object work
    # the larger part of writing a batch.
    insert_rows(CaseTerm, ("case_id", "term_id", "position", "derived"), links)
    insert_rows(Source, ("case_id", "position", "title", "url"), sources)
    insert_rows(CaseKey, ("case_id", "kind", "key"), keys)
    # The tables' ids are needed by their columns and rows: both backends return them.
    ScaleTable.objects.bulk_create([table for table, _ in tables])
    ScaleColumn.objects.bulk_create(
        ScaleColumn(table=table, position=i, key=c["key"], label=c["label"], unit=c.get("unit"))
        for table, table_doc in tables
        for i, c in enumerate(table_doc["columns"])
    )
    ScaleRow.objects.bulk_create(
        ScaleRow(table=table, position=i, values=r["values"], outcome=r["outcome"], note=r.get("note"))
        for table, table_doc in tables
        for i, r in enumerate(table_doc["rows"])
    )
    return list(zip(cases, documents, strict=True))


def _term_links(
    document: dict[str, Any],
    terms: dict[tuple[str, str], Term],
    resolve: Resolver,
    derived_codes: Collection[str],
) -> list[tuple[str, int, int, bool]]:
    """A case's ordered term rows as (case_id, term_id, position, derived): every facet's
    terms (the root cause's included; the root-cause foreign key is for display), its error
    codes, then organization and accelerator."""
    case_id = document["id"]
    return [
        *(
            (case_id, terms[(facet, reference)].id, position, False)
            for position, (facet, reference, _path) in enumerate(term_references(document))
        ),
        *(
            (
                case_id,
                terms[(Facet.ERROR_CODE, name)].id,
                CODE_POSITION + i,
                name in derived_codes,
            )
            for i, name in enumerate(document["symptoms"]["error_codes"])
        ),
        *(
            (case_id, term.id, ALIAS_POSITION + i, False)
            for i, term in enumerate(
                _alias_terms(document["organization"], document["environment"].get("accelerator"), resolve)
            )
        ),
    ]


@transaction.atomic
def delete_cases(case_ids: Iterable[str]) -> int:
    """Delete cases (their sources, tables, links and neighbour rows cascade) and their index
    rows. Returns how many cases were deleted."""
    ids = list(case_ids)
    store_cache.changed(ids)
    deleted = Case.objects.filter(id__in=ids).count()
    serialize_case_writes()  # the word statistics are read, added to and written back
    word_statistics.forget(ids)  # their profile rows go with them
    index.cases_deleting(ids)  # the hubness of the cases whose nearest hold them
    Case.objects.filter(id__in=ids).delete()
    index.cases_deleted(ids)
    return deleted
