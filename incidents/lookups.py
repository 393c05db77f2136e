"""Small reads for answering a caller who named something that does not exist.

When an id or filter value is unknown, the MCP tools (and anyone else) name the closest
existing ones; these functions list what exists, one query each.
"""

from __future__ import annotations

from django.db.models import Count

from .models import Case


def visible_case_ids() -> list[str]:
    """Ids of published and retracted cases (the ones that resolve by id), sorted. One query."""
    return list(Case.objects.visible().order_by("id").values_list("id", flat=True))


def organizations() -> list[tuple[str, int]]:
    """(organization, number of published cases), most cases first, then by name. One query."""
    rows = (
        Case.objects.published()
        .values("organization")
        .annotate(n=Count("id"))
        .order_by("-n", "organization")
        .values_list("organization", "n")
    )
    return list(rows)
