"""The two full-text backends: SQLite FTS5 and PostgreSQL weighted tsvector.

Both index the same four columns (`text.IndexColumns`) and take the same `ParsedQuery`;
each turns the query into its own syntax from plain words, so no user text reaches
`MATCH` or `to_tsquery` unquoted.

SQLite: a virtual FTS5 table `incidents_case_fts(case_id UNINDEXED, title, tags, main, rest)`
with the porter stemmer; ranking is `bm25()` with column weights, snippets `snippet()`.
In a large library a query whose words are partly in most index rows is ranked from the
matches of its rarer words, the page checked exact against what a case holding only the
common words can score (`SqliteBackend._split`).
PostgreSQL: a table `incidents_case_search(case_id, body, vector)` whose `vector` is the
weighted `tsvector` (title and tags A, main B, rest C) under a GIN index; atoms become
`websearch_to_tsquery` calls combined with `&&`, `||`, `!!`; ranking is `ts_rank` with
length normalisation (see `postgres_rank`), snippets `ts_headline`; a query of several word
groups is scored like BM25 (`PostgresBackend.rank`), so both put the same case first.
Rows are written by `index.py` when cases are imported.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from django.db import connection

from incidents import store_cache
from incidents.id_lists import ids_subquery
from incidents.models import Case

from . import pg_vectors
from .query import Atom, ParsedQuery
from .snippets import balance_code_spans
from .text import MARK_END, MARK_START, ZWSP, IndexColumns, flatten_punctuation

# `incidents_case.status` of the cases search finds (`Case.Status.PUBLISHED`).
PUBLISHED = "published"

# PostgreSQL: index writes of at least this many rows refresh the table's statistics.
ANALYZE_AFTER = 500

# How much more a case counts for each vocabulary term the query named that it carries.
TERM_BOOST = 0.5

# A case's score is multiplied by (share of the query's words it matches) ** COORD_POWER.
COORD_POWER = 1
# How much more a case counts when it matches the words as typed, not only their synonyms.
LITERAL_BONUS = 4.0

SQLITE_TABLE = "incidents_case_fts"
# Between the fragments of a PostgreSQL headline (`ts_headline`'s FragmentDelimiter).
HEADLINE_DELIMITER = " … "
# FTS5 keeps the indexed columns in this shadow table (documented file format: columns
# `id` = rowid, `c0` = case_id, `c1`... the texts).
SQLITE_CONTENT = f"{SQLITE_TABLE}_content"
# The content table as `k`, read through its index on (rowid, case id), migration 0018: a
# match's case id without loading the row and its texts. SQLite's planner prefers the rowid
# lookup, which does load it, hence INDEXED BY.
SQLITE_KEYS = f"{SQLITE_CONTENT} AS k INDEXED BY incidents_case_fts_rowid_case"
# `k.c0` as a value to look a case up by, never a constraint on `k`'s index: offered both
# (`c.id = k.c0`), the planner without statistics read the cases by status first and searched
# the index for each (match x case pairs: minutes at 100,000 cases).
SQLITE_KEY_CASE_ID = "+k.c0"
POSTGRES_TABLE = "incidents_case_search"
# English stemming without the stop-word list (migration 0013): every word is indexed, as in
# SQLite's FTS5 table, so a phrase (`timed out`, `Connection reset by peer`) means the same
# words on both backends instead of losing its stop words on PostgreSQL (`timed out` -> `time`).
POSTGRES_CONFIG = "english_all_words"

# bm25 weights per FTS5 column (case_id, title, tags, main, rest).
SQLITE_WEIGHTS = (0.0, 8.0, 8.0, 3.0, 1.0)
# Weights for D, C, B, A and the ranking expression. `ts_rank` (term frequency) with
# normalisation 1 (divide by 1 + log(document length), as BM25 normalises length) scored
# better than `ts_rank_cd` on the eval/ benchmark (MRR@10 0.969 against 0.959) and agrees
# with SQLite's bm25 on the top hit of 96% of its queries (92% for ts_rank_cd).
POSTGRES_WEIGHTS = "{0.05, 0.125, 0.375, 1.0}"


# PostgreSQL scores a query of several word groups like SQLite's bm25: the sum over the
# groups of idf(group) * r / (r + SATURATION), r the group's own `ts_rank`. ts_rank has no
# idf (a common word counted as much as a rare one) and grows with the column weight
# (a title match 8 times a match in the rest, where bm25's saturation makes it about 2
# times). SATURATION chosen on the tuning set (eval/queries.json): the backends' first
# cases agreed on 145 of 154 queries with the whole query's ts_rank, 151 / 152 / 149 / 148
# with 0.004 / 0.008 / 0.016 / 0.03 (PostgreSQL's MRR@10 0.934 before, 0.935 to 0.938),
# measured with an idf over the whole table; with the idf of `_group_score`, 0.008 and
# 0.016 gave 152 and 150 (MRR@10 0.938 and 0.937).
SATURATION = 0.008

# SQLite: at least this many published cases before the ranking splits a query's words by
# rarity (`SqliteBackend._split`); below it every match is scored in one pass (cheap
# there), with no count to read.
SPLIT_FROM = 5000
# FTS5's bm25: k1, and the idf it gives a phrase in at least half the rows (its log is <= 0).
BM25_K1 = 1.2
BM25_CLAMPED_IDF = 1e-6


def _group_score(n: int) -> str:
    """SQL of word group `n`'s part of a PostgreSQL score (see SATURATION), from the columns
    `x.h<n>` (1 when the case matches the group) and `x.r<n>` (its ts_rank). 0 without a
    match: ts_rank ignores a phrase's word order, so it scores `xid <-> 79` in a case with
    "Xid 48" and "79 nodes", which does not match it. The idf counts the rows ranked (the
    allowed published cases matching any group) and those of them matching group `n`: both
    window sums over the same rows, so the idf is never negative, needs no count of the
    whole table (an estimate goes stale, an exact count reads every row), and a subquery of
    allowed ids ranks as the published check does. Under a filter the rarity is counted
    among the filtered cases, where FTS5's bm25 counts it in the whole index: the same cases
    may come in another order than in the unfiltered search."""
    frequency = f"SUM(x.h{n}) OVER ()"
    # float8 throughout: a bigint sum plus 0.5 is numeric, several times slower per row.
    idf = f"ln(1 + (COUNT(*) OVER () - {frequency} + 0.5::float8) / ({frequency} + 0.5::float8))"
    return f"x.h{n} * {idf} * x.r{n} / (x.r{n} + {SATURATION})"


def any_word_of(parsed: ParsedQuery) -> ParsedQuery:
    """The positive words of `parsed` (synonyms included) as one group: a text holding any
    of them matches. For snippets, which show the words a case shares with the query."""
    return ParsedQuery(groups=[parsed.positive_atoms()])


def postgres_rank(vector: str) -> str:
    """The ranking expression of the tsvector `vector` against the query `q.query`."""
    return f"ts_rank('{POSTGRES_WEIGHTS}', {vector}, q.query, 1)"


@dataclass(frozen=True)
class RankedRow:
    case_id: str
    score: float
    share: float = 1.0  # share of the query's word groups the case matches (0..1)
    literal_share: float = 1.0  # the same for the words as typed (synonyms not counted)
    rowid: int | None = None  # SQLite: the case's full-text row, for its snippet


def _boost_range(term_weights: dict[int, float], root_cause_weights: dict[int, float]) -> tuple[float, float]:
    """The least and the greatest factor `1 + TERM_BOOST * (_boost_sql)` can take: each
    named term counts at most once per case (one link per case and term) and a case has one
    root cause."""
    low = sum(min(w, 0.0) for w in term_weights.values()) + min([0.0, *root_cause_weights.values()])
    high = sum(max(w, 0.0) for w in term_weights.values()) + max([0.0, *root_cause_weights.values()])
    return 1 + TERM_BOOST * low, 1 + TERM_BOOST * high


# The cases not published: two ranges of the (status, id) index (`<>` read every case row
# on PostgreSQL); its parameters are PUBLISHED twice.
_NOT_PUBLISHED = "status < %s OR status > %s"

# Relative slack of the pruning bound (`_pruned`): the score and its bound are products of
# the same numbers in another order, which may differ in the last bits.
_BOUND_SLACK = 1e-9


def _pruned(
    base: str,
    rows: str,
    term_weights: dict[int, float],
    root_cause_weights: dict[int, float],
    depth: int,
    *,
    sort: str,
    unpublished_in_rows: bool,
) -> tuple[str, list]:
    """SQL of a condition keeping only the rows of `rows` that can be among the `depth` best
    scores, and its parameters; "1 = 1" when nothing can be pruned (a `sort` other than
    relevance, a negative weight, a `depth` below 1: no row is asked for).

    A row's score is `base * boost factor`, every `base` >= 0 and the factor in
    `_boost_range` [low, high]. Let T be the `depth + U`-th greatest `base` over `rows`,
    U the cases not published when `unpublished_in_rows` (every status is indexed, and the
    caller's filter drops them after this), else 0. At least `depth` allowed rows have
    `base >= T`, so a score >= T * low; a row with `base * high < T * low` scores below
    each of them and is not on the page. Exact: the same page as without the condition,
    whose cost is the joins and the term boost of every match (at 100,000 cases most of
    a query whose words are in most cases); only the bound is read before them.
    """
    low, high = _boost_range(term_weights, root_cause_weights)
    if sort != "relevance" or low <= 0 or depth < 1:
        return "1 = 1", []
    offset = "%s"
    params: list[object] = [high, low * (1 - _BOUND_SLACK), depth - 1]
    if unpublished_in_rows:
        offset += f" + (SELECT COUNT(*) FROM incidents_case WHERE {_NOT_PUBLISHED})"
        params += [PUBLISHED, PUBLISHED]
    kth = f"(SELECT {base} AS bound FROM {rows} ORDER BY bound DESC LIMIT 1 OFFSET {offset})"
    return f"{base} * %s >= %s * COALESCE({kth}, 0)", params


def _boost_sql(term_weights: dict[int, float], root_cause_weights: dict[int, float]) -> tuple[str, list]:
    """SQL summing the weights of the query-named terms case `c` carries (0 when none)."""
    parts: list[str] = []
    params: list[object] = []
    if term_weights:
        cases = " ".join("WHEN %s THEN %s" for _ in term_weights)
        marks = ", ".join(["%s"] * len(term_weights))
        parts.append(
            f"(SELECT COALESCE(SUM(CASE ct.term_id {cases} ELSE 0 END), 0)"
            " FROM incidents_caseterm ct WHERE ct.case_id = c.id"
            f" AND ct.term_id IN ({marks}))"
        )
        params.extend(v for pair in term_weights.items() for v in pair)
        params.extend(term_weights)
    if root_cause_weights:
        cases = " ".join("WHEN %s THEN %s" for _ in root_cause_weights)
        parts.append(f"(CASE c.root_cause_category_id {cases} ELSE 0 END)")
        params.extend(v for pair in root_cause_weights.items() for v in pair)
    return (" + ".join(parts) or "0"), params


_ORDER = {
    "relevance": "score DESC, c.published DESC, c.id DESC",
    "newest": "c.published DESC, c.id DESC",
    "oldest": "c.published ASC, c.id ASC",
}


# SELECTs joined in one UNION ALL at most (SQLite's limit is 500).
COMPOUND_LIMIT = 400


def _published_matches(i: int, sql: str) -> str:
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
        """
        raise NotImplementedError

    def snippets(
        self, parsed: ParsedQuery, case_ids: list[str], rowids: Mapping[str, int] | None = None
    ) -> dict[str, str]:
        """One query: a passage per case id, its matches between `MARK_START` and
        `MARK_END` (read by `snippets.parse_snippet`), each code span it cuts closed at the
        cut (`snippets.balance_code_spans`, from the indexed text read in the same query).
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
                holding = f"SELECT m{i}.case_id, {i} AS grp{_published_matches(i, sql)}"
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
                f"SELECT * FROM (SELECT m{i}.case_id, {i} AS atom{_published_matches(i, sql)}"
                f"{order} LIMIT %s) AS b{i}"
            )

        return self._per_atom(atoms, branch, (PUBLISHED, count))

    def atom_counts(self, atoms: list[Atom]) -> dict[int, int]:
        """One query: how many published cases contain each atom (atom index -> count; an
        atom in none is left out). The database counts; no case id comes back."""
        if not atoms:
            return {}
        union, params = self._per_atom(
            atoms, lambda i, sql: f"SELECT {i} AS atom{_published_matches(i, sql)}", (PUBLISHED,)
        )
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT atom, COUNT(*) FROM ({union}) AS h GROUP BY atom", params)
            return {atom: count for atom, count in cursor.fetchall()}

    def atom_hits_among(self, atoms: list[Atom], case_ids: Collection[str]) -> list[tuple[str, int]]:
        """One query: (case_id, atom index) for the published cases of `case_ids` that
        contain each atom; counting every case that does is `atom_counts`. PostgreSQL reads
        each atom's matches among `case_ids` only, by key (at 100,000 cases 14 ms for 2,000
        candidates, against 230 ms to count the 47,000 cases quoting `Xid 79`); SQLite reads
        every match from the full-text index and keeps those of `case_ids` (21 ms there)."""
        if not atoms:
            return []
        among = ids_subquery(case_ids)
        union, params = self._per_atom(
            atoms,
            lambda i, sql: (
                f"SELECT m{i}.case_id, {i} AS atom{_published_matches(i, sql)}"
                f" AND m{i}.case_id IN ({among.sql})"
            ),
            (PUBLISHED, *among.params),
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


# The store cache's name of the full-text index's row count (`SqliteBackend._index_rows`).
ROWS_NAME = "fts-rows"


def atom_digest(atom: Atom) -> str:
    """A cache name's part for an atom (its words may hold any characters)."""
    return hashlib.sha1(repr(atom.words).encode(), usedforsecurity=False).hexdigest()[:24]


@dataclass(frozen=True)
class _Split:
    """A query's atoms in fewer than half the index rows (`rare`) and in at least half
    (`common`), and the highest score a case holding only common ones can have."""

    rare: tuple[Atom, ...]
    common: tuple[Atom, ...]
    bound: float


class SqliteBackend(Backend):
    vendor = "sqlite"

    def write(self, rows: list[tuple[str, IndexColumns]]) -> None:
        with connection.cursor() as cursor:
            cursor.executemany(
                f"INSERT INTO {SQLITE_TABLE} (case_id, title, tags, main, rest) VALUES (%s, %s, %s, %s, %s)",
                [(case_id, *columns.as_tuple()) for case_id, columns in rows],
            )

    def delete(self, case_ids: list[str]) -> None:
        if not case_ids:
            return
        marks = ", ".join(["%s"] * len(case_ids))
        # By rowid, found through the content table's index on the case id (migration 0018):
        # `WHERE case_id IN` read every row of the FTS5 table (0.17 s at 100,000 cases).
        with connection.cursor() as cursor:
            cursor.execute(
                f"DELETE FROM {SQLITE_TABLE} WHERE rowid IN"
                f" (SELECT id FROM {SQLITE_CONTENT} WHERE c0 IN ({marks}))",
                case_ids,
            )

    def indexed_ids(self) -> set[str]:
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT c0 FROM {SQLITE_CONTENT}")
            return {row[0] for row in cursor.fetchall()}

    @staticmethod
    def _atom(atom: Atom) -> str:
        # Words hold only letters and digits, so a double-quoted FTS5 string is always valid.
        return '"' + " ".join(atom.words) + '"'

    def expression(self, parsed: ParsedQuery) -> str:
        groups = ["(" + " OR ".join(self._atom(a) for a in group) + ")" for group in parsed.groups]
        expression = " AND ".join(groups)
        for atom in parsed.excluded:
            expression += " NOT " + self._atom(atom)
        return expression

    def match_sql(self, atoms: list[Atom]) -> tuple[str, list]:
        return self._match(" OR ".join(self._atom(a) for a in atoms))

    def match_all_sql(self, atoms: list[Atom]) -> tuple[str, list]:
        return self._match(" AND ".join(self._atom(a) for a in atoms))

    @staticmethod
    def _match(expression: str) -> tuple[str, list]:
        # The case id by rowid from the content table's index, as the ranking reads it:
        # through the FTS5 table it loads every column of the row (a phrase in 47,000 of
        # 100,000 cases: 225 ms, 125 ms from the content table's rows, 18 ms this way).
        return (
            f"SELECT {SQLITE_KEY_CASE_ID} AS case_id FROM {SQLITE_TABLE} JOIN {SQLITE_KEYS}"
            f" ON k.id = {SQLITE_TABLE}.rowid WHERE {SQLITE_TABLE} MATCH %s",
            [expression],
        )

    def rank(
        self,
        parsed,
        candidates,
        *,
        term_weights,
        root_cause_weights,
        sort,
        offset,
        limit,
        coordinate=(),
        literal=(),
        library_size=0,
    ):
        options = dict(
            term_weights=term_weights,
            root_cause_weights=root_cause_weights,
            sort=sort,
            offset=offset,
            limit=limit,
            coordinate=coordinate,
            literal=literal,
        )
        # Filtered, the allowed cases are often fewer than the page's depth, so the split page
        # would seldom be full and the single pass would follow it: at 100,000 cases a topic
        # filter's ranking took 4.6 s split against 3.3 s in one pass.
        split = (
            None
            if candidates is not None
            else self._split(parsed, library_size, term_weights, root_cause_weights, sort, offset + limit)
        )
        if split is not None:
            rows = self._ranked(parsed, candidates, split=split, **options)
            # Exact when the page is full and its last score beats any case holding only
            # common words: such a case scores at most `split.bound`.
            if len(rows) == limit and rows[-1].score > split.bound:
                return rows
        return self._ranked(parsed, candidates, split=None, **options)

    def _split(
        self,
        parsed: ParsedQuery,
        library_size: int,
        term_weights: dict[int, float],
        root_cause_weights: dict[int, float],
        sort: str,
        depth: int,
    ) -> _Split | None:
        """The query's atoms as rare and common ones, when ranking the matches of the rare
        ones can give the exact page (the first `depth` rows); None otherwise (too few
        cases, one word, every word rare or every word common, fewer rows holding a rare
        word than `depth`, a sort other than relevance, a negative weight, an exclusion).

        FTS5's bm25 gives a phrase in at least half the index rows an idf of 1e-6 (its log
        is <= 0), so a case holding only such common words scores at most
        `common * 1e-6 * (k1 + 1)` before the factors (`_factors`, at most 1 + LITERAL_BONUS,
        and the term boost): a few millionths. Scoring only the cases holding a rare word
        skips every other match: at 100,000 synthetic cases a long query's words were in
        99% of them, its rare words in 29%. The rows of each word are counted once a store
        generation (`store_cache.cached_many`; all statuses, as bm25 counts them)."""
        if sort != "relevance" or depth < 1 or library_size < SPLIT_FROM or parsed.excluded:
            return None
        atoms = list(dict.fromkeys(a for group in parsed.groups for a in group))
        low, high = _boost_range(term_weights, root_cause_weights)
        if len(atoms) < 2 or low <= 0:
            return None
        rows, counts = self._index_rows(atoms)
        common = tuple(a for a in atoms if 2 * counts[a] >= rows)
        rare = tuple(a for a in atoms if 2 * counts[a] < rows)
        if not common or not rare or sum(counts[a] for a in rare) < depth:
            return None
        most = len(common) * BM25_CLAMPED_IDF * (BM25_K1 + 1) * (1 + LITERAL_BONUS) * high
        return _Split(rare=rare, common=common, bound=most * (1 + _BOUND_SLACK))

    def _index_rows(self, atoms: list[Atom]) -> tuple[int, dict[Atom, int]]:
        """The full-text index's rows and, for each atom, those holding it (every status),
        kept per store generation: one query for those not held."""
        names = {atom: "fts-rows:" + atom_digest(atom) for atom in atoms}

        def count(missing: list[str]) -> dict[str, int]:
            wanted = [atom for atom, name in names.items() if name in missing]
            parts = [f"(SELECT COUNT(*) FROM {SQLITE_CONTENT})"]
            parts += [f"(SELECT COUNT(*) FROM {SQLITE_TABLE} WHERE {SQLITE_TABLE} MATCH %s)" for _ in wanted]
            with connection.cursor() as cursor:
                cursor.execute("SELECT " + ", ".join(parts), [self._atom(a) for a in wanted])
                found = cursor.fetchone()
            return {ROWS_NAME: found[0], **{names[a]: n for a, n in zip(wanted, found[1:], strict=True)}}

        held = store_cache.cached_many([ROWS_NAME, *names.values()], count)
        return held[ROWS_NAME], {atom: held[name] for atom, name in names.items()}

    def _ranked(
        self,
        parsed,
        candidates,
        *,
        split,
        term_weights,
        root_cause_weights,
        sort,
        offset,
        limit,
        coordinate,
        literal,
    ) -> list[RankedRow]:
        """The ranking statement: every match of `parsed` scored, or with `split` only the
        matches of its rare atoms (their scores exact: bm25 of the whole expression)."""
        boost, boost_params = _boost_sql(term_weights, root_cause_weights)
        # Each distinct group's matches are read once, into the lookup table of an `IN`
        # subquery, and each match tested against it once, as a column `f.h<n>` (1 or 0):
        # the shares name a group up to four times (score and column, coordinate and
        # literal), and each `IN` in an expression built its own lookup table again. The
        # subquery is written in place, not as a MATERIALIZED table `g<n>`, which SQLite
        # copied into the lookup table (a second copy of every match of a common word: the
        # bench's long query 190 -> 160 ms CPU at 20,000 cases, the same rows).
        matched: dict[str, int] = {}
        groups_of: dict[str, list[Atom]] = {}

        def shared(groups: list[list[Atom]]) -> str:
            parts = []
            for group in groups:
                expression = self.expression(ParsedQuery(groups=[group]))
                number = matched.setdefault(expression, len(matched))
                groups_of[expression] = group
                parts.append(f"f.h{number}")
            return f"(({' + '.join(parts)}) / {len(groups)}.0)"

        coord = self._factors(list(coordinate), list(literal), shared)
        share = shared(list(coordinate)) if len(coordinate) > 1 else "1.0"
        literal_share = shared(list(literal)) if literal else share
        # Matches are handled by rowid and their case ids read once, at the join, from the
        # FTS5 table's own content table (`<table>_content`, columns id, c0 = case_id, ...)
        # through its (id, c0) index (`SQLITE_KEYS`): reading `case_id` through the FTS5
        # table loads every column of the row, long texts included (about 2.7 µs a row: 9
        # word groups of 10,000 matches took 250 ms). CROSS JOIN keeps SQLite's join order
        # (matches, their keys, their cases): without statistics it read every published
        # case for each match otherwise.
        # Split, the rows are the rare atoms' matches, and a group of common atoms is tested
        # by the few of them that lack it (`rare NOT group`): its own matches are most rows
        # (at 100,000 cases 50 ms a word to list, 5 ms the rows lacking it).
        rare = "(" + " OR ".join(self._atom(a) for a in split.rare) + ")" if split else ""
        hit_params = []
        hits = ""
        for expression, n in matched.items():
            if split and all(a in split.common for a in groups_of[expression]):
                hits += (
                    f", (m.r NOT IN (SELECT rowid FROM {SQLITE_TABLE} WHERE {SQLITE_TABLE} MATCH %s)) AS h{n}"
                )
                hit_params.append(f"{rare} NOT {expression}")
            else:
                hits += f", (m.r IN (SELECT rowid FROM {SQLITE_TABLE} WHERE {SQLITE_TABLE} MATCH %s)) AS h{n}"
                hit_params.append(expression)
        weights = ", ".join(str(w) for w in SQLITE_WEIGHTS)
        if candidates is None:
            allowed, allowed_params = "c.status = %s", [PUBLISHED]
            only, only_params = "", []
        else:
            # The filter before the bound, which must be read among the allowed rows.
            only = f" CROSS JOIN {SQLITE_KEYS} ON k.id = m.r WHERE k.c0 IN ({candidates[0]})"
            only_params = list(candidates[1])
            # `f` holds the allowed rows only. Naming every status lets each kept row's case
            # be read from the (status, id, published, root cause) index alone, instead of
            # its row, which holds the whole document.
            allowed_params = list(Case.Status.values)
            allowed = f"c.status IN ({', '.join(['%s'] * len(allowed_params))})"
        kept, kept_params = _pruned(
            f"f.base * {coord}",
            "f",
            term_weights,
            root_cause_weights,
            offset + limit,
            sort=sort,
            unpublished_in_rows=candidates is None,
        )
        # bm25() only works in the query that has the MATCH: rank there, join outside.
        scored = (
            f"SELECT rowid AS r, -bm25({SQLITE_TABLE}, {weights}) AS base"
            f" FROM {SQLITE_TABLE} WHERE {SQLITE_TABLE} MATCH %s"
        )
        if split:
            # Both halves keep every atom of the query as a phrase of their expression, so
            # bm25 scores each row as the whole query does (a phrase a row lacks adds 0).
            common = "(" + " OR ".join(self._atom(a) for a in split.common) + ")"
            matches, match_params = (
                f"{scored} UNION ALL {scored}",
                [f"({rare} AND {common})", f"({rare} NOT {common})"],
            )
        else:
            matches, match_params = scored, [self.expression(parsed)]
        sql = (
            f"WITH m AS MATERIALIZED ({matches}),"
            f" f AS MATERIALIZED (SELECT m.r, m.base{hits} FROM m{only})"
            f" SELECT k.c0, f.base * {coord} * (1 + {TERM_BOOST} * ({boost}))"
            f" AS score, {share} AS share, {literal_share} AS literal_share, f.r"
            f" FROM f CROSS JOIN {SQLITE_KEYS} ON k.id = f.r CROSS JOIN incidents_case c ON c.id = k.c0"
            f" WHERE {kept} AND {allowed}"
            f" ORDER BY {_ORDER[sort]} LIMIT %s OFFSET %s"
        )
        params = [
            *match_params,
            *hit_params,
            *only_params,
            *boost_params,
            *kept_params,
            *allowed_params,
            limit,
            offset,
        ]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        return [RankedRow(r[0], float(r[1]), float(r[2]), float(r[3]), r[4]) for r in rows]

    def snippets(self, parsed, case_ids, rowids=None):
        if not case_ids or not parsed.groups:
            return {}
        marks = ", ".join(["%s"] * len(case_ids))
        # The rows by rowid when the ranking read every one (one row per case: `index.py`
        # deletes before it writes): `case_id IN (...)` read the case id of every match of
        # the query to keep 20 (at 10,000 cases 915 rows, 6-14 ms, against 1-3 ms).
        rowid_of = rowids or {}
        by_rowid = all(c in rowid_of for c in case_ids)
        keys: list = [rowid_of[c] for c in case_ids] if by_rowid else case_ids
        key = "rowid" if by_rowid else "case_id"
        # Any of the positive words, not all: a case holding only some of them (a partial
        # match, or a possible one) matched no row of the whole query and showed no words.
        # The phrases are the query's either way, so a case holding all of them gets the
        # same fragment as before. Excluded words stay out: snippet() would mark them too.
        positive = any_word_of(parsed)
        # A fragment of the symptoms/cause column, else of the rest, else the best column;
        # the columns too, for `balance_code_spans` to see where a fragment was cut.
        snippet = f"snippet({SQLITE_TABLE}, %s, %s, %s, '…', 24)"
        sql = (
            f"SELECT case_id, {snippet}, {snippet}, {snippet}, main, rest, title, tags FROM {SQLITE_TABLE}"
            f" WHERE {SQLITE_TABLE} MATCH %s AND {key} IN ({marks})"
        )
        params = [n for column in (3, 4, -1) for n in (column, MARK_START, MARK_END)]
        with connection.cursor() as cursor:
            cursor.execute(sql, [*params, self.expression(positive), *keys])
            rows = cursor.fetchall()
        passages = {}
        for row in rows:
            passage = next((s for s in row[1:4] if s and MARK_START in s), row[3])
            passages[row[0]] = balance_code_spans(passage, row[4:]) if passage else passage
        return passages


# Each index row's vector from its four column texts (SQL expressions): title and tags
# weigh A, main B, rest C.
def _vector(columns: list[str]) -> str:
    return " || ".join(
        f"setweight(to_tsvector('{POSTGRES_CONFIG}', {column}), '{weight}')"
        for column, weight in zip(columns, "AABC", strict=True)
    )


_UPSERT = " ON CONFLICT (case_id) DO UPDATE SET body = EXCLUDED.body, vector = EXCLUDED.vector"


def _postgres_rows(rows: list[tuple[str, IndexColumns]]) -> pg_vectors.Rows:
    """(case id, body, the four column texts) of each index row, as PostgreSQL indexes them."""
    return [
        # A zero-width space after each `<` keeps ts_headline's parser from taking text
        # such as `<script>` for markup and dropping it from snippets.
        (case_id, columns.body().replace("<", "<" + ZWSP), *map(flatten_punctuation, columns.as_tuple()))  # type: ignore[misc]
        for case_id, columns in rows
    ]


def _write_computed(rows: pg_vectors.Rows, vectors: list[str]) -> None:
    """Write index rows whose vectors were computed already (`pg_vectors`), in one statement."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {POSTGRES_TABLE} (case_id, body, vector)"
            f" SELECT * FROM unnest(%s::text[], %s::text[], %s::tsvector[]){_UPSERT}",
            [[row[0] for row in rows], [row[1] for row in rows], vectors],
        )


class PostgresBackend(Backend):
    vendor = "postgresql"

    def write(self, rows: list[tuple[str, IndexColumns]]) -> None:
        vector = _vector(["%s"] * 4)
        with connection.cursor() as cursor:
            cursor.executemany(
                f"INSERT INTO {POSTGRES_TABLE} (case_id, body, vector) VALUES (%s, %s, {vector}){_UPSERT}",
                _postgres_rows(rows),
            )

    @contextmanager
    def writer(self, expected: int) -> Iterator[Callable[[list[tuple[str, IndexColumns]]], None]]:
        """As `Backend.writer`; from `pg_vectors.PARALLEL_FROM` rows the vectors are computed
        on a second connection while the caller goes on (`pg_vectors.parallel_writer`)."""
        if expected < pg_vectors.PARALLEL_FROM:
            yield self.write
            return
        with pg_vectors.parallel_writer(pg_vectors.vectors_sql(_vector), _write_computed) as add:
            yield lambda rows: add(_postgres_rows(rows))

    def after_bulk_write(self, count: int) -> None:
        if count >= ANALYZE_AFTER:
            # Fresh statistics after a large import: with none, the planner guesses one
            # matching row and checks each case's vector in a loop (3x slower facets).
            with connection.cursor() as cursor:
                cursor.execute(f"ANALYZE {POSTGRES_TABLE}, incidents_case, incidents_caseterm")

    def delete(self, case_ids: list[str]) -> None:
        if not case_ids:
            return
        with connection.cursor() as cursor:
            cursor.execute(f"DELETE FROM {POSTGRES_TABLE} WHERE case_id = ANY(%s)", [case_ids])

    def indexed_ids(self) -> set[str]:
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT case_id FROM {POSTGRES_TABLE}")
            return {row[0] for row in cursor.fetchall()}

    @staticmethod
    def _atom(atom: Atom) -> tuple[str, list]:
        text = " ".join(atom.words)
        return f"websearch_to_tsquery('{POSTGRES_CONFIG}', %s)", [f'"{text}"' if atom.is_phrase else text]

    def tsquery(self, parsed: ParsedQuery, *, positive_only: bool = False) -> tuple[str, list]:
        sql_groups, params = [], []
        for group in parsed.groups:
            alternatives = []
            for atom in group:
                sql, atom_params = self._atom(atom)
                alternatives.append(sql)
                params.extend(atom_params)
            sql_groups.append("(" + " || ".join(alternatives) + ")")
        expression = " && ".join(sql_groups)
        if not positive_only:
            for atom in parsed.excluded:
                sql, atom_params = self._atom(atom)
                expression += f" && !!{sql}"
                params.extend(atom_params)
        return expression, params

    def match_sql(self, atoms: list[Atom]) -> tuple[str, list]:
        return self._match(atoms, " || ")

    def match_all_sql(self, atoms: list[Atom]) -> tuple[str, list]:
        return self._match(atoms, " && ")

    def _match(self, atoms: list[Atom], operator: str) -> tuple[str, list]:
        sql_parts, params = [], []
        for atom in atoms:
            sql, atom_params = self._atom(atom)
            sql_parts.append(sql)
            params.extend(atom_params)
        return (f"SELECT case_id FROM {POSTGRES_TABLE} WHERE vector @@ ({operator.join(sql_parts)})", params)

    def rank(
        self,
        parsed,
        candidates,
        *,
        term_weights,
        root_cause_weights,
        sort,
        offset,
        limit,
        coordinate=(),
        literal=(),
        library_size=0,
    ):
        boost, boost_params = _boost_sql(term_weights, root_cause_weights)
        # Each distinct word group's tsquery is built once (a column `q<n>` of `q`) and each
        # match tested against it once (a column `h<n>` of `x`, 1 or 0), on the vector
        # decompressed once per row (`v.v`; OFFSET 0 keeps the planner from inlining it
        # back): the shares name a group up to four times, and every `s.vector @@ ...`
        # decompressed the stored vector again (33 times a row for an 8-word query).
        numbered: dict[str, int] = {}
        group_sql: list[str] = []
        group_params: list = []

        def number(group: list[Atom]) -> int:
            tsquery, tsquery_params = self.tsquery(ParsedQuery(groups=[group]))
            key = f"{tsquery}\x1f{tsquery_params!r}"
            if key not in numbered:
                numbered[key] = len(numbered)
                group_sql.append(f"{tsquery} AS q{numbered[key]}")
                group_params.extend(tsquery_params)
            return numbered[key]

        def shared(groups: list[list[Atom]]) -> str:
            parts = [f"x.h{number(group)}" for group in groups]
            return f"(({' + '.join(parts)}) / {len(groups)}.0)"

        # Several groups: each gets its own ts_rank column `r<n>` and an idf from its document
        # frequency; see SATURATION. The whole query's ts_rank is then not needed.
        scored = sorted({number(group) for group in coordinate}) if len(coordinate) > 1 else []
        coord = self._factors(list(coordinate), list(literal), shared)
        share = shared(list(coordinate)) if len(coordinate) > 1 else "1.0"
        literal_share = shared(list(literal)) if literal else share
        tsquery, tsquery_params = self.tsquery(parsed)
        # A group whose tsquery is lexemes joined by OR matches exactly when its ts_rank is
        # above 0 (every weight is positive): a scored group's match flag then comes from its
        # rank, computed anyway, instead of a second pass over the vector (the bench's long
        # query: nine groups, 100,000 matches). A phrase (`<->`, also what PostgreSQL makes
        # of `2.22.3` or `1e5abc`) may rank above 0 without matching, so it is tested:
        # whether a group has an operator other than OR is read from its tsquery once (`o<n>`).
        derived = self._flags_from_ranks(scored)
        tested = [n for n in range(len(numbered)) if n not in derived]
        hits = "".join(f", CASE WHEN v.v @@ q.q{n} THEN 1 ELSE 0 END AS h{n}" for n in tested)
        hits += "".join(
            f", CASE WHEN q.o{n} THEN CASE WHEN v.v @@ q.q{n} THEN 1 ELSE 0 END END AS t{n}" for n in derived
        )
        hits += "".join(f", ts_rank('{POSTGRES_WEIGHTS}', v.v, q.q{n}, 1) AS r{n}" for n in scored)
        from_rank = "CASE WHEN m.r{n} > 0 THEN 1 ELSE 0 END"
        flags = "".join(f", COALESCE(m.t{n}, {from_rank.format(n=n)}) AS h{n}" for n in derived)
        operators = "".join(f", i.q{n}::text ~ '[<&!]' AS o{n}" for n in derived)
        whole_rank = "" if scored else f", {postgres_rank('v.v')} AS base"
        base = "(" + " + ".join(_group_score(n) for n in scored) + ")" if scored else "x.base"
        queries = "".join(f", {sql}" for sql in group_sql)
        # The idf counts the published matches only: the cases not published (few) leave
        # `x`, before the windows of `y` count it; so `y` holds allowed cases only.
        allowed = f" AND s.case_id NOT IN (SELECT id FROM incidents_case WHERE {_NOT_PUBLISHED})"
        allowed_params: list[object] = [PUBLISHED, PUBLISHED]
        # Every match is published here (`allowed`): naming the status lets the case look-up
        # read the (status, id, published, root cause) index alone.
        case_status, case_status_params = "c.status = %s AND ", [PUBLISHED]
        if candidates is not None:
            allowed, allowed_params = f" AND s.case_id IN ({candidates[0]})", [*candidates[1]]
            case_status, case_status_params = "", []
        kept, kept_params = _pruned(
            "y.base",
            "y",
            term_weights,
            root_cause_weights,
            offset + limit,
            sort=sort,
            unpublished_in_rows=False,
        )
        sql = (
            # `m`, the matches with their numbers, is computed once (MATERIALIZED) and then
            # joined and sorted: the sort carries numbers, where the inlined form sorted every
            # match with its decompressed vector (16 MB for 10,000 matches: a merge sort on
            # disk), and a planner without statistics (a small store, never analysed) cannot
            # run it again for every case row it joins.
            f"WITH m AS MATERIALIZED (SELECT s.case_id{whole_rank}{hits}"
            f" FROM (SELECT i.*{operators} FROM (SELECT {tsquery} AS query{queries}) i) q, {POSTGRES_TABLE} s"
            " CROSS JOIN LATERAL (SELECT s.vector || ''::tsvector AS v OFFSET 0) v"
            f" WHERE s.vector @@ q.query{allowed}),"
            # `x`: the matches with every group's flag, the derived ones from their ranks.
            f" x AS (SELECT m.*{flags} FROM m),"
            # `y`: each match's score before the term boost (its idf needs every match) and
            # its shares, so that the bound (`_pruned`) is read before the join and the boost.
            f" y AS MATERIALIZED (SELECT x.case_id, {base} * {coord} AS base,"
            f" {share} AS share, {literal_share} AS literal_share FROM x)"
            f" SELECT y.case_id, y.base * (1 + {TERM_BOOST} * ({boost})) AS score,"
            f" y.share, y.literal_share"
            # Each kept match's case looked up by key (OFFSET 0 keeps the planner from
            # turning it into a join), from the (status, id, ...) index alone when the
            # planner picks it: a hash join read every case row to join a few thousand
            # matches (at 100,000 cases 120 of a 300 ms statement). Without the pruning
            # bound (a sort by date, which `rank` callers do not ask for) a join would be
            # cheaper: every match is then probed.
            f" FROM y CROSS JOIN LATERAL (SELECT c.id, c.published, c.root_cause_category_id"
            f" FROM incidents_case c WHERE {case_status}c.id = y.case_id OFFSET 0) c"
            f" WHERE {kept}"
            f" ORDER BY {_ORDER[sort]} LIMIT %s OFFSET %s"
        )
        params = [
            *tsquery_params,
            *group_params,
            *allowed_params,
            *boost_params,
            *case_status_params,
            *kept_params,
            limit,
            offset,
        ]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        return [RankedRow(r[0], float(r[1]), float(r[2]), float(r[3])) for r in rows]

    @staticmethod
    def _flags_from_ranks(scored: list[int]) -> list[int]:
        """The scored groups whose match flag may come from their rank when their tsquery
        turns out to be lexemes joined by OR: all of them."""
        return list(scored)

    def snippets(self, parsed, case_ids, rowids=None):
        if not case_ids or not parsed.groups:
            return {}
        tsquery, params = self.tsquery(parsed, positive_only=True)
        # A case holding only some of the words: ts_headline finds no fragment covering the
        # whole query and marks nothing, so its passage is read with any of the words (a case
        # holding all of them keeps the passage of the whole query).
        loose, loose_params = self.tsquery(any_word_of(parsed), positive_only=True)
        options = (
            f"StartSel={MARK_START}, StopSel={MARK_END}, MaxWords=30, MinWords=12,"
            f' ShortWord=2, MaxFragments=2, FragmentDelimiter="{HEADLINE_DELIMITER}"'
        )
        # The body too, for `balance_code_spans` to see where each fragment was cut.
        sql = (
            f"SELECT s.case_id, CASE WHEN s.vector @@ q.query"
            f" THEN ts_headline('{POSTGRES_CONFIG}', s.body, q.query, %s)"
            f" ELSE ts_headline('{POSTGRES_CONFIG}', s.body, q.loose, %s) END, s.body"
            f" FROM (SELECT {tsquery} AS query, {loose} AS loose) q, {POSTGRES_TABLE} s"
            " WHERE s.case_id = ANY(%s)"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [options, options, *params, *loose_params, case_ids])
            return {
                case_id: balance_code_spans(passage, [body], delimiter=HEADLINE_DELIMITER)
                if passage
                else passage
                for case_id, passage, body in cursor.fetchall()
            }


_BACKENDS = {"sqlite": SqliteBackend(), "postgresql": PostgresBackend()}


def get_backend(vendor: str | None = None) -> Backend:
    """The backend for `vendor` (default: the default connection's)."""
    vendor = vendor or connection.vendor
    try:
        return _BACKENDS[vendor]
    except KeyError:
        raise NotImplementedError(f"search supports SQLite and PostgreSQL, not {vendor}") from None
