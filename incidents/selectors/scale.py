"""Scale: how big the affected job or cluster was, as the `scale` facet and numeric bounds.

A case states its scale in `environment.accelerator_count` and `environment.node_count`
(null when the source does not say). Two ways to filter on it, read by the one parser
(`params.parse_filters`) for pages, the API and MCP alike:

- the `scale` facet: bands of `accelerator_count` (`SCALE_BANDS`: under 64, 64-1,023,
  1,024-9,999, 10,000+), counted like any other facet;
- numeric bounds (`BOUNDS`): `min_accelerators`, `max_accelerators`, `min_nodes`,
  `max_nodes`, whole numbers, both ends inclusive.

A case whose count is not stated matches no band and no bound.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from django.db.models import Q

# The largest value a bound accepts: beyond any cluster, well inside a 32-bit column.
MAX_BOUND = 10_000_000


@dataclass(frozen=True)
class ScaleBand:
    """Cases with `low <= accelerator_count < high` (None: unbounded on that side)."""

    slug: str
    label: str
    low: int | None
    high: int | None
    synonyms: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """The label, so that a band spells like a vocabulary term (`spelling.resolve_term`)."""
        return self.label

    def condition(self) -> Q:
        q = Q(accelerator_count__isnull=False)
        if self.low is not None:
            q &= Q(accelerator_count__gte=self.low)
        if self.high is not None:
            q &= Q(accelerator_count__lt=self.high)
        return q


SCALE_BANDS: tuple[ScaleBand, ...] = (
    ScaleBand("under-64", "Under 64 accelerators", None, 64, ("under 64", "<64", "1-63")),
    ScaleBand("64-1023", "64–1,023 accelerators", 64, 1024, ("64–1,023", "64-1,023", "64 to 1023")),
    ScaleBand(
        "1024-9999", "1,024–9,999 accelerators", 1024, 10_000, ("1,024–9,999", "1,024-9,999", "1024 to 9999")
    ),
    ScaleBand("10000-plus", "10,000+ accelerators", 10_000, None, ("10,000+", "10000+", "10k+")),
)
SCALE_BANDS_BY_SLUG: dict[str, ScaleBand] = {band.slug: band for band in SCALE_BANDS}


def band_of(accelerator_count: int | None) -> ScaleBand | None:
    """The band `accelerator_count` falls in, None when the count is not stated."""
    if accelerator_count is None:
        return None
    for band in SCALE_BANDS:
        if (band.low is None or accelerator_count >= band.low) and (
            band.high is None or accelerator_count < band.high
        ):
            return band
    return None


@dataclass(frozen=True)
class Bound:
    """One numeric filter: `param=N` keeps cases whose `field` is `>=` (min) or `<=` (max) N."""

    param: str
    field: str
    side: Literal["min", "max"]
    label: str  # what a person reads as the filter's name: "Accelerators", "Nodes"

    def condition(self, value: int) -> Q:
        lookup = "gte" if self.side == "min" else "lte"
        return Q(**{f"{self.field}__{lookup}": value})

    def describe(self, value: int) -> str:
        """`at least 1,024`, for a filter chip headed by `label`."""
        return f"{'at least' if self.side == 'min' else 'at most'} {value:,}"


BOUNDS: tuple[Bound, ...] = (
    Bound("min_accelerators", "accelerator_count", "min", "Accelerators"),
    Bound("max_accelerators", "accelerator_count", "max", "Accelerators"),
    Bound("min_nodes", "node_count", "min", "Nodes"),
    Bound("max_nodes", "node_count", "max", "Nodes"),
)
BOUNDS_BY_PARAM: dict[str, Bound] = {bound.param: bound for bound in BOUNDS}
BOUND_PARAMS: tuple[str, ...] = tuple(bound.param for bound in BOUNDS)
# Each max bound and the min bound it must not fall below.
BOUND_PAIRS: tuple[tuple[str, str], ...] = (
    ("min_accelerators", "max_accelerators"),
    ("min_nodes", "max_nodes"),
)
