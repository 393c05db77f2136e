"""Log matching: pasted log text in, cases ranked by the failure signatures it contains."""

from __future__ import annotations

from incidents.models import Case, Facet, Term

from .results import LogHit, LogLineMatch

MAX_LOG_BYTES = 1_000_000


def match_log(text: str, *, limit: int = 10) -> list[LogHit]:
    """Rank published cases by vocabulary terms (names and synonyms) found in `text`.

    First version: plain case-insensitive substring search per line.
    """
    text = text[:MAX_LOG_BYTES].replace("\x00", " ")
    lines = text.splitlines()
    found: dict[int, list[LogLineMatch]] = {}
    for term in Term.objects.filter(facet=Facet.SYMPTOM):
        needles = [term.name.lower(), *(s.lower() for s in term.synonyms)]
        for number, line in enumerate(lines, start=1):
            lowered = line.lower()
            if any(needle in lowered for needle in needles):
                found.setdefault(term.id, []).append(LogLineMatch(number, line[:300], term.name))
    if not found:
        return []
    hits = []
    for case in Case.objects.published().filter(terms__in=found).distinct().with_summary():
        lines_for_case = [m for t in case.term_links.all() for m in found.get(t.term_id, [])]
        hits.append(LogHit(case=case, score=float(len(lines_for_case)), matched_lines=lines_for_case))
    hits.sort(key=lambda h: (-h.score, h.case.id))
    return hits[:limit]
