"""What both full-text backends share: the `Backend` interface and its queries written
once for both (per-atom unions, counts, hits among candidates), the row a ranking returns."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import NamedTuple

from django.db import connection

from incidents.id_lists import ids_subquery

from ..query import Atom, ParsedQuery
from ..text import IndexColumns

# `incidents_case.status` of the cases search finds (`Case.Status.PUBLISHED`).
PUBLISHED = "published"

# How much more a case counts for each vocabulary term the query named that it carries.
TERM_BOOST = 0.5

# A case's score is multiplied by (share of the query's words it matches) ** COORD_POWER.
COORD_POWER = 1
# How much more a case counts when it matches the words as typed, not only their synonyms.
LITERAL_BONUS = 4.0


def any_word_of(parsed: ParsedQuery) -> ParsedQuery:
    """The positive words of `parsed` (synonyms included) as one group: a text holding any
    of them matches. For snippets, which show the words a case shares with the query."""
    return ParsedQuery(groups=[parsed.positive_atoms()])


@dataclass(frozen=True)
class RankedRow:
    case_id: str
    score: float
    share: float = 1.0  # share of the query's word groups the case matches (0..1)
    literal_share: float = 1.0  # the same for the words as typed (synonyms not counted)
    rowid: int | None = None  # SQLite: the case's full-text row, for its snippet


class Marked(NamedTuple):
    """A case's texts with the query's words marked (`MARK_START`...`MARK_END`): a passage,
    and its title whole. A title word the passage lacks (`swap` in IL-0497's
    `compare-and-swap` title) is a match every reader should be told of: bm25 weighs a title
    the most."""

    passage: str | None
    title: str | None = None
    # The case's indexed body (main and rest columns, unmarked): `why` names the query's words
    # it holds outside the passage (`why_words.typed_words_held`).
    body: str | None = None


# SELECTs joined in one UNION ALL at most (SQLite's limit is 500).
COMPOUND_LIMIT = 400


def published_matches(i: int, sql: str) -> str:
    """` FROM ... WHERE ...` of atom `i`'s matches (`sql`, from `match_sql`) that are published
    cases, as `m{i}` joined to `c{i}`; its one parameter, after the match's, is PUBLISHED."""
    return f" FROM ({sql}) AS m{i} JOIN incidents_case c{i} ON c{i}.id = m{i}.case_id WHERE c{i}.status = %s"


class Backend:
    vendor = ""

    # -- writing -------------------------------------------------------------------
    def write(self, rows: list[tuple[str, IndexColumns]]) -> None:
        raise NotImplementedError

    @contextmanager
    def writer(self, expected: int) -> Iterator[Callable[[list[tuple[str, IndexColumns]]], None]]:
        """A function writing batches of rows (as `write`), about `expected` rows in all; all
        of them are written when the block ends."""
        yield self.write

    def delete(self, case_ids: list[str]) -> None:
        raise NotImplementedError

    def after_bulk_write(self, count: int) -> None:
        """Called once `count` index rows were written (PostgreSQL refreshes statistics)."""

    def indexed_ids(self) -> set[str]:
        raise NotImplementedError

    # -- reading -------------------------------------------------------------------
    def match_sql(self, atoms: list[Atom]) -> tuple[str, list]:
        """SQL selecting `case_id` of index rows matching any of `atoms`."""
        raise NotImplementedError

    def rank(
        self,
        parsed: ParsedQuery,
        candidates: tuple[str, tuple] | None,
        *,
        term_weights: dict[int, float],
        root_cause_weights: dict[int, float],
        sort: str,
        offset: int,
        limit: int,
        coordinate: list[list[Atom]] | tuple = (),
        literal: list[list[Atom]] | tuple = (),
        library_size: int = 0,
    ) -> list[RankedRow]:
        """One query: the page of matching candidate cases, best first.

        Each score is multiplied by the share of the `coordinate` groups the case matches
        (to the power COORD_POWER: matching more of the query's words counts more), by
        `1 + LITERAL_BONUS * share of the literal groups` (words as typed, before synonyms)
        and by `1 + TERM_BOOST * sum of the weights` of the query-named terms the case
        carries (`term_weights` and `root_cause_weights`: term id -> weight).

        `candidates` is (sql, params) selecting the ids of cases allowed by the filters, or
        None for every published case: then SQLite checks the case row the ranking joins
        anyway and PostgreSQL leaves out the few cases not published, instead of matching
        each case id against a subquery of every published id
        (on PostgreSQL a second scan and hash of the case table, 9 to 14 ms at 10,000).
        No total: counting every match (`COUNT(*) OVER ()`) kept the database from stopping
        at the page and cost a tenth of the query (the fused ranking counts the matches).

        `library_size`: the published cases (the caller's vocabulary counts them). From
        `SPLIT_FROM` of them SQLite may rank a query whose words are partly in most cases
        from the matches of its other words when unfiltered (`SqliteBackend._split`): one query more the
        first time a store generation counts a word's rows (kept in the store cache), and
        one more when that page turns out not to be exact (then ranked in one pass).
        SQLite with the store cache on and a relevance sort computes the same page from the
        bm25 terms of each phrase it holds (`phrase_terms`): no query when it holds them all,
        one for those it lacks, one for the allowed cases' ids when filtered.
        """
        raise NotImplementedError

    def snippets(
        self, parsed: ParsedQuery, case_ids: list[str], rowids: Mapping[str, int] | None = None
    ) -> dict[str, Marked]:
        """One query: a passage per case id, its matches between `MARK_START` and
        `MARK_END` (read by `snippets.parse_snippet`), each code span it cuts closed at the
        cut (`snippets.balance_code_spans`, from the indexed text read in the same query),
        and the case's title with the query's words marked the same way (`Marked`).
        `rowids`: the full-text rows of cases the ranking read (`RankedRow.rowid`), which
        SQLite looks up directly."""
        raise NotImplementedError

    def _factors(
        self,
        coordinate: list[list[Atom]],
        literal: list[list[Atom]],
        shares: Callable[[list[list[Atom]]], str],
    ) -> str:
        """SQL multiplying a score by coord^COORD_POWER (share of `coordinate` groups
        matched) and by `1 + LITERAL_BONUS * share of literal groups matched` (each share's
        SQL, without parameters, from `shares`)."""
        sql = "1.0"
        if len(coordinate) > 1 and COORD_POWER:
            sql = " * ".join([shares(coordinate)] * COORD_POWER)
        if literal:
            sql = f"{sql} * (1 + {LITERAL_BONUS} * {shares(literal)})"
        return f"({sql})"

    def _per_atom(
        self,
        atoms: list[Atom],
        branch: Callable[[int, str], str],
        extra: tuple = (),
    ) -> tuple[str, list]:
        """One SELECT per atom, joined by UNION ALL: `branch(index, match_sql)` writes atom
        `index`'s, whose parameters are the match's then `extra`."""
        branches, params = [], []
        for index, atom in enumerate(atoms):
            sql, atom_params = self.match_sql([atom])
            branches.append(branch(index, sql))
            params.extend([*atom_params, *extra])
        return " UNION ALL ".join(branches), params

    def atoms_found(self, atoms: list[Atom]) -> set[int]:
        """One query: the positions in `atoms` of those some published case contains (each
        checked with EXISTS, which stops at the first such case)."""
        if not atoms:
            return set()
        union, params = self._per_atom(
            atoms,
            lambda i, sql: (
                f"SELECT {i} WHERE EXISTS (SELECT 1 FROM ({sql}) AS m{i}"
                f" JOIN incidents_case c ON c.id = m{i}.case_id WHERE c.status = %s)"
            ),
            (PUBLISHED,),
        )
        with connection.cursor() as cursor:
            cursor.execute(union, params)
            return {row[0] for row in cursor.fetchall()}

    def atom_hits(self, atoms: list[Atom]) -> list[tuple[str, int]]:
        """One query: (case_id, atom index) for each published case containing each atom."""
        if not atoms:
            return []
        union, params = self._per_atom(
            atoms, lambda i, sql: f"SELECT case_id, {i} AS atom FROM ({sql}) AS m{i}"
        )
        sql = (
            f"SELECT h.case_id, h.atom FROM ({union}) AS h"
            " JOIN incidents_case c ON c.id = h.case_id WHERE c.status = %s"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [*params, PUBLISHED])
            return [(row[0], row[1]) for row in cursor.fetchall()]

    def capped_atom_hits(self, atoms: list[Atom], cap: int) -> list[tuple[str, int]]:
        """One query: (case_id, atom index) for the published cases containing each atom,
        at most `cap + 1` of them per atom (lowest ids first): an atom with `cap + 1` rows is
        in more cases than `cap`, and its cases were not all read (`atom_counts`,
        `atom_hits_among`)."""
        if not atoms:
            return []
        union, params = self._first_cases(atoms, cap + 1, by_id=True)
        with connection.cursor() as cursor:
            cursor.execute(union, params)
            return [(row[0], row[1]) for row in cursor.fetchall()]

    def match_all_sql(self, atoms: list[Atom]) -> tuple[str, list]:
        """`match_sql` of the cases holding every one of `atoms` (each anywhere)."""
        raise NotImplementedError

    def some_group_hits(self, groups: list[list[Atom]], count: int) -> list[tuple[str, int]]:
        """(case_id, group index) for at most `count` published cases holding every atom of
        each group, the first the database finds: a word in most cases costs no more than a
        rare one (candidates for similar cases, `candidate_cases.py`). One query per
        `COMPOUND_LIMIT` groups (SQLite allows 500 SELECTs in one UNION)."""
        found: list[tuple[str, int]] = []
        for start in range(0, len(groups), COMPOUND_LIMIT):
            branches, params = [], []
            for i, group in enumerate(groups[start : start + COMPOUND_LIMIT], start=start):
                sql, group_params = self.match_all_sql(group)
                holding = f"SELECT m{i}.case_id, {i} AS grp{published_matches(i, sql)}"
                branches.append(f"SELECT * FROM ({holding} LIMIT %s) AS b{i}")
                params.extend([*group_params, PUBLISHED, count])
            with connection.cursor() as cursor:
                cursor.execute(" UNION ALL ".join(branches), params)
                found.extend((row[0], row[1]) for row in cursor.fetchall())
        return found

    def _first_cases(self, atoms: list[Atom], count: int, *, by_id: bool) -> tuple[str, list]:
        """SQL of (case_id, atom) for at most `count` published cases containing each atom:
        the lowest ids with `by_id`, else the first the database finds (cheaper: it stops)."""

        def branch(i: int, sql: str) -> str:
            order = f" ORDER BY m{i}.case_id" if by_id else ""
            return (
                f"SELECT * FROM (SELECT m{i}.case_id, {i} AS atom{published_matches(i, sql)}"
                f"{order} LIMIT %s) AS b{i}"
            )

        return self._per_atom(atoms, branch, (PUBLISHED, count))

    def atom_counts(self, atoms: list[Atom]) -> dict[int, int]:
        """One query: how many published cases contain each atom (atom index -> count; an
        atom in none is left out). The database counts; no case id comes back."""
        if not atoms:
            return {}
        union, params = self._per_atom(
            atoms, lambda i, sql: f"SELECT {i} AS atom{published_matches(i, sql)}", (PUBLISHED,)
        )
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT atom, COUNT(*) FROM ({union}) AS h GROUP BY atom", params)
            return {atom: count for atom, count in cursor.fetchall()}

    def atom_hits_among(
        self, atoms: list[Atom], case_ids: Collection[str], *, status: str = PUBLISHED
    ) -> list[tuple[str, int]]:
        """One query: (case_id, atom index) for the published cases (the cases of `status`)
        of `case_ids` that contain each atom; counting every case that does is `atom_counts`. PostgreSQL reads
        each atom's matches among `case_ids` only, by key (at 100,000 cases 14 ms for 2,000
        candidates, against 230 ms to count the 47,000 cases quoting `Xid 79`); SQLite reads
        every match from the full-text index and keeps those of `case_ids` (21 ms there)."""
        if not atoms:
            return []
        among = ids_subquery(case_ids)
        union, params = self._per_atom(
            atoms,
            lambda i, sql: (
                f"SELECT m{i}.case_id, {i} AS atom{published_matches(i, sql)}"
                f" AND m{i}.case_id IN ({among.sql})"
            ),
            (status, *among.params),
        )
        with connection.cursor() as cursor:
            cursor.execute(union, params)
            return [(row[0], row[1]) for row in cursor.fetchall()]

    def rare_atom_hits(self, atoms: list[Atom], max_cases: int) -> list[tuple[str, int]]:
        """One query: (case_id, atom index) for each atom that at most `max_cases` published
        cases contain, and each such case. Each atom reads at most `max_cases + 1` of its
        cases (enough to know it is too common), so a word in thousands of cases costs no
        more than a rare one; the count is the database's (a window over those rows)."""
        if not atoms:
            return []
        union, params = self._first_cases(atoms, max_cases + 1, by_id=False)
        sql = (
            "SELECT r.case_id, r.atom FROM ("
            "SELECT h.case_id, h.atom, count(*) OVER (PARTITION BY h.atom) AS cases"
            f" FROM ({union}) AS h) AS r"
            " WHERE r.cases <= %s"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [*params, max_cases])
            return [(row[0], row[1]) for row in cursor.fetchall()]
