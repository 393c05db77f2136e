"""Backup and restore of the whole case store, editorial state and history included.

`manage.py export_cases --backup DIR` writes (DIR then holds exactly that backup: an
earlier one there is replaced whole; every file read from one snapshot of the database,
`snapshot.one_snapshot`), `manage.py import_cases --restore DIR` reads back into a database
holding nothing the backup does not (an empty one, or the one it came from, unchanged
since), or with `--replace` into any, deleting what the backup lacks (`beyond_backup`):

    DIR/cases/<id>.json   every case document, as `export_cases` writes them (all statuses)
    DIR/vocab.json        the vocabulary, in the `--vocab` format of fixtures/vocab.json
    DIR/editorial.jsonl   one line per case: what lives beside its document (`status`,
                          `merged` included, `retraction_reason`, `merged_into`)
    DIR/history.jsonl     one line per history row (django-simple-history), oldest first:
                          its columns, the user's name, the root-cause term's slug and the
                          case document of that moment

Restore is all or nothing like import: every file is checked first (each problem names
the file and a JSON path or line), then one transaction writes the vocabulary and the
documents (as import does), sets each case's editorial columns, and replaces the history
rows of the restored cases by the backup's (without `--replace` only when that loses no row:
`beyond_backup`); when each case was first published
(`Case.added`) is read back from those rows. Accounts are not part of a backup: a user
named in the history who has no account gets an inactive one without a password, so the
history still says who did what (an administrator activates or replaces it).
"""

from __future__ import annotations

import datetime
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from . import history as case_history
from .beyond_backup import BeyondBackup, beyond_backup
from .exporting import export_to_directory, export_vocabulary
from .folder_swap import a_plain_file, not_written_by, shown, written_beside
from .id_lists import ids_in
from .locking import serialize_case_writes
from .models import Case, Facet, Term
from .problems import CaseImportError, ImportProblem
from .snapshot import one_snapshot
from .strict_json import parse_json
from .validation import (
    BACKUP_EDITORIAL,
    BACKUP_HISTORY,
    LoadedDocument,
    expand_paths,
    load_documents,
    validate_batch,
)
from .vocabulary import load_vocabulary

CASES, VOCAB = "cases", "vocab.json"
EDITORIAL, HISTORY = BACKUP_EDITORIAL, BACKUP_HISTORY
# History columns written by name; the rest as the portable values below.
_SPECIAL = ("history_id", "history_user_id", "root_cause_category_id")
# A merged case's document says `merged`, which import does not take (the status comes from
# the editorial line): it is checked and written as a draft, then given its real status.
_WRITTEN_AS = "draft"


@dataclass(frozen=True)
class BackupSummary:
    cases: int
    terms: int
    history_rows: int
    # A restore with `replace`: what it deleted that the backup does not hold.
    deleted_cases: int = 0
    deleted_history_rows: int = 0
    deleted_terms: int = 0
    # A restore with `replace`: the cases it holds that were changed after it, taken back.
    changed_cases: tuple[str, ...] = ()


def _history_model() -> Any:
    return Case.history.model


def _history_fields() -> list[Any]:
    return [f for f in _history_model()._meta.concrete_fields if f.attname not in _SPECIAL]


def _plain(value: Any) -> Any:
    """A column value as JSON: dates and times in ISO 8601, to the microsecond."""
    if isinstance(value, datetime.date | datetime.datetime):
        return value.isoformat()
    return value


def _line(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"


class BackupRefused(Exception):
    """`export_backup` will not write into this folder (the message says why and what to do)."""


class RestoreRefused(Exception):
    """`restore_backup` would delete or overwrite what the backup does not hold (the message
    says what, and what to do); nothing was written."""


def export_backup(directory: Path) -> BackupSummary:
    """Write the backup of every case, term and history row so that `directory` holds exactly
    that backup (the layout in the module docstring), every file read from one snapshot
    of the database (a write committed meanwhile is in none of them; writers are not held
    up). Memory stays bounded: cases and history rows are streamed.

    The backup is written into a new sibling folder, which then takes the place of
    `directory` (`folder_swap.written_beside`): a folder holding an earlier backup is
    replaced whole (a case it held that the library no longer does is not left behind for a
    restore to trip on), and a failed or interrupted backup leaves the earlier one as it
    was. Raises BackupRefused, writing nothing, when `directory` holds anything a backup
    does not write (it is not replaced).
    """
    directory = directory.resolve()
    foreign = _not_written_by_a_backup(directory)
    if foreign:
        raise BackupRefused(
            f"{directory} holds what no backup writes ({shown(foreign)}); a backup replaces the folder it "
            "is written to: give a new or empty folder, or one holding an earlier backup"
        )
    with written_beside(directory) as staging:
        summary = _write_backup(staging)
    return summary


def _not_written_by_a_backup(directory: Path) -> list[str]:
    """The entries of `directory` (relative paths, sorted) that a backup does not write: none
    for a missing or empty folder or an earlier backup."""

    def backup_writes(entry: Path) -> bool:
        if entry.name == CASES:
            return entry.is_dir() and not entry.is_symlink()
        return entry.name in (VOCAB, EDITORIAL, HISTORY) and entry.is_file() and not entry.is_symlink()

    foreign = not_written_by(directory, backup_writes)
    cases = directory / CASES
    if CASES not in foreign and cases.is_dir():
        foreign += [f"{CASES}/{name}" for name in not_written_by(cases, lambda p: a_plain_file(p, ".json"))]
    return sorted(foreign)


def _write_backup(directory: Path) -> BackupSummary:
    """Write the backup's files into the (new, empty) `directory`, every step reading the
    same snapshot of the database (`snapshot.one_snapshot`): a case, term or history row
    written meanwhile by another connection is in none of the files or, had it committed
    before the snapshot, in all of them."""
    with one_snapshot():
        cases = _write_cases(directory / CASES)
        terms = export_vocabulary(directory / VOCAB)  # what import_cases --vocab reads back
        _write_editorial(directory / EDITORIAL)
        rows = _write_history(directory / HISTORY)
    return BackupSummary(cases=cases, terms=terms, history_rows=rows)


def _write_cases(directory: Path) -> int:
    """Every case document, all statuses, as `<id>.json`; returns how many."""
    return len(export_to_directory(directory))


def _write_editorial(path: Path) -> None:
    """One line per case, in id order: id, status, retraction reason, merged into."""
    with open(path, "w", encoding="utf-8") as out:
        for case_id, status, reason, merged_into in Case.objects.order_by("id").values_list(
            "id", "status", "retraction_reason", "merged_into_id"
        ):
            out.write(
                _line(
                    {"id": case_id, "status": status, "retraction_reason": reason, "merged_into": merged_into}
                )
            )


def _write_history(path: Path) -> int:
    """One line per history row, oldest first (date, then row id); returns how many."""
    rows = 0
    fields = _history_fields()
    with open(path, "w", encoding="utf-8") as out:
        history = (
            _history_model()
            .objects.select_related("history_user", "root_cause_category")
            .order_by("history_date", "history_id")
        )
        for row in history.iterator(chunk_size=500):
            columns = {f.attname: _plain(f.value_from_object(row)) for f in fields}
            out.write(
                _line(
                    {
                        "columns": columns,
                        "user": row.history_user.get_username() if row.history_user else None,
                        "root_cause_category": row.root_cause_category.slug
                        if row.root_cause_category
                        else None,
                    }
                )
            )
            rows += 1
    return rows


@dataclass(frozen=True)
class _Editorial:
    status: str
    retraction_reason: str | None
    merged_into: str | None


def _read_lines(path: Path, problems: list[ImportProblem]) -> list[tuple[str, dict[str, Any]]]:
    """("line N", object) for each non-blank line of a JSON Lines file; problems for the rest."""
    if not path.is_file():
        problems.append(
            ImportProblem(str(path), "$", "missing: not a backup written by export_cases --backup")
        )
        return []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(ImportProblem(str(path), "$", f"cannot read file: {exc}"))
        return []
    lines: list[tuple[str, dict[str, Any]]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        where = f"line {number}"
        if not raw.strip():
            continue
        try:
            value = parse_json(raw)
        except ValueError as exc:
            problems.append(ImportProblem(str(path), where, f"invalid JSON: {exc}"))
            continue
        if isinstance(value, dict):
            lines.append((where, value))
        else:
            problems.append(ImportProblem(str(path), where, "not a JSON object"))
    return lines


def _editorial(path: Path, lines: list[tuple[str, dict[str, Any]]], problems: list[ImportProblem]) -> dict:
    statuses = set(Case.Status.values)
    found: dict[str, _Editorial] = {}
    for where, line in lines:
        status, reason, merged_into = (
            line.get("status"),
            line.get("retraction_reason"),
            line.get("merged_into"),
        )
        if not isinstance(line.get("id"), str) or status not in statuses:
            problems.append(
                ImportProblem(str(path), where, f"needs an id and a status out of {sorted(statuses)}")
            )
            continue
        if not (reason is None or isinstance(reason, str)) or not (
            merged_into is None or isinstance(merged_into, str)
        ):
            problems.append(
                ImportProblem(str(path), where, "retraction_reason and merged_into are text or null")
            )
            continue
        found[line["id"]] = _Editorial(status, reason, merged_into)
    return found


def _history_rows(
    path: Path, lines: list[tuple[str, dict[str, Any]]], case_ids: set[str], problems: list[ImportProblem]
) -> list[tuple[dict[str, Any], str | None, str | None]]:
    """(columns as Python values, user name, root-cause slug) per line, checked."""
    fields = {f.attname: f for f in _history_fields()}
    rows = []
    for where, line in lines:
        columns = line.get("columns")
        if not isinstance(columns, dict) or set(columns) != set(fields):
            problems.append(
                ImportProblem(str(path), f"{where}: $.columns", f"needs exactly {sorted(fields)}")
            )
            continue
        if columns["id"] not in case_ids:
            problems.append(
                ImportProblem(
                    str(path), f"{where}: $.columns.id", f"{columns['id']!r} is no case of the backup"
                )
            )
            continue
        try:
            values = {name: fields[name].to_python(value) for name, value in columns.items()}
        except Exception as exc:  # django.core.exceptions.ValidationError and type errors alike
            problems.append(ImportProblem(str(path), f"{where}: $.columns", f"unreadable value: {exc}"))
            continue
        user, category = line.get("user"), line.get("root_cause_category")
        rows.append(
            (values, user if isinstance(user, str) else None, category if isinstance(category, str) else None)
        )
    return rows


def restore_backup(directory: Path, *, replace: bool = False) -> BackupSummary:
    """Restore a backup written by `export_backup` (see the module docstring), leaving the
    database in the backup's state.

    A database holding what the backup does not (`beyond_backup`: cases, history rows,
    changes made after the backup to a case it holds, vocabulary terms) is refused with
    RestoreRefused, unless `replace`: those are then deleted in the restore's transaction,
    and the changed cases take the backup's state and history. Raises CaseImportError
    listing every problem of the backup (file, JSON path or line). Nothing is written when
    either is raised.
    """
    problems: list[ImportProblem] = []
    definitions, vocabulary_problems = load_vocabulary(directory / VOCAB)
    problems += vocabulary_problems
    files, found = expand_paths([directory / CASES])
    problems += found
    items, found = load_documents(files)
    problems += found
    editorial = _editorial(directory / EDITORIAL, _read_lines(directory / EDITORIAL, problems), problems)
    case_ids = {str(item.document.get("id")) for item in items if isinstance(item.document, dict)}
    for case_id in sorted(set(editorial) ^ case_ids, key=str):
        problems.append(
            ImportProblem(
                str(directory / EDITORIAL), "$", f"{case_id!r} is not in both cases/ and editorial.jsonl"
            )
        )
    for case_id, state in editorial.items():
        if state.merged_into is not None and state.merged_into not in case_ids:
            problems.append(
                ImportProblem(
                    str(directory / EDITORIAL),
                    "$",
                    f"{case_id} is merged into {state.merged_into!r}, which is not in the backup",
                )
            )
    history = _history_rows(
        directory / HISTORY, _read_lines(directory / HISTORY, problems), case_ids, problems
    )
    checked = [
        LoadedDocument(item.file, {**item.document, "status": _WRITTEN_AS})
        if isinstance(item.document, dict) and item.document.get("status") == Case.Status.MERGED
        else item
        for item in items
    ]
    # The documents are checked whatever else is wrong, so that one run names every problem;
    # against their terms only when vocab.json reads (else every term would look unknown).
    problems += validate_batch(
        checked,
        definitions,
        vocabulary=not vocabulary_problems,
        vocabulary_file=f"the backup's {VOCAB} ({directory / VOCAB})",
        retired_ids=False,  # the backup says which ids are merged, and into what
    )
    if problems:
        raise CaseImportError(problems)
    terms = {(str(d.facet), d.slug) for d in definitions.terms}
    states = {case_id: (e.status, e.retraction_reason, e.merged_into) for case_id, e in editorial.items()}
    keys = Counter((values["id"], values["history_date"], values["history_type"]) for values, _, _ in history)
    with transaction.atomic():
        serialize_case_writes()  # what is compared below holds until the restore commits
        extra = beyond_backup(states, keys, terms)
        if extra.any() and not replace:
            raise RestoreRefused(extra.refusal())
        _write(checked, definitions, editorial, history, extra)
    return BackupSummary(
        cases=len(checked),
        terms=len(definitions.terms),
        history_rows=len(history),
        deleted_cases=len(extra.cases),
        deleted_history_rows=extra.history_rows,
        deleted_terms=len(extra.terms),
        changed_cases=extra.changed_cases,
    )


def _write(items, definitions, editorial: dict[str, _Editorial], history, extra: BeyondBackup) -> None:
    """Write a checked backup, inside the caller's transaction, deleting `extra` first."""
    # Imported by the restore that writes: `export_cases --backup` reads this module too and
    # never needs the services' search modules (numpy, scipy).
    from . import services

    if extra.cases:
        # Merged into one another, in either order: PROTECT would refuse the first delete.
        Case.objects.filter(id__in=extra.cases).update(merged_into=None)
        services.delete_cases(extra.cases)
    History = _history_model()
    if extra.cases or extra.deleted_history_rows:  # after the deletes, which record a history row each
        History.objects.exclude(id__in=ids_in(list(editorial))).delete()
    services.write_documents(items, definitions, reason="restore")
    if extra.terms:
        # After the write: a restored case no longer links them (a consistent backup names
        # only its own terms), and the deleted cases took their links with them.
        term_ids = [term_id for term_id, _, _ in extra.terms]
        Term.objects.filter(id__in=term_ids, family__isnull=False).update(family=None)
        Term.objects.filter(id__in=term_ids).delete()
        services.refresh_derived([])
    changed = []
    for case_id, state in editorial.items():
        updated = Case.objects.filter(id=case_id).exclude(
            status=state.status, retraction_reason=state.retraction_reason, merged_into_id=state.merged_into
        )
        if updated.update(
            status=state.status, retraction_reason=state.retraction_reason, merged_into_id=state.merged_into
        ):
            changed.append(case_id)
    if changed:
        services.refresh_derived(changed)
    History.objects.filter(id__in=list(editorial)).delete()
    users = _users({user for _, user, _ in history if user})
    categories = dict(Term.objects.filter(facet=Facet.ROOT_CAUSE).values_list("slug", "id"))
    History.objects.bulk_create(
        (
            History(
                **values,
                history_user=users.get(user) if user else None,
                root_cause_category_id=categories.get(category) if category else None,
            )
            for values, user, category in history
        ),
        batch_size=500,
    )
    Case.objects.filter(id__in=list(editorial)).update(added=case_history.first_published())


def _users(names: set[str]) -> dict[str, Any]:
    """The accounts named in the history; an inactive account without a password for each
    name that has none (the history keeps who did what)."""
    User = get_user_model()
    existing = {u.get_username(): u for u in User.objects.filter(**{f"{User.USERNAME_FIELD}__in": names})}
    for name in sorted(names - set(existing)):
        user = User(**{User.USERNAME_FIELD: name}, is_active=False)
        user.set_unusable_password()
        user.save()
        existing[name] = user
    return existing
