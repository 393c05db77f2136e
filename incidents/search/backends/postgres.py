"""PostgreSQL: a weighted `tsvector` per case under a GIN index, ranked by `ts_rank`.

The table `incidents_case_search(case_id, body, vector)`: `vector` weighs title and tags A,
main B, rest C; atoms become `websearch_to_tsquery` calls combined with `&&`, `||`, `!!`;
ranking is `ts_rank` with length normalisation (`postgres_rank`), snippets `ts_headline`; a
query of several word groups is scored like BM25 (`PostgresBackend.rank`), so both backends
put the same case first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.db import connection

from .. import pg_vectors
from ..query import Atom, ParsedQuery
from ..snippets import balance_code_spans
from ..text import MARK_END, MARK_START, ZWSP, IndexColumns, flatten_punctuation
from . import ranking_sql
from .base import PUBLISHED, TERM_BOOST, Backend, Marked, RankedRow, any_word_of

# PostgreSQL: index writes of at least this many rows refresh the table's statistics.
ANALYZE_AFTER = 500

# Between the fragments of a PostgreSQL headline (`ts_headline`'s FragmentDelimiter).
HEADLINE_DELIMITER = " … "
POSTGRES_TABLE = "incidents_case_search"
# English stemming without the stop-word list (migration 0013): every word is indexed, as in
# SQLite's FTS5 table, so a phrase (`timed out`, `Connection reset by peer`) means the same
# words on both backends instead of losing its stop words on PostgreSQL (`timed out` -> `time`).
POSTGRES_CONFIG = "english_all_words"

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


def postgres_rank(vector: str) -> str:
    """The ranking expression of the tsvector `vector` against the query `q.query`."""
    return f"ts_rank('{POSTGRES_WEIGHTS}', {vector}, q.query, 1)"


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
        boost, boost_params = ranking_sql.boost_sql(term_weights, root_cause_weights)
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
        allowed = f" AND s.case_id NOT IN (SELECT id FROM incidents_case WHERE {ranking_sql.NOT_PUBLISHED})"
        allowed_params: list[object] = [PUBLISHED, PUBLISHED]
        # Every match is published here (`allowed`): naming the status lets the case look-up
        # read the (status, id, published, root cause) index alone.
        case_status, case_status_params = "c.status = %s AND ", [PUBLISHED]
        if candidates is not None:
            allowed, allowed_params = f" AND s.case_id IN ({candidates[0]})", [*candidates[1]]
            case_status, case_status_params = "", []
        kept, kept_params = ranking_sql.pruned(
            "y.base",
            "y",
            term_weights,
            root_cause_weights,
            offset + limit,
            sort=sort,
            unpublished_in_rows=False,
        )
        common_tables = (
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
            # its shares, so that the bound (`ranking_sql.pruned`) is read before the join and the boost.
            f" y AS MATERIALIZED (SELECT x.case_id, {base} * {coord} AS base,"
            f" {share} AS share, {literal_share} AS literal_share FROM x)"
        )
        common_params = [*tsquery_params, *group_params, *allowed_params]
        if kept_params:
            # The kept rows alone, the boost, status, date and order from the process's case
            # columns (`boosted_page`): no case row, no term link read by the server.
            # Imported here: numpy stays out of commands that never search.
            from .boosted_page import page_from_held_columns

            page = page_from_held_columns(
                f"{common_tables} SELECT y.case_id, y.base, y.share, y.literal_share, NULL"
                f" FROM y WHERE {kept}",
                [*common_params, *kept_params],
                term_weights=term_weights,
                root_cause_weights=root_cause_weights,
                published_only=candidates is None,
                sort=sort,
                offset=offset,
                limit=limit,
            )
            if page is not None:
                return page
        sql = (
            f"{common_tables}"
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
            f" ORDER BY {ranking_sql.ORDER[sort]} LIMIT %s OFFSET %s"
        )
        params = [
            *common_params,
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
        # The title whole, its matches marked: `Marked.title`.
        whole = f"StartSel={MARK_START}, StopSel={MARK_END}, HighlightAll=true"
        # The body too, for `balance_code_spans` to see where each fragment was cut.
        sql = (
            f"SELECT s.case_id, CASE WHEN s.vector @@ q.query"
            f" THEN ts_headline('{POSTGRES_CONFIG}', s.body, q.query, %s)"
            f" ELSE ts_headline('{POSTGRES_CONFIG}', s.body, q.loose, %s) END, s.body,"
            f" ts_headline('{POSTGRES_CONFIG}', c.title, q.loose, %s)"
            f" FROM (SELECT {tsquery} AS query, {loose} AS loose) q, {POSTGRES_TABLE} s"
            " JOIN incidents_case c ON c.id = s.case_id"
            " WHERE s.case_id = ANY(%s)"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [options, options, whole, *params, *loose_params, case_ids])
            return {
                case_id: Marked(
                    balance_code_spans(passage, [body], delimiter=HEADLINE_DELIMITER) if passage else passage,
                    title,
                    body,
                )
                for case_id, passage, body, title in cursor.fetchall()
            }
