"""One page of search or browse results: the hits, the partial matches and the facet counts."""

from __future__ import annotations

from rest_framework import serializers

from incidents.selectors import FILTER_FACETS

from .base import ResponseSerializer
from .cases import CaseSummarySerializer


class SearchHitSerializer(CaseSummarySerializer):
    """A case summary with its search score and snippet. With `fields=` only the named
    fields are present (and `id`, always)."""

    score = serializers.FloatField(
        allow_null=True,
        help_text="Calibrated probability (0..1) that the case answers the query (1 for a case "
        "citing the record `q` names, e.g. `NVIDIA/nccl#1116`, or the case whose id `q` names, e.g. "
        "`IL-0428`); null when nothing is ranked (no `q`, "
        "or a `q` that only excludes words: `-hang` lists every case without it, newest first). "
        "A partial match with `like` set is placed by its likeness to the first hit, not by this "
        "score: 0 when only that likeness brought it (neither the words of `q` nor its meaning did).",
    )
    confidence = serializers.CharField(
        allow_null=True,
        help_text="`strong`: we have seen this (every case citing the record `q` names, the case "
        "whose id it names); `possible`: "
        "worth a look; `weak`: a partial match (only in `partial_matches`). Calibrated on the tuning "
        "queries; null when nothing is ranked (as `score`).",
    )
    snippet = serializers.CharField(
        allow_null=True, help_text="HTML-safe excerpt with `<mark>` around matched words; null without `q`."
    )
    matched_terms = serializers.ListField(
        child=serializers.CharField(), help_text="Vocabulary terms the query named or was widened to."
    )
    why = serializers.CharField(
        allow_null=True,
        help_text="Why the case is listed, in words, on every hit of a search: the record `q` "
        "names that it cites (`Cites NVIDIA/nccl#1116.`), the meaningful words of its text that "
        "match (`Matches: watchdog timeouts, hang.`: no stop words, and no bare number unless `q` "
        "types it in an identifier, e.g. `xid 79`, `-9`), or when none is marked the query's terms it "
        "carries (`Tagged: NCCL timeout.`; else in `matched_terms`); "
        '"Similar in meaning; no query word in this case." for a case found by meaning alone '
        '(always a `weak` partial match), "The query names this case by its id." for `q=IL-0428`. '
        "Null when browsing (no `q`): nothing was asked.",
    )
    like = serializers.CharField(
        allow_null=True,
        help_text="The first hit's id when this partial match is listed first among them as the case "
        "most like that hit (`why` ends `Similar to IL-0497, the first hit.`); null otherwise.",
    )

    def get_fields(self):
        fields = super().get_fields()
        for name, field in fields.items():
            field.required = name == "id"
        return fields


class FacetCountSerializer(ResponseSerializer):
    """How many cases of the current result carry one facet value."""

    value = serializers.CharField(help_text="Filter value: slug for term facets, the name or year otherwise.")
    label = serializers.CharField(help_text="What a person reads.")  # type: ignore[assignment]  # a field named like Field.label
    count = serializers.IntegerField(help_text="Cases in the whole result with this value.")


class CaseListSerializer(ResponseSerializer):
    """One page of search or browse results."""

    count = serializers.IntegerField(help_text="Cases matching the query and filters.")
    page = serializers.IntegerField(help_text="This page's number, from 1.")
    page_size = serializers.IntegerField(help_text="Cases per page.")
    next = serializers.URLField(allow_null=True, help_text="The next page; null on the last.")
    previous = serializers.URLField(allow_null=True, help_text="The previous page; null on the first.")
    results = SearchHitSerializer(many=True, help_text="This page's matching cases, in the asked order.")
    partial_matches = SearchHitSerializer(
        many=True,
        help_text="After the last page of matches: the closest of the `partial_count` partial matches "
        "(confidence weak), best first, at most 5 (and `page_size`); empty on other pages and "
        "without `q`. The others are never listed: a filter lists the closest of those it keeps.",
    )
    partial_count = serializers.IntegerField(
        help_text="Cases that share only some words or a loose resemblance with the query (not in "
        "`count`): all of them, of which `partial_matches` lists the closest 5 at most."
    )
    suggestion = serializers.CharField(
        allow_null=True, help_text='"Did you mean": the query with misspelt words corrected, or null.'
    )
    facets = serializers.DictField(
        child=FacetCountSerializer(many=True),
        help_text=f"For each facet ({', '.join(FILTER_FACETS)}) the counts over the whole result: "
        "most frequent first, years newest first, scale bands smallest first; empty with "
        "`facets=false`.",
    )
    notes = serializers.ListField(
        child=serializers.CharField(), help_text="Remarks about the query, e.g. that it held only stop words."
    )
