"""What search reads of every case besides its text, held in this process as arrays: each
case's status (published or not), publication date, root cause, accelerator count and term
links, and the names of the terms the facet counts show.

The lexical ranking keeps, of the matches, those the pruning bound lets through (at 100,000
cases 8,650 rows for `nccl timeout`, 33,000 for `xid 79`); each then needed its case row
(status, date, root cause) and an index probe of its term links for the term boost: about 30
ms of a 58 ms statement. Facet counts read each match's links (12,000 index probes for
1,000 matches) and case row (the whole document, for its date and accelerator count): 12
ms. Here both are array look-ups (`backends.boosted_page`, `match_facets`).

A case is known by its *number*: its position in the database's order of case ids (`ORDER
BY id`, so that comparing numbers orders cases as the database orders their ids, the
ranking's last tie-break). Kept per store generation (`store_cache.local`: one cache read a
search checks it is current) and read whole again after any write: a write names the cases
whose text or status it changed (`store_cache.changed`), not every case whose term links
it moved (a vocabulary import re-links organizations and accelerators it does not name), so
no part is carried over. Two queries (the cases with their links, the term names): at
100,000 cases and 1.25 M links 0.9 to 1.2 CPU s on a loaded 2-core machine. With the store
cache off nothing is kept and callers read the database instead (`held` is None).

Memory at N cases and L links: 4 bytes per link twice (by case and by term), about 20
bytes per case (44 with SQLite's full-text rowids, by which its ranking and snippets find
cases), and the ids as one fixed-width array (4 bytes a character): 15.3 MiB at 100,173
cases and 1.25 M links, 17.6 MiB with the rowids.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.conf import settings
from django.db import connection

from incidents import store_cache
from incidents.models import Case, CaseTerm, Term

# An accelerator count the case does not state.
UNKNOWN = -1
# Case rows fetched at a time while reading.
READ_BLOCK = 5000
_NO_LINKS = np.empty(0, dtype=np.int32)
_NO_ROWIDS = np.empty(0, dtype=np.int64)
# SQLite: the full-text index's content table (`backends.sqlite.SQLITE_CONTENT`: `id` is the
# rowid, `c0` the case id) and its index on the case id (migration 0018).
_SQLITE_CONTENT = "incidents_case_fts_content"


@dataclass(frozen=True)
class TermNames:
    """The terms the facet counts may name, by term id: facet, slug and name, and each
    name's place in the database's order of names (`name_rank`, the counts' tie-break)."""

    facet: dict[int, str]
    slug: dict[int, str]
    name: dict[int, str]
    name_rank: dict[int, int]


@dataclass(frozen=True)
class CaseColumns:
    """Every case's columns by case number (0..N-1, the database's id order).

    `sorted_ids` (str array, ascending code points) with `sorted_numbers` (int32, the number
    of each) finds a case's number by id (`numbers`); `published` (bool), `day` (int32
    YYYYMMDD), `root_cause` (int32 term id), `accelerators` (int32, UNKNOWN when not stated)
    are one entry a case; `link_start` (int64, N + 1 entries) delimits each case's term ids
    in `link_term` (int32); `term_start` (int64, largest term id + 2 entries) delimits each
    term's case numbers in `term_cases` (int32, ascending)."""

    sorted_ids: np.ndarray
    sorted_numbers: np.ndarray
    published: np.ndarray
    day: np.ndarray
    root_cause: np.ndarray
    accelerators: np.ndarray
    link_start: np.ndarray
    link_term: np.ndarray
    term_start: np.ndarray
    term_cases: np.ndarray
    terms: TermNames
    # SQLite: the cases' full-text rowids (`index_rowids`, int64 ascending) with each one's
    # case number (`index_numbers`, int32), each number's place in `sorted_ids` (`id_place`,
    # int32) and each case's rowid (`rowid_of`, int64, -1 when it has no row): a ranking
    # hands over rowids, not ids (`numbers_of_rows`, `ids_of`), and snippets are read by
    # rowid (`rowids_of`). Empty on PostgreSQL (`rowid_of` all -1), whose ranking hands over
    # case ids.
    index_rowids: np.ndarray
    index_numbers: np.ndarray
    id_place: np.ndarray
    rowid_of: np.ndarray

    @property
    def size(self) -> int:
        return len(self.published)

    def numbers(self, case_ids: list[str]) -> np.ndarray | None:
        """The numbers of `case_ids` (int64, in their order), or None when one of them is not
        a case held here (written after these columns were read: the caller reads the
        database instead)."""
        if not case_ids:
            return np.empty(0, dtype=np.int64)
        if not len(self.sorted_ids):
            return None
        # Their own width: cast to the held ids' width, a longer id would be cut to one held.
        wanted = np.asarray(case_ids, dtype=str)
        at = np.searchsorted(self.sorted_ids, wanted)
        at[at == len(self.sorted_ids)] = 0
        if not np.array_equal(self.sorted_ids[at], wanted):
            return None
        return self.sorted_numbers[at].astype(np.int64)

    def numbers_of_rows(self, rowids: np.ndarray) -> np.ndarray | None:
        """The numbers (int64, in their order) of the cases whose full-text rows are `rowids`
        (SQLite), or None when one of them is not a row held here (written after these
        columns were read, or no rowids are held: the caller reads the database instead)."""
        if not len(rowids):
            return np.empty(0, dtype=np.int64)
        if not len(self.index_rowids):
            return None
        at = np.searchsorted(self.index_rowids, rowids)
        at[at == len(self.index_rowids)] = 0
        if not np.array_equal(self.index_rowids[at], rowids):
            return None
        return self.index_numbers[at].astype(np.int64)

    def rowids_of(self, case_ids: list[str]) -> list[int] | None:
        """The full-text rowids (SQLite) of `case_ids`, in their order, or None when one of
        them is not a case held here or has no row."""
        numbers = self.numbers(case_ids)
        if numbers is None:
            return None
        rowids = self.rowid_of[numbers]
        return None if (rowids < 0).any() else rowids.tolist()

    def ids_of(self, numbers: np.ndarray) -> list[str]:
        """The case ids of `numbers` (a list of str, in their order)."""
        return self.sorted_ids[self.id_place[numbers]].tolist()

    def carrying(self, term_id: int) -> np.ndarray:
        """Bool by case number: the cases linked to `term_id`."""
        carries = np.zeros(self.size, dtype=bool)
        if 0 <= term_id < len(self.term_start) - 1:
            carries[self.term_cases[self.term_start[term_id] : self.term_start[term_id + 1]]] = True
        return carries

    def links_of(self, numbers: np.ndarray) -> np.ndarray:
        """The term ids linked to the cases `numbers` (int32, every link of each)."""
        starts, ends = self.link_start[numbers], self.link_start[numbers + 1]
        lengths = ends - starts
        total = int(lengths.sum())
        if not total:
            return np.empty(0, dtype=np.int32)
        # Each link's position: its case's start plus its place within the case's links.
        offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
        return self.link_term[offsets + np.arange(total)]

    def nbytes(self) -> int:
        """Bytes the arrays hold (the term names aside)."""
        return sum(
            a.nbytes
            for a in (
                self.sorted_ids,
                self.sorted_numbers,
                self.published,
                self.day,
                self.root_cause,
                self.accelerators,
                self.link_start,
                self.link_term,
                self.term_start,
                self.term_cases,
                self.index_rowids,
                self.index_numbers,
                self.id_place,
                self.rowid_of,
            )
        )


def held() -> CaseColumns | None:
    """This process's `CaseColumns` for the current store generation (read when the
    generation changed: three queries), or None with the store cache off (nothing would be
    kept: the caller reads the database)."""
    if not settings.STORE_CACHE:
        return None
    return store_cache.local("case-columns", read)


def read() -> CaseColumns:
    """Every case's columns from the database: one statement for the cases and their links
    (one snapshot of both), one for the term names."""
    case_table, link_table = Case._meta.db_table, CaseTerm._meta.db_table
    if connection.vendor == "sqlite":
        # The date as the integer YYYYMMDD, computed by the database (no date object a case).
        day, links = "CAST(replace(c.published, '-', '') AS INTEGER)", "group_concat(ct.term_id, ',')"
    else:
        day = "CAST(to_char(c.published, 'YYYYMMDD') AS INTEGER)"
        links = "string_agg(CAST(ct.term_id AS TEXT), ',')"
    # SQLite: the case's full-text rowid, by the content table's index on the case id (-1
    # for a case with no row), in the same statement: one snapshot of the rows and the cases.
    rowid = (
        f"COALESCE((SELECT k.id FROM {_SQLITE_CONTENT} k WHERE k.c0 = c.id), -1)"
        if connection.vendor == "sqlite"
        else "-1"
    )
    ids: list[str] = []
    names = ("published", "day", "root", "accelerators", "count", "rowid")
    parts: dict[str, list[np.ndarray]] = {name: [] for name in (*names, "links")}
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT c.id, CASE WHEN c.status = %s THEN 1 ELSE 0 END, {day}, c.root_cause_category_id,"
            f" COALESCE(c.accelerator_count, %s), COUNT(ct.term_id), {rowid}, {links}"
            f" FROM {case_table} c LEFT JOIN {link_table} ct ON ct.case_id = c.id"
            " GROUP BY c.id ORDER BY c.id",
            [Case.Status.PUBLISHED, UNKNOWN],
        )
        # A block of rows at a time: all 100,000 rows as tuples at once would raise the
        # worker's peak by tens of MB for the moment of reading.
        while rows := cursor.fetchmany(READ_BLOCK):
            ids.extend(row[0] for row in rows)
            for at, name in enumerate(names, start=1):
                parts[name].append(np.fromiter((row[at] for row in rows), dtype=np.int64))
            text = ",".join(row[7] for row in rows if row[7])
            parts["links"].append(np.fromstring(text, dtype=np.int32, sep=",") if text else _NO_LINKS)
    terms = _term_names()
    link_term = np.concatenate([_NO_LINKS, *parts["links"]])
    counts = np.concatenate([np.empty(0, dtype=np.int64), *parts["count"]])
    link_start = np.zeros(len(ids) + 1, dtype=np.int64)
    np.cumsum(counts, out=link_start[1:])
    top = int(link_term.max()) + 1 if len(link_term) else 0
    term_start = np.zeros(top + 1, dtype=np.int64)
    np.cumsum(np.bincount(link_term, minlength=top), out=term_start[1:])
    term_cases = _cases_by_term(link_term, counts, len(ids), top)
    id_array = np.asarray(ids, dtype=str) if ids else np.empty(0, dtype="<U1")
    order = np.argsort(id_array, kind="stable")

    def column(name: str, dtype: type) -> np.ndarray:
        return np.concatenate([np.empty(0, dtype=np.int64), *parts[name]]).astype(dtype)

    rowids = column("rowid", np.int64)
    indexed = np.flatnonzero(rowids >= 0)
    by_rowid = indexed[np.argsort(rowids[indexed], kind="stable")]
    id_place = np.empty(len(ids), dtype=np.int32)
    id_place[order] = np.arange(len(ids), dtype=np.int32)

    return CaseColumns(
        sorted_ids=id_array[order],
        sorted_numbers=order.astype(np.int32),
        published=column("published", bool),
        day=column("day", np.int32),
        root_cause=column("root", np.int32),
        accelerators=column("accelerators", np.int32),
        link_start=link_start,
        link_term=link_term,
        term_start=term_start,
        term_cases=term_cases,
        terms=terms,
        index_rowids=rowids[by_rowid] if len(by_rowid) else _NO_ROWIDS,
        index_numbers=by_rowid.astype(np.int32),
        id_place=id_place,
        rowid_of=rowids,
    )


def _cases_by_term(link_term: np.ndarray, counts: np.ndarray, cases: int, top: int) -> np.ndarray:
    """Each link's case number, the links ordered by term id then case number (int32): one
    sort of `term * cases + case`, in 32 bits when it fits (at 100,000 cases an argsort's
    int64 positions were 10 MB more of a worker's peak for the moment of reading)."""
    wide = np.dtype(np.int32) if top * max(cases, 1) < 2**31 else np.dtype(np.int64)
    keys: np.ndarray = np.repeat(np.arange(cases, dtype=wide), counts)
    np.add(keys, link_term.astype(wide) * cases, out=keys)
    keys.sort()
    np.remainder(keys, max(cases, 1), out=keys)
    return keys.astype(np.int32, copy=False)


def _term_names() -> TermNames:
    """Every term's facet, slug and name, and its place in the database's order of names."""
    facet, slug, name, rank = {}, {}, {}, {}
    for place, (term_id, term_facet, term_slug, term_name) in enumerate(
        Term.objects.order_by("name", "id").values_list("id", "facet", "slug", "name")
    ):
        facet[term_id], slug[term_id], name[term_id], rank[term_id] = term_facet, term_slug, term_name, place
    return TermNames(facet=facet, slug=slug, name=name, name_rank=rank)
