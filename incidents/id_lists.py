"""A list of case ids as one SQL parameter, for `id__in` over hundreds or thousands of ids.

`filter(id__in=[...])` renders and quotes one placeholder per id in Python (14 ms for the
900 matches of a common search at 10,000 cases, repeated by every query that filters by
them). Here the list is one JSON array parameter, expanded by the database: SQLite's
`json_each`, PostgreSQL's `jsonb_array_elements_text`.
"""

from __future__ import annotations

import json
from collections.abc import Collection

from django.db import connection
from django.db.models.expressions import RawSQL


def ids_subquery(ids: Collection[str]) -> RawSQL:
    """A subquery selecting `ids` (strings), for `filter(id__in=ids_subquery(ids))`."""
    array = json.dumps(list(ids))
    if connection.vendor == "postgresql":
        return RawSQL("SELECT jsonb_array_elements_text(%s::jsonb)", [array])
    return RawSQL("SELECT value FROM json_each(%s)", [array])


# From this many values `ids_in` passes one JSON parameter: below it the placeholders cost
# little, and a short list keeps Django's own handling (an empty list runs no query).
SHORT = 100


def ids_in(ids: Collection[str]) -> Collection[str] | RawSQL:
    """What `filter(<field>__in=...)` takes for `ids` (strings: case ids, URLs): the values
    as they are when there are fewer than `SHORT`, else `ids_subquery(ids)`. For writers
    that filter by the thousands of ids of a bulk import (Django prepared every id of each
    such filter: a twentieth of a first import)."""
    return ids if len(ids) < SHORT else ids_subquery(ids)
