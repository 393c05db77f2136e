"""SQLite: FTS5 with the porter stemmer, ranked by `bm25()` with column weights.

The virtual table `incidents_case_fts(case_id UNINDEXED, title, tags, main, rest)`; snippets
by `snippet()`. In a large library a query whose words are partly in most index rows is
ranked from the matches of its rarer words, the page checked exact against what a case
holding only the common words can score (`SqliteBackend._split`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.db import connection

from incidents import store_cache
from incidents.models import Case

from ..query import Atom, ParsedQuery
from ..snippets import balance_code_spans
from ..text import MARK_END, MARK_START, IndexColumns
from . import ranking_sql
from .base import LITERAL_BONUS, PUBLISHED, TERM_BOOST, Backend, Marked, RankedRow, any_word_of

SQLITE_TABLE = "incidents_case_fts"
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

# bm25 weights per FTS5 column (case_id, title, tags, main, rest).
SQLITE_WEIGHTS = (0.0, 8.0, 8.0, 3.0, 1.0)

# SQLite: at least this many published cases before the ranking splits a query's words by
# rarity (`SqliteBackend._split`); below it every match is scored in one pass (cheap
# there), with no count to read.
SPLIT_FROM = 5000
# FTS5's bm25: k1, and the idf it gives a phrase in at least half the rows (its log is <= 0).
BM25_K1 = 1.2
BM25_CLAMPED_IDF = 1e-6


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
        low, high = ranking_sql.boost_range(term_weights, root_cause_weights)
        if len(atoms) < 2 or low <= 0:
            return None
        rows, counts = self._index_rows(atoms)
        common = tuple(a for a in atoms if 2 * counts[a] >= rows)
        rare = tuple(a for a in atoms if 2 * counts[a] < rows)
        if not common or not rare or sum(counts[a] for a in rare) < depth:
            return None
        most = len(common) * BM25_CLAMPED_IDF * (BM25_K1 + 1) * (1 + LITERAL_BONUS) * high
        return _Split(rare=rare, common=common, bound=most * (1 + ranking_sql.BOUND_SLACK))

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
        if sort == "relevance":
            # The same page from the phrases' bm25 terms this process holds, when it holds the
            # case columns (`phrase_terms`): FTS5 scores no match again.
            page = self._from_held_terms(
                parsed,
                candidates,
                split=split,
                term_weights=term_weights,
                root_cause_weights=root_cause_weights,
                offset=offset,
                limit=limit,
                coordinate=coordinate,
                literal=literal,
            )
            if page is not None:
                return page
        boost, boost_params = ranking_sql.boost_sql(term_weights, root_cause_weights)
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
            # The filter before the bound, which must be read among the allowed rows. The
            # unary + keeps the (id, c0) index to `id` alone, so each match's case id is
            # tested against the allowed list: as `k.c0 IN` SQLite probed the index once per
            # allowed case for every match (at 100,000 cases `xid 79` with a symptom filter,
            # 47,000 matches by about 30,000 allowed cases: 75 s; now 0.2 s, the same rows).
            only = f" CROSS JOIN {SQLITE_KEYS} ON k.id = m.r WHERE +k.c0 IN ({candidates[0]})"
            only_params = list(candidates[1])
            # `f` holds the allowed rows only. Naming every status lets each kept row's case
            # be read from the (status, id, published, root cause) index alone, instead of
            # its row, which holds the whole document.
            allowed_params = list(Case.Status.values)
            allowed = f"c.status IN ({', '.join(['%s'] * len(allowed_params))})"
        kept, kept_params = ranking_sql.pruned(
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
        common_tables = (
            f"WITH m AS MATERIALIZED ({matches}), f AS MATERIALIZED (SELECT m.r, m.base{hits} FROM m{only})"
        )
        common_params = [*match_params, *hit_params, *only_params]
        if kept_params:
            # The kept rows with their case ids alone, the boost, status, date and order from
            # the process's case columns (`boosted_page`): no case row, no term link read.
            # Imported here: numpy stays out of commands that never search.
            from .boosted_page import page_from_held_columns

            # By rowid: each kept row's case is found in those columns, so no case id is
            # read here (`boosted_page`'s `by_rowid`).
            page = page_from_held_columns(
                f"{common_tables} SELECT f.r, f.base * {coord}, {share}, {literal_share} FROM f WHERE {kept}",
                [*common_params, *kept_params],
                term_weights=term_weights,
                root_cause_weights=root_cause_weights,
                published_only=candidates is None,
                sort=sort,
                offset=offset,
                limit=limit,
                by_rowid=True,
            )
            if page is not None:
                return page
        sql = (
            f"{common_tables}"
            f" SELECT k.c0, f.base * {coord} * (1 + {TERM_BOOST} * ({boost}))"
            f" AS score, {share} AS share, {literal_share} AS literal_share, f.r"
            f" FROM f CROSS JOIN {SQLITE_KEYS} ON k.id = f.r CROSS JOIN incidents_case c ON c.id = k.c0"
            f" WHERE {kept} AND {allowed}"
            f" ORDER BY {ranking_sql.ORDER[sort]} LIMIT %s OFFSET %s"
        )
        params = [*common_params, *boost_params, *kept_params, *allowed_params, limit, offset]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        return [RankedRow(r[0], float(r[1]), float(r[2]), float(r[3]), r[4]) for r in rows]

    def _from_held_terms(
        self,
        parsed,
        candidates,
        *,
        split,
        term_weights,
        root_cause_weights,
        offset,
        limit,
        coordinate,
        literal,
    ) -> list[RankedRow] | None:
        """`_ranked`'s page by relevance from held phrase terms (`phrase_terms`), or None when
        the store cache is off or they cannot give it (the caller runs the statement). One
        query for the phrases not held this store generation, one for the allowed cases'
        ids when filtered."""
        # numpy: out of commands that never search.
        from .. import case_columns
        from . import phrase_terms

        held = phrase_terms.held()
        columns = case_columns.held()
        if held is None or columns is None:
            return None
        allowed = None
        if candidates is not None:
            with connection.cursor() as cursor:
                cursor.execute(*candidates)
                ids = [row[0] for row in cursor.fetchall()]
            numbers = columns.numbers(ids)
            if numbers is None:
                return None
            rowids = columns.rowid_of[numbers]
            allowed = rowids[rowids >= 0]
        if split:
            # Both halves of the split statement: the rows holding a rare atom, scored by the
            # expression `(rare) AND (common)` / `(rare) NOT (common)`, phrases in that order.
            groups, excluded, order = [list(split.rare)], [], [*split.rare, *split.common]
        else:
            groups, excluded = [list(g) for g in parsed.groups], list(parsed.excluded)
            order = [*(a for g in groups for a in g), *excluded]
        everything = [*order, *(a for g in [*coordinate, *literal] for a in g)]
        return phrase_terms.ranked_from_terms(
            held,
            table=SQLITE_TABLE,
            weights=", ".join(str(w) for w in SQLITE_WEIGHTS),
            phrase_of={a: self._atom(a) for a in everything},
            groups=groups,
            excluded=excluded,
            order=order,
            coordinate=[list(g) for g in coordinate],
            literal=[list(g) for g in literal],
            allowed_rowids=allowed,
            term_weights=term_weights,
            root_cause_weights=root_cause_weights,
            offset=offset,
            limit=limit,
        )

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
        if not by_rowid:
            # The cases the ranking did not read (partial matches found by meaning, a case
            # named by its id) by the rowids the process's case columns hold: at 100,000
            # cases `case_id IN` cost up to 290 CPU ms (every match's case id read). A
            # rowid of columns read before a write at worst finds another case's row, whose
            # passage is keyed by its own case id: that case just shows no snippet.
            from .. import case_columns  # numpy: out of commands that never search

            columns = case_columns.held()
            missing = [c for c in case_ids if c not in rowid_of]
            held = columns.rowids_of(missing) if columns is not None else None
            if held is not None:
                found = dict(zip(missing, held, strict=True))
                by_rowid, keys = True, [rowid_of.get(c, found.get(c)) for c in case_ids]
        key = "rowid" if by_rowid else "case_id"
        # Any of the positive words, not all: a case holding only some of them (a partial
        # match, or a possible one) matched no row of the whole query and showed no words.
        # The phrases are the query's either way, so a case holding all of them gets the
        # same fragment as before. Excluded words stay out: snippet() would mark them too.
        positive = any_word_of(parsed)
        # A fragment of the symptoms/cause column, else of the rest, else the best column;
        # the columns too, for `balance_code_spans` to see where a fragment was cut.
        snippet = f"snippet({SQLITE_TABLE}, %s, %s, %s, '…', 24)"
        # The title whole, its matches marked (column 1): `Marked.title`.
        title = f"highlight({SQLITE_TABLE}, 1, %s, %s)"
        sql = (
            f"SELECT case_id, {snippet}, {snippet}, {snippet}, main, rest, title, tags, {title}"
            f" FROM {SQLITE_TABLE} WHERE {SQLITE_TABLE} MATCH %s AND {key} IN ({marks})"
        )
        params = [n for column in (3, 4, -1) for n in (column, MARK_START, MARK_END)]
        with connection.cursor() as cursor:
            cursor.execute(sql, [*params, MARK_START, MARK_END, self.expression(positive), *keys])
            rows = cursor.fetchall()
        passages = {}
        for row in rows:
            passage = next((s for s in row[1:4] if s and MARK_START in s), row[3])
            passage = balance_code_spans(passage, row[4:8]) if passage else passage
            passages[row[0]] = Marked(passage, row[8], "\n".join(part for part in row[4:6] if part))
        return passages
