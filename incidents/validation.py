"""Checks a batch of case documents before anything is written.

First each document against `case.schema.json`, then across documents and the database
(a document the schema refuses too, where its fields allow, so that one run names every
problem): duplicate ids, `related` ids that exist, scale rows that use only their table's
columns, vocabulary terms that exist (in the database or in the definitions being imported;
any spelling of a term, `term_spellings`), organizations, accelerators, error codes
(`symptoms.error_codes`) and `affected` components that resolve to a term through one of
its spellings; an `affected` range with both `fixed` and `last_affected` (OSV: one or the
other); a reference `id` naming another record than its GitHub or arXiv URL; a published or
retracted case whose symptoms description is empty (the schema lets a draft's be:
`workflow.lacks_symptoms`).

Policy for an organization or accelerator no vocabulary names: an import error naming the
file and JSON path (`$.organization`, `$.environment.accelerator`) and the nearest terms;
add the term, or the spelling as a synonym of one, to the vocabulary file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from .affected import ComponentIndex
from .codes import CodeVocabulary
from .document_model import case_model, value_at
from .durations import duration_seconds
from .id_lists import ids_in
from .models import ALIAS_FACETS, Case, Facet, Term
from .problems import ImportProblem
from .references import alias_of_url, reference_key
from .selectors.spelling import nearest_strings, spelling_key
from .strict_json import MAX_DEPTH, NESTED_TOO_DEEPLY, NumberTooLong, nesting_depth, parse_json
from .term_spellings import TermSpellings
from .vocabulary import VocabularyDefinitions, reference_of
from .workflow import lacks_symptoms, symptoms_field


@dataclass(frozen=True)
class LoadedDocument:
    file: str
    document: dict[str, Any]


# Files a backup folder holds beside its cases (`backup.py`): a folder with both is a backup.
BACKUP_EDITORIAL, BACKUP_HISTORY = "editorial.jsonl", "history.jsonl"


def expand_paths(paths: Iterable[str | Path]) -> tuple[list[Path], list[ImportProblem]]:
    """Files as given, folders as their `*.json` files (recursively, sorted). A backup
    folder is a problem naming the restore: read as cases, its vocabulary file would be
    refused as a case document and its history and editorial state left behind."""
    files: list[Path] = []
    problems: list[ImportProblem] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir() and (path / BACKUP_EDITORIAL).is_file() and (path / BACKUP_HISTORY).is_file():
            problems.append(
                ImportProblem(
                    str(path),
                    "$",
                    "a backup folder written by `export_cases --backup`: restore it with "
                    f"`manage.py import_cases --restore {path}`",
                )
            )
        elif path.is_dir():
            files.extend(sorted(p for p in path.rglob("*.json") if p.is_file()))
        elif path.is_file():
            files.append(path)
        else:
            problems.append(ImportProblem(str(path), "$", "no such file or folder"))
    return files, problems


def load_documents(files: Iterable[Path]) -> tuple[list[LoadedDocument], list[ImportProblem]]:
    """Parse each file as JSON, or, named `*.jsonl`, as JSON Lines (what `/api/export`
    serves): one document a line, named `file:line N` in its problems; blank lines skipped."""
    loaded: list[LoadedDocument] = []
    problems: list[ImportProblem] = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(ImportProblem(str(path), "$", f"cannot read file: {exc}"))
            continue
        lines = path.suffix == JSON_LINES
        if lines:
            sources = [
                (f"{path}:line {n}", line) for n, line in enumerate(text.splitlines(), 1) if line.strip()
            ]
        else:
            sources = [(str(path), text)]
        for where, source in sources:
            data, problem = _parsed(where, source, one_line=lines)
            if problem is None:
                loaded.append(LoadedDocument(where, data))
            else:
                problems.append(problem)
    return loaded, problems


JSON_LINES = ".jsonl"


def _parsed(where: str, text: str, *, one_line: bool) -> tuple[Any, ImportProblem | None]:
    """The JSON value of `text`, or the problem naming `where` and the JSON path (`one_line`:
    `where` names the line already, so the position is its column)."""
    try:
        return parse_json(text), None
    except json.JSONDecodeError as exc:
        position = f"column {exc.colno}" if one_line else f"line {exc.lineno}, column {exc.colno}"
        return None, ImportProblem(where, "$", f"invalid JSON: {exc.msg} ({position})")
    except NumberTooLong as exc:
        return None, ImportProblem(where, exc.path, exc.reason)
    except ValueError as exc:
        return None, ImportProblem(where, "$", f"invalid JSON: {exc}")


def schema_problems(item: LoadedDocument) -> list[ImportProblem]:
    """The schema's complaints, then text no database stores and counts past the columns'
    range, each with its JSON path; for a field nested more than `strict_json.MAX_DEPTH`
    levels, that alone (the API, the admin and import all validate through here)."""
    model = case_model()
    # The compiled validator answers for the (usual) valid document; jsonschema words the
    # problems of the others.
    try:
        valid = model.fast_validator.is_valid(item.document)
    except ValueError:  # text it cannot take as UTF-8 (a lone surrogate): jsonschema decides
        valid = False
    if not valid:
        # A document the (closed) schema accepts nests at most 6 levels, so only a refused one
        # is counted: jsonschema and the walk below recurse, a few frames a level.
        too_deep = _depth_problems(item.document)
        if too_deep:
            return [ImportProblem(item.file, path, NESTED_TOO_DEEPLY) for path in too_deep]
    errors = [] if valid else sorted(model.validator.iter_errors(item.document), key=lambda e: e.json_path)
    problems = [ImportProblem(item.file, e.json_path, e.message) for e in errors]
    storable = [] if _plainly_storable(item.document) else _storable_problems(item.document)
    return problems + [ImportProblem(item.file, path, message) for path, message in storable]


def _depth_problems(document: Any) -> list[str]:
    """The JSON path of each top-level field whose value nests more than `MAX_DEPTH` lists
    and objects (`$` for a document that is no object), as the admin counts a field's."""
    if nesting_depth(document, MAX_DEPTH + 1) <= MAX_DEPTH + 1:
        return []
    if not isinstance(document, dict):
        return ["$"]
    return [f"$.{key}" for key, value in document.items() if nesting_depth(value, MAX_DEPTH) > MAX_DEPTH]


# The count columns (the schema's integer fields) are 32-bit on every backend
# (PositiveIntegerField).
MAX_COUNT = 2_147_483_647


def _count(value: Any) -> bool:
    """Whether `value` is a count the schema's integer admits: an int, or a float such as
    3e9 (JSON Schema's integer includes integer-valued numbers), not a bool."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _plainly_storable(document: Any) -> bool:
    """Whether `_storable_problems` has nothing to say of `document`, decided in C for the
    usual clean document: orjson refuses a lone surrogate (in a key or a value) and writes
    a NUL as `\\u0000`, and the counts are read at their paths. False sends the document
    to the walk, which names each problem's path (walking every string of every document
    was a tenth of an import). A NUL-free text holding a backslash and `u0000` is walked
    and passes."""
    try:
        dumped = orjson.dumps(document)
    except TypeError:  # orjson.JSONEncodeError: a lone surrogate, an integer past 64 bits
        return False
    if b"\\u0000" in dumped:
        return False
    for path in case_model().paths_of_type("integer"):
        node = document
        for name in path.removeprefix("$.").split("."):
            node = node.get(name) if isinstance(node, dict) else None
        if _count(node) and node > MAX_COUNT:
            return False
    return True


def _storable_problems(
    node: Any, path: str = "$", integers: frozenset[str] | None = None
) -> Iterator[tuple[str, str]]:
    """(JSON path, problem) for every string (or key) holding a NUL or a lone surrogate:
    PostgreSQL refuses NUL in text, and a lone surrogate is not a character in UTF-8; and
    for a count larger than its column holds (`integers`: the integer fields' paths)."""
    if integers is None:
        # Once per document, not once per key: it was half of this walk's cost.
        integers = case_model().paths_of_type("integer")
    if isinstance(node, str):
        if "\x00" in node:
            yield path, "contains a NUL character (U+0000), which text may not hold"
        surrogate = next((c for c in node if "\ud800" <= c <= "\udfff"), None)
        if surrogate is not None:
            yield path, f"contains a lone surrogate (U+{ord(surrogate):04X}), which is not a character"
    elif isinstance(node, dict):
        for key, value in node.items():
            child = f"{path}.{key}"
            yield from _storable_problems(key, child, integers)
            if child in integers and _count(value):
                if value > MAX_COUNT:
                    yield child, f"{value} is larger than the largest count stored ({MAX_COUNT})"
            yield from _storable_problems(value, child, integers)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _storable_problems(value, f"{path}[{index}]", integers)


# How a vocabulary problem says where terms are defined: the files of `import_cases --vocab`,
# named with their command, as the admin and the write API say it too (a restore names its own).
VOCAB_FILES = "a vocabulary file passed with manage.py import_cases --vocab"


def validate_batch(
    items: list[LoadedDocument],
    definitions: VocabularyDefinitions,
    *,
    vocabulary: bool = True,
    vocabulary_file: str = VOCAB_FILES,
    retired_ids: bool = True,
) -> list[ImportProblem]:
    """Every problem in the batch; an empty list means it can be written.

    A document the schema refuses is still checked across documents and the database where
    its fields allow (`_cross_problems`), so one run names every problem. `vocabulary`:
    whether to check the terms documents name (not while the vocabulary files have problems,
    as every term would look unknown); `vocabulary_file`: where a problem says to define a
    missing term (a restore says the backup's vocab.json); `retired_ids`: whether a merged-away
    id may not come back (not for a restore, which sets each case's state to the backup's,
    its merges included).
    """
    problems: list[ImportProblem] = []
    valid: list[LoadedDocument] = []
    refused: list[tuple[LoadedDocument, list[ImportProblem]]] = []
    for item in items:
        found = schema_problems(item)
        problems.extend(found)
        if not found:
            valid.append(item)
        elif isinstance(item.document, dict) and not any(_storable_problems(item.document)):
            # Not one holding text no database takes (a NUL, a lone surrogate): the checks
            # below query the database with the document's ids.
            refused.append((item, found))

    # Every string id of the batch, a refused document's too: a case relating to a document
    # that has a schema problem is told about that problem, not that the id is unknown.
    checked = [*valid, *(item for item, _ in refused)]
    identified = [item for item in checked if isinstance(_id_of(item), str)]
    batch_ids: dict[str, str] = {}
    for item in identified:
        case_id = item.document["id"]
        if case_id in batch_ids:
            problems.append(
                ImportProblem(item.file, "$.id", f"duplicate id {case_id!r}: also in {batch_ids[case_id]}")
            )
        else:
            batch_ids[case_id] = item.file

    if retired_ids:
        problems.extend(_retired_id_problems(identified))
    related_ids = {
        rid
        for item in checked
        if isinstance(item.document, dict) and isinstance(item.document.get("related"), list)
        for rid in item.document["related"]
        if isinstance(rid, str)
    }
    existing_ids = set(Case.objects.filter(id__in=ids_in(related_ids)).values_list("id", flat=True))
    checks = _Checks(
        known_ids=set(batch_ids) | existing_ids,  # once: per document it was O(N²) at import
        vocabulary=vocabulary,
        vocabulary_file=vocabulary_file,
        known_terms=_known_references(definitions),
        spellings=TermSpellings.load(definitions),
        aliases=alias_index(definitions),
        codes=CodeVocabulary.load(definitions),
        components=ComponentIndex.load(definitions),
        # Once: reading them off the schema for every document was a thirtieth of a first import.
        durations=sorted(case_model().paths_of_definition("duration")),
    )
    for item in valid:
        for check in checks.each():
            problems.extend(check(item))
    for item, found in refused:
        problems.extend(_cross_problems(item, found, checks))
    return problems


def _id_of(item: LoadedDocument) -> Any:
    return item.document.get("id") if isinstance(item.document, dict) else None


@dataclass(frozen=True)
class _Checks:
    """What the checks across documents and the database read, loaded once per batch."""

    known_ids: set[str]
    vocabulary: bool
    vocabulary_file: str
    known_terms: dict[Facet, set[str]]
    spellings: TermSpellings
    aliases: dict[tuple[str, str], str]
    codes: CodeVocabulary
    components: ComponentIndex
    durations: list[str]

    def each(self) -> list[Callable[[LoadedDocument], list[ImportProblem]]]:
        """Each check of one document, in the order its problems are reported."""
        checks: list[Callable[[LoadedDocument], list[ImportProblem]]] = [
            _symptoms_problems,
            lambda item: _related_problems(item, self.known_ids),
            _scale_problems,
        ]
        if self.vocabulary:
            checks.append(
                lambda item: _vocabulary_problems(
                    item, self.known_terms, self.spellings, self.aliases, self.vocabulary_file
                )
            )
        checks.append(lambda item: _duration_problems(item, self.durations))
        if self.vocabulary:
            checks.append(lambda item: _code_problems(item, self.codes, self.vocabulary_file))
            checks.append(lambda item: _affected_problems(item, self.components))
        checks.append(_reference_problems)
        return checks


def _cross_problems(
    item: LoadedDocument, schema_found: list[ImportProblem], checks: _Checks
) -> list[ImportProblem]:
    """The checks across documents of a document the schema refuses, where its fields allow:
    a check the document's shape trips up names nothing, and a problem at or around a path
    the schema named already is left out (the schema's is the one to fix first). A problem
    at `$` (a missing or unexpected field) spoils no other field's checks."""
    if not isinstance(item.document, dict):
        return []
    refused = [p.path for p in schema_found if p.path != "$"]
    found: list[ImportProblem] = []
    for check in checks.each():
        try:
            problems = check(item)
        except (AttributeError, IndexError, KeyError, TypeError, ValueError):
            continue
        found.extend(p for p in problems if not any(_overlap(p.path, path) for path in refused))
    return found


def _overlap(path: str, other: str) -> bool:
    """Whether one JSON path is the other or lies inside it (`$.a` and `$.a[0].b`, not `$.ab`)."""
    shorter, longer = sorted((path, other), key=len)
    return longer == shorter or longer.startswith((f"{shorter}.", f"{shorter}["))


def _symptoms_problems(item: LoadedDocument) -> list[ImportProblem]:
    """A case readers see (published or retracted) with an empty Symptoms section, as
    publishing a draft refuses it (`workflow.check_publishable`)."""
    document = item.document
    if not lacks_symptoms(document["status"], document["symptoms"]["description"]):
        return []
    message = (
        f"empty in a {document['status']} case: write what operators saw ({symptoms_field()} "
        "in the admin); only a draft or a case in review may leave it empty"
    )
    return [ImportProblem(item.file, "$.symptoms.description", message)]


def _code_problems(item: LoadedDocument, codes: CodeVocabulary, vocabulary_file: str) -> list[ImportProblem]:
    problems = []
    names = [term.name for term in codes.terms]
    for index, spelling in enumerate(item.document["symptoms"].get("error_codes", [])):
        if codes.resolve(spelling) is not None:
            continue
        message = f"unknown error code {spelling!r}"
        close = nearest_strings(spelling, names, limit=3)
        if close:
            message += f" (did you mean {', '.join(repr(c) for c in close)}?)"
        message += f"; add it, or this spelling as a synonym of one, to the error_codes of {vocabulary_file}"
        problems.append(ImportProblem(item.file, f"$.symptoms.error_codes[{index}]", message))
    return problems


def _affected_problems(item: LoadedDocument, components: ComponentIndex) -> list[ImportProblem]:
    problems = []
    for index, entry in enumerate(item.document.get("affected", [])):
        path = f"$.affected[{index}]"
        if components.resolve(entry["component"]) is None:
            message = f"unknown component {entry['component']!r}"
            close = nearest_strings(entry["component"], components.names, limit=3)
            if close:
                message += f" (did you mean {', '.join(repr(c) for c in close)}?)"
            message += "; name a component of the vocabulary (name, slug or synonym)"
            problems.append(ImportProblem(item.file, f"{path}.component", message))
        if entry.get("fixed") and entry.get("last_affected"):
            problems.append(
                ImportProblem(
                    item.file,
                    path,
                    "give `fixed` (first version with the fix) or `last_affected` (when no fix "
                    "exists), not both",
                )
            )
    return problems


def _reference_problems(item: LoadedDocument) -> list[ImportProblem]:
    problems = []
    for index, reference in enumerate(item.document.get("references", [])):
        alias, implied = reference.get("id"), alias_of_url(reference["url"])
        if alias and implied and reference_key(alias) != reference_key(implied):
            problems.append(
                ImportProblem(
                    item.file,
                    f"$.references[{index}].id",
                    f"id {alias!r} names another record than its url ({implied!r}); fix one of them "
                    "or leave id out (import derives it from the url)",
                )
            )
    return problems


def _retired_id_problems(items: list[LoadedDocument]) -> list[ImportProblem]:
    """A merged-away id is never reused: one query for the batch."""
    ids = [item.document["id"] for item in items]
    merged = dict(
        Case.objects.filter(id__in=ids_in(ids), status=Case.Status.MERGED).values_list("id", "merged_into_id")
    )
    return [
        ImportProblem(
            item.file,
            "$.id",
            f"id {item.document['id']!r} was merged into {merged[item.document['id']]!r} and is never "
            "reused; edit that case or give this one a new id",
        )
        for item in items
        if item.document["id"] in merged
    ]


def term_references(document: dict[str, Any]) -> list[tuple[Facet, str, str]]:
    """(facet, reference, JSON path) for every vocabulary term a document names by name or
    slug (the model's faceted fields but error codes and organization and accelerator,
    which are checked by their own rules)."""
    return [
        (binding.facet, value, path)
        for binding, value, path in case_model().faceted(document)
        if binding.facet is not None and binding.facet not in _NOT_BY_REFERENCE
    ]


# The facets `term_references` leaves to their own rules (a faceted binding's facet is set).
_NOT_BY_REFERENCE = frozenset((*ALIAS_FACETS, Facet.ERROR_CODE))


def alias_references(document: dict[str, Any]) -> list[tuple[Facet, str, str]]:
    """(facet, spelling as written, JSON path) of the organization and, when the document
    names one, the accelerator: facets named by any spelling of a term."""
    return [
        (binding.facet, value, path)
        for binding, value, path in case_model().faceted(document)
        if binding.facet in ALIAS_FACETS
    ]


def alias_index(definitions: VocabularyDefinitions | None = None) -> dict[tuple[str, str], str]:
    """(facet, `spelling_key` of a spelling) -> the term's name, for organizations and
    accelerators: the stored terms (one query), overridden by `definitions`."""
    index: dict[tuple[str, str], str] = {}
    for facet, name, slug, synonyms in Term.objects.filter(facet__in=ALIAS_FACETS).values_list(
        "facet", "name", "slug", "synonyms"
    ):
        for spelling in (slug, name, *synonyms):
            index[(facet, spelling_key(spelling))] = name
    for term in (definitions or VocabularyDefinitions()).terms:
        if term.facet in ALIAS_FACETS:
            for spelling in term.spellings:
                index[(term.facet, spelling_key(spelling))] = term.name
    return index


def _known_references(definitions: VocabularyDefinitions) -> dict[Facet, set[str]]:
    known: dict[Facet, set[str]] = {facet: set() for facet in Facet}
    for facet, name, slug in Term.objects.values_list("facet", "name", "slug"):
        known[Facet(facet)].add(reference_of(facet, name, slug))
    for term in definitions.terms:
        known[term.facet].add(reference_of(term.facet, term.name, term.slug))
    return known


def _vocabulary_problems(
    item: LoadedDocument,
    known: dict[Facet, set[str]],
    spellings: TermSpellings,
    aliases: dict[tuple[str, str], str],
    vocabulary_file: str = VOCAB_FILES,
) -> list[ImportProblem]:
    problems = []
    named: dict[tuple[str, str], str] = {}  # (field, reference) -> the path naming it first
    for facet, reference, path in term_references(item.document):
        candidates = spellings.candidates(facet, reference)
        if len(candidates) == 1:
            field = path.partition("[")[0]
            earlier = named.setdefault((field, candidates[0]), path)
            if earlier != path:
                problems.append(
                    ImportProblem(
                        item.file,
                        path,
                        f"{reference!r} names {candidates[0]!r}, as {earlier} does; name each term once",
                    )
                )
            continue
        label = Facet(facet).label.lower()
        if candidates:
            message = (
                f"{reference!r} is a spelling of {len(candidates)} {label} terms "
                f"({', '.join(repr(c) for c in candidates)}); name one of them"
            )
        else:
            message = f"unknown {label} {reference!r}"
            close = spellings.closest(facet, reference) if isinstance(reference, str) else []
            if close:
                message += f" (did you mean {', '.join(repr(c) for c in close)}?)"
            message += f"; define it in {vocabulary_file}"
        problems.append(ImportProblem(item.file, path, message))
    for facet, spelling, path in alias_references(item.document):
        if (facet, spelling_key(spelling)) in aliases:
            continue
        label = Facet(facet).label.lower()
        message = f"unknown {label} {spelling!r}"
        close = nearest_strings(spelling, sorted(known[facet]), limit=3)
        if close:
            message += f" (did you mean {', '.join(repr(c) for c in close)}?)"
        plural = "organizations" if facet == Facet.ORGANIZATION else "accelerators"
        message += f"; add it, or this spelling as a synonym of one, to the {plural} of {vocabulary_file}"
        problems.append(ImportProblem(item.file, path, message))
    return problems


def _related_problems(item: LoadedDocument, known_ids: set[str]) -> list[ImportProblem]:
    problems = []
    for index, related_id in enumerate(item.document.get("related", [])):
        path = f"$.related[{index}]"
        if related_id == item.document["id"]:
            problems.append(ImportProblem(item.file, path, "a case cannot be related to itself"))
        elif related_id not in known_ids:
            problems.append(
                ImportProblem(
                    item.file,
                    path,
                    f"related case {related_id!r} is neither in this import nor in the database",
                )
            )
    return problems


def _scale_problems(item: LoadedDocument) -> list[ImportProblem]:
    problems = []
    for t, table in enumerate(item.document.get("scale_tables", [])):
        keys = [column["key"] for column in table["columns"]]
        seen: set[str] = set()
        for c, key in enumerate(keys):
            if key in seen:
                problems.append(
                    ImportProblem(
                        item.file, f"$.scale_tables[{t}].columns[{c}].key", f"duplicate column key {key!r}"
                    )
                )
            seen.add(key)
        for r, row in enumerate(table["rows"]):
            for key in row["values"]:
                if key not in seen:
                    problems.append(
                        ImportProblem(
                            item.file,
                            f"$.scale_tables[{t}].rows[{r}].values.{key}",
                            f"{key!r} is not a column of this table (columns: {', '.join(keys)})",
                        )
                    )
    return problems


def _duration_problems(item: LoadedDocument, paths: list[str]) -> list[ImportProblem]:
    """The durations at `paths` (JSON paths) that do not parse."""
    problems = []
    for path in paths:
        try:
            duration_seconds(value_at(item.document, path.removeprefix("$.")))
        except ValueError as exc:
            problems.append(ImportProblem(item.file, path, str(exc)))
    return problems
