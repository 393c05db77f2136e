"""Case ids as tools and resources receive them: `find_case` of the read layer, except that
an id holding a control character never resolves (no stored id has one, and PostgreSQL
refuses NUL in text, which turned such an id into "the database did not answer"): the
answer is the closest ids to the id without them, on both backends. And what `get_topic`
and `topic://` say of a slug naming no topic, in one wording."""

from __future__ import annotations

import re

from incidents.selectors import CaseLookup, TopicLookup, find_case
from incidents.selectors.cases import published_case_ids
from incidents.selectors.lookup import MAX_CLOSEST
from incidents.selectors.spelling import closest_case_ids

from .filters import problem_message

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def find_case_id(raw_id: str) -> CaseLookup:
    """The case `raw_id` names (followed to its canonical spelling), or the closest ids."""
    if _CONTROL.search(raw_id):
        return CaseLookup(
            closest=closest_case_ids(_CONTROL.sub("", raw_id), published_case_ids(), limit=MAX_CLOSEST)
        )
    return find_case(raw_id, follow=True)


def case_notice(case_id: str, merged_from: str | None, retraction_reason: str | None) -> str | None:
    """What get_incident's `notice` and `incident://` say of the case they answer with, None
    when there is nothing to say: a retracted case (`retraction_reason` not None) that it was
    and why (`Retracted: <reason>`; `Retracted.` when no reason was given), else an id merged
    into case `case_id` (`merged_from`) that the answer is that case."""
    if retraction_reason is not None:
        return f"Retracted: {retraction_reason}" if retraction_reason.strip() else "Retracted."
    if merged_from:
        return f"{merged_from} was merged into {case_id} as a duplicate; this is {case_id}."
    return None


def no_topic_message(slug: str, lookup: TopicLookup) -> str:
    """What `get_topic` (a tool error) and `topic://` (resource not found) say of `slug`, which
    `lookup` (`find_topic(slug)`) found no topic for: a former topic now a workload (`training`)
    says so and how to list its cases; else the `topic` filter's problem, the nearest topics
    (all of them when none is near), as list_incidents, the API and the page word it."""
    if lookup.workload is not None:
        return (
            f"{lookup.moved(slug)}: call list_incidents with "
            f"workload={lookup.workload.slug!r}; topics are kinds of failure (see vocab)."
        )
    return problem_message(lookup.problem(slug))
