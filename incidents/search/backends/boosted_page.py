"""The end of both backends' ranking statements, done in this process: each kept match's term
boost, status and date from the case columns the process holds (`case_columns`), and the
page in the statement's order.

The statement hands over the matches the pruning bound keeps (`ranking_sql.pruned`), each
with its score before the boost (`base * factors`), its shares and (SQLite) its full-text
rowid, read without a case row or a term link: at 100,000 cases those look-ups were about
30 ms of the 58 ms statement of `nccl timeout` (8,650 kept rows: the case row for status,
date and root cause, and an index probe of the term links for the boost).

Every value is the statement's own, bit for bit: the boost factor `1 + TERM_BOOST * boost`
is computed as the database computes it (`factors`: SQLite in floats, its `sum()` step for
step; PostgreSQL in exact decimals), then `score = x * factor` in float64, and the order is
`ranking_sql.ORDER`'s (the case numbers order ids as the database does).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from decimal import Decimal
from typing import cast

import numpy as np
from django.db import connection

from .. import case_columns
from ..case_columns import CaseColumns
from .base import TERM_BOOST, RankedRow

# A kept match as the statement hands it over: case id, score before the boost, share,
# literal share, SQLite rowid (None on PostgreSQL).
KeptRow = tuple[str, float, float, float, int | None]
# SQLite's kept match: its full-text rowid, score before the boost, share, literal share.
RowidKeptRow = tuple[int, float, float, float]


def page_from_held_columns(
    kept_sql: str,
    params: list,
    *,
    term_weights: dict[int, float],
    root_cause_weights: dict[int, float],
    published_only: bool,
    sort: str,
    offset: int,
    limit: int,
    by_rowid: bool = False,
) -> list[RankedRow] | None:
    """Both backends' short way: run `kept_sql` (the kept matches as `KeptRow`s) and take the
    page from the process's case columns (`boosted_page`); None when the process holds none
    (the store cache off) or `boosted_page` cannot answer: the caller runs the whole statement.
    `by_rowid`: the rows are `RowidKeptRow`s (SQLite), their cases found by rowid."""
    columns = case_columns.held()
    if columns is None:
        return None
    with connection.cursor() as cursor:
        cursor.execute(kept_sql, params)
        kept = cursor.fetchall()
    return boosted_page(
        kept,
        columns,
        term_weights=term_weights,
        root_cause_weights=root_cause_weights,
        published_only=published_only,
        sort=sort,
        offset=offset,
        limit=limit,
        by_rowid=by_rowid,
    )


def boosted_page(
    kept: Sequence[KeptRow] | Sequence[RowidKeptRow],
    columns: CaseColumns,
    *,
    term_weights: dict[int, float],
    root_cause_weights: dict[int, float],
    published_only: bool,
    sort: str,
    offset: int,
    limit: int,
    by_rowid: bool = False,
) -> list[RankedRow] | None:
    """The page (`offset`, `limit`) of `kept` in `ranking_sql.ORDER[sort]`, scores boosted,
    the cases not published left out when `published_only`; None when a case of `kept` is
    not in `columns` (written since they were read) or the boost cannot be reproduced
    exactly (`factors`): the caller runs the whole statement.
    `by_rowid`: `kept` holds `RowidKeptRow`s, each case found by its full-text rowid
    (`CaseColumns.numbers_of_rows`, integers) and only the page's ids read
    (`CaseColumns.ids_of`): at 100,000 cases the statement reading each kept row's case id
    and the look-up of those ids cost 4 to 17 ms and 7 to 14 ms."""
    if not kept:
        return []
    if by_rowid:
        return boosted_rows(
            np.fromiter((row[0] for row in kept), dtype=np.int64, count=len(kept)),
            np.fromiter((row[1] for row in kept), dtype=np.float64, count=len(kept)),
            np.fromiter((row[2] for row in kept), dtype=np.float64, count=len(kept)),
            np.fromiter((row[3] for row in kept), dtype=np.float64, count=len(kept)),
            columns,
            term_weights=term_weights,
            root_cause_weights=root_cause_weights,
            published_only=published_only,
            sort=sort,
            offset=offset,
            limit=limit,
        )
    numbers = columns.numbers([row[0] for row in cast("Sequence[KeptRow]", kept)])
    if numbers is None:
        return None
    unboosted = np.fromiter((row[1] for row in kept), dtype=np.float64, count=len(kept))
    by_id = cast("Sequence[KeptRow]", kept)
    page = _page(
        numbers, unboosted, columns, term_weights, root_cause_weights, published_only, sort, offset, limit
    )
    if page is None:
        return None
    score, chosen = page
    return [
        RankedRow(by_id[i][0], float(score[i]), float(by_id[i][2]), float(by_id[i][3]), by_id[i][4])
        for i in chosen.tolist()
    ]


def boosted_rows(
    rowids: np.ndarray,
    unboosted: np.ndarray,
    shares: np.ndarray,
    literal_shares: np.ndarray,
    columns: CaseColumns,
    *,
    term_weights: dict[int, float],
    root_cause_weights: dict[int, float],
    published_only: bool,
    sort: str,
    offset: int,
    limit: int,
) -> list[RankedRow] | None:
    """`boosted_page` of SQLite's kept rows given as arrays, one entry a row: full-text rowids
    (int64), scores before the boost, shares and literal shares (float64); no tuple a row
    (`phrase_terms` computes them as arrays). The same page, or None, as `boosted_page`."""
    if not len(rowids):
        return []
    numbers = columns.numbers_of_rows(rowids)
    if numbers is None:
        return None
    page = _page(
        numbers, unboosted, columns, term_weights, root_cause_weights, published_only, sort, offset, limit
    )
    if page is None:
        return None
    score, chosen = page
    ids = columns.ids_of(numbers[chosen])
    return [
        RankedRow(case_id, float(score[i]), float(shares[i]), float(literal_shares[i]), int(rowids[i]))
        for case_id, i in zip(ids, chosen.tolist(), strict=True)
    ]


def _page(
    numbers: np.ndarray,
    unboosted: np.ndarray,
    columns: CaseColumns,
    term_weights: dict[int, float],
    root_cause_weights: dict[int, float],
    published_only: bool,
    sort: str,
    offset: int,
    limit: int,
) -> tuple[np.ndarray, np.ndarray] | None:
    """The boosted scores of the kept rows (their case `numbers`, scores `unboosted`) and the
    positions of the page's rows in its order, or None when the boost cannot be reproduced."""
    factor = factors(columns, numbers, term_weights, root_cause_weights)
    if factor is None:
        return None
    score = unboosted * factor
    chosen = np.flatnonzero(columns.published[numbers]) if published_only else np.arange(len(numbers))
    day, number = columns.day[numbers[chosen]], numbers[chosen]
    if sort == "relevance":
        # Only the rows scoring at least the page's last score can be on it (ties included):
        # sorting 33,000 kept rows by three keys cost 3 to 9 ms, choosing them 0.1.
        wanted = offset + limit
        if 0 < wanted < len(chosen):
            last = np.partition(score[chosen], len(chosen) - wanted)[len(chosen) - wanted]
            chosen = chosen[score[chosen] >= last]
            day, number = columns.day[numbers[chosen]], numbers[chosen]
        order = np.lexsort((-number, -day, -score[chosen]))
    elif sort == "newest":
        order = np.lexsort((-number, -day))
    else:
        order = np.lexsort((number, day))
    return score, chosen[order[offset : offset + limit]]


def factors(
    columns: CaseColumns,
    numbers: np.ndarray,
    term_weights: dict[int, float],
    root_cause_weights: dict[int, float],
) -> np.ndarray | None:
    """For each case of `numbers`, `1 + TERM_BOOST * boost` as the statement computes it
    (`ranking_sql.boost_sql`: the weights of the named terms the case carries plus its root
    cause's weight), or None when that value cannot be reproduced exactly here (weights of
    more than 15 significant digits on PostgreSQL: the caller runs the whole statement).

    SQLite binds the weights as floats and sums the terms' weights in ascending term id
    order with its `sum()` (`boosts`). PostgreSQL, given the weights as literals by
    psycopg's client-side binding, reads them as `numeric`: the boost and the factor are
    exact decimals, rounded to float8 once, by the multiplication with the score."""
    if connection.vendor == "sqlite" or not _postgres_weights_are_decimal():
        return 1 + TERM_BOOST * boosts(columns, numbers, term_weights, root_cause_weights)
    # Every weight in units of 10^-scale (exact integers), the factor (unit + boost * sum)
    # / unit: an exact quotient, rounded to float64 once as PostgreSQL rounds the numeric.
    boost = Decimal(repr(TERM_BOOST))
    literals = {w: Decimal(repr(w)) for w in [*term_weights.values(), *root_cause_weights.values()]}
    scale = max(
        [0, -int(boost.as_tuple().exponent), *(-int(d.as_tuple().exponent) for d in literals.values())]
    )
    units = {w: int(d.scaleb(scale)) for w, d in literals.items()}
    one, per_unit = 10**scale, int(boost.scaleb(scale))
    if sum(abs(u) for u in units.values()) * per_unit + one**2 >= 2**53:
        return None
    total = np.zeros(len(numbers), dtype=np.int64)
    for term_id, weight in term_weights.items():
        total[columns.carrying(term_id)[numbers]] += units[weight]
    causes = columns.root_cause[numbers]
    for term_id, weight in root_cause_weights.items():
        total[causes == term_id] += units[weight]
    # 1 + b * s / one with b = per_unit / one: (one * one + per_unit * s) / (one * one).
    return (one * one + per_unit * total) / float(one * one)


def boosts(
    columns: CaseColumns,
    numbers: np.ndarray,
    term_weights: dict[int, float],
    root_cause_weights: dict[int, float],
) -> np.ndarray:
    """For each case of `numbers`, the boost as floats sum it: the weights of the named
    terms it carries, summed in ascending term id order as the database's `sum()` of floats
    sums, plus its root cause's weight."""
    total = np.zeros(len(numbers))
    error = np.zeros(len(numbers))
    compensated = compensated_sum()
    for term_id in sorted(term_weights):
        weight = term_weights[term_id]
        carries = columns.carrying(term_id)[numbers]
        if not compensated:
            total[carries] += weight
            continue
        # SQLite from 3.43: Kahan-Babuska-Neumaier, step for step (`sumStep`), the sum
        # being `rSum + rErr` at the end.
        s = total[carries]
        t = s + weight
        error[carries] += np.where(np.abs(s) > abs(weight), (s - t) + weight, (weight - t) + s)
        total[carries] = t
    if compensated:
        total = total + error
    if root_cause_weights:
        causes = columns.root_cause[numbers]
        for term_id, weight in root_cause_weights.items():
            total[causes == term_id] += weight
    return total


def compensated_sum() -> bool:
    """Whether the database's `sum()` of floats is compensated (SQLite from 3.43) rather than
    a plain running sum (older SQLite, PostgreSQL's `sum(float8)`): read once a process by
    a sum that tells them apart (1e16 + 1 - 1e16: 0 plainly, 1 compensated)."""
    return connection.vendor == "sqlite" and _sqlite_sum_is_compensated()


@functools.cache
def _sqlite_sum_is_compensated() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT SUM(x) FROM (SELECT 1e16 AS x UNION ALL SELECT 1.0 UNION ALL SELECT -1e16)")
        return cursor.fetchone()[0] == 1.0


@functools.cache
def _postgres_weights_are_decimal() -> bool:
    """Whether a float parameter reaches PostgreSQL as a `numeric` literal (client-side
    binding, Django's default) rather than a float8 parameter (`server_side_binding`)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_typeof(%s)::text", [0.5])
        return cursor.fetchone()[0] == "numeric"
