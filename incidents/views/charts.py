"""Server-side SVG charts: geometry computed here, drawn by `templates/charts/*.html`.

Bars are placed in percentages of the chart width and pixels of height, so a chart fills
any screen width (down to 360 px) while its text keeps a readable size. Every chart is
rendered with a table of the same numbers for screen readers.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

BAR_ROW_HEIGHT = 44  # px per horizontal bar: a label line, then the bar
COLUMN_AREA_HEIGHT = 160  # px of the tallest column


@dataclass(frozen=True)
class Bar:
    label: str
    value: int
    percent: float  # of the largest value, 0..100
    url: str | None = None
    # Filled in by the chart builders for the templates:
    x: float = 0.0  # percent of chart width (columns)
    width: float = 0.0  # percent of chart width (columns)
    y: float = 0.0  # px from the top of the bar or column
    height: float = 0.0  # px
    label_y: float = 0.0  # px: baseline of the label (bars) or of the value (columns)
    cx: float = 0.0  # percent: centre of a column, for its labels


@dataclass(frozen=True)
class Chart:
    slug: str  # id stem for headings and aria
    title: str
    value_label: str  # the table's value column header
    category_label: str  # the table's category column header
    kind: str  # "bars" (horizontal) or "columns" (vertical)
    bars: list[Bar]
    height: int  # px
    note: str = ""
    basis: str = ""  # which cases it is drawn from: "From 3 of 36 published cases: those that ..."

    @property
    def axis_label_y(self) -> int:
        """Baseline of the category labels under columns, px."""
        return self.height - 6


def _percent(value: int, largest: int) -> float:
    return round(100 * value / largest, 2) if largest else 0.0


def bar_chart(
    slug: str,
    title: str,
    rows: Iterable[tuple[str, int, str | None]],
    *,
    category_label: str,
    value_label: str = "Cases",
    note: str = "",
    basis: str = "",
) -> Chart:
    """Horizontal bars, one row each, in the given order; `rows` are (label, value, url)."""
    rows = list(rows)
    largest = max((v for _, v, _ in rows), default=0)
    bars = [
        Bar(
            label,
            value,
            _percent(value, largest),
            url,
            y=i * BAR_ROW_HEIGHT + 22,
            height=14,
            label_y=i * BAR_ROW_HEIGHT + 16,
        )
        for i, (label, value, url) in enumerate(rows)
    ]
    return Chart(
        slug,
        title,
        value_label,
        category_label,
        "bars",
        bars,
        height=max(1, len(bars)) * BAR_ROW_HEIGHT,
        note=note,
        basis=basis,
    )


def column_chart(
    slug: str,
    title: str,
    rows: Sequence[tuple[str, int, str | None]],
    *,
    category_label: str,
    value_label: str = "Cases",
    note: str = "",
    basis: str = "",
) -> Chart:
    """Vertical columns in the given order (years, buckets); room above for value labels."""
    largest = max((v for _, v, _ in rows), default=0)
    slot = 100 / max(1, len(rows))
    top = 22  # px above the tallest column for its value label
    bars = []
    for i, (label, value, url) in enumerate(rows):
        height = round(COLUMN_AREA_HEIGHT * value / largest, 1) if largest else 0.0
        y = top + COLUMN_AREA_HEIGHT - height
        bars.append(
            Bar(
                label,
                value,
                _percent(value, largest),
                url,
                x=round(i * slot + slot * 0.15, 3),
                width=round(slot * 0.7, 3),
                y=y,
                height=height,
                label_y=y - 6,
                cx=round(i * slot + slot / 2, 3),
            )
        )
    return Chart(
        slug,
        title,
        value_label,
        category_label,
        "columns",
        bars,
        height=top + COLUMN_AREA_HEIGHT + 24,
        note=note,
        basis=basis,
    )


HOUR = 3600
DURATION_BUCKETS: tuple[tuple[int, int | None, str], ...] = (
    (0, HOUR - 1, "under 1 hour"),
    (HOUR, 6 * HOUR - 1, "1–6 hours"),
    (6 * HOUR, 24 * HOUR - 1, "6–24 hours"),
    (24 * HOUR, 7 * 24 * HOUR - 1, "1–7 days"),
    (7 * 24 * HOUR, None, "over a week"),
)


def bucket_counts(
    values: Iterable[int], buckets: Sequence[tuple[int, int | None, str]]
) -> list[tuple[str, int]]:
    """How many `values` fall in each (low, high or None, label) bucket, in bucket order."""
    counts = {label: 0 for _, _, label in buckets}
    for value in values:
        for low, high, label in buckets:
            if value >= low and (high is None or value <= high):
                counts[label] += 1
                break
    return list(counts.items())
