"""Case ids as tools and resources receive them: `find_case` of the read layer, except that
an id holding a control character never resolves (no stored id has one, and PostgreSQL
refuses NUL in text, which turned such an id into "the database did not answer"): the
answer is the closest ids to the id without them, on both backends."""

from __future__ import annotations

import re

from incidents.selectors import CaseLookup, find_case
from incidents.selectors.cases import visible_case_ids
from incidents.selectors.lookup import MAX_CLOSEST
from incidents.selectors.spelling import closest_case_ids

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def find_case_id(raw_id: str) -> CaseLookup:
    """The case `raw_id` names (followed to its canonical spelling), or the closest ids."""
    if _CONTROL.search(raw_id):
        return CaseLookup(
            closest=closest_case_ids(_CONTROL.sub("", raw_id), visible_case_ids(), limit=MAX_CLOSEST)
        )
    return find_case(raw_id, follow=True)
