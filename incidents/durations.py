"""ISO 8601 durations as the case schema allows them (days, hours, minutes, seconds)."""

from __future__ import annotations

import re

_DURATION = re.compile(r"^P(?!$)(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$")


def duration_seconds(value: str | None) -> int | None:
    """Seconds in an ISO 8601 duration such as `PT45M` or `P2DT3H`; None for None.

    Raises ValueError for text the schema's duration pattern does not accept.
    """
    if value is None:
        return None
    match = _DURATION.match(value)
    if not match:
        raise ValueError(f"not an ISO 8601 duration of days/hours/minutes/seconds: {value!r}")
    days, hours, minutes, seconds = (int(part or 0) for part in match.groups())
    return ((days * 24 + hours) * 60 + minutes) * 60 + seconds


def humanize_duration(value: str | None) -> str | None:
    """`P2DT3H` -> `2 d 3 h`; None stays None so templates can say "not known"."""
    if value is None:
        return None
    total = duration_seconds(value)
    assert total is not None
    parts = []
    for size, unit in ((86400, "d"), (3600, "h"), (60, "min"), (1, "s")):
        amount, total = divmod(total, size)
        if amount:
            parts.append(f"{amount} {unit}")
    return " ".join(parts) or "0 s"
