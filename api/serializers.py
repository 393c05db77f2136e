"""Serializers that build the API's answers and parse its request bodies; the OpenAPI
schema is generated from them, so it describes what runs.

A view gathers an answer's values (`api.shapes` turns read-layer results into plain values)
and hands them to the `ResponseSerializer` its schema names: the answer holds exactly the
declared fields, in declaration order, each formatted by its field. The request
serializers (`MatchRequestSerializer`, `TriageRequestSerializer`,
`AffectedRequestSerializer`) validate the bodies.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from incidents import limits
from incidents.models import VOCAB_FACETS
from incidents.selectors import (
    FILTER_FACETS,
    MAX_QUERY_CHARS,
    empty_detail,
    is_blank,
    json_whole_number,
    whole_number_wanted,
)
from incidents.selectors.numbers import OPTIONAL_WHOLE_NUMBER_PATTERN, WHOLE_NUMBER_PATTERN
from incidents.selectors.params import NOTHING_TO_TRIAGE, query_too_long

MAX_LOG_CHARS = 1_000_000
MAX_MATCH_LIMIT = limits.API_MATCH  # why it differs from MCP match_log: incidents/limits.py


class ResponseSerializer(serializers.Serializer):
    """Builds one answer from gathered values: every declared field, in order; a field that
    is not required is left out when the values do not hold it (rather than given as null),
    and a required one missing is an error."""

    def to_representation(self, instance: Any) -> dict[str, Any]:
        answer: dict[str, Any] = {}
        for field in self._readable_fields:
            if not field.required and isinstance(instance, Mapping) and field.source not in instance:
                continue
            value = field.get_attribute(instance)
            answer[str(field.field_name)] = None if value is None else field.to_representation(value)
        return answer


class ParameterErrorSerializer(serializers.Serializer):
    """One bad parameter or body field."""

    parameter = serializers.CharField(
        help_text="Name of the bad query parameter, path parameter or body field "
        "(`body` for the body as a whole)."
    )
    detail = serializers.CharField(help_text="What is wrong with it.")
    value = serializers.CharField(required=False, help_text="The value given, when useful.")
    suggestions = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="Closest accepted values (for unknown filter values and choices).",
    )


class ProblemSerializer(serializers.Serializer):
    """RFC 9457 problem details, used for every 4xx and 5xx answer."""

    type = serializers.CharField(help_text="Always `about:blank`: `title` says what happened.")
    title = serializers.CharField(help_text="The HTTP status phrase, e.g. `Bad Request`.")
    status = serializers.IntegerField(help_text="The HTTP status code.")
    detail = serializers.CharField(help_text="What went wrong, for a person.")
    instance = serializers.CharField(required=False, help_text="The request path.")
    # A response field named like Serializer.errors; this class only describes output.
    errors = ParameterErrorSerializer(  # type: ignore[assignment]
        many=True, required=False, help_text="One entry per bad parameter or body field."
    )
    scope = serializers.CharField(
        required=False,
        help_text="429 only: the limit reached: `api`, `api-heavy` (match, triage, export), "
        "`proposals` or `proposals-refused`.",
    )
    rate = serializers.CharField(required=False, help_text='429 only: that limit, e.g. "30/minute".')
    retry_after = serializers.IntegerField(
        required=False, help_text="429 only: seconds to wait, as the `Retry-After` header says."
    )


class CaseSummarySerializer(ResponseSerializer):
    """A case in a list: enough to choose which one to open."""

    id = serializers.CharField(help_text="Case id, e.g. `IL-0428`.")
    title = serializers.CharField(help_text="One-sentence headline of the incident.")
    organization = serializers.CharField(help_text="Who ran the affected system.")
    published = serializers.DateField(help_text="Date the public account was published.")
    status = serializers.ChoiceField(
        choices=["published", "retracted"],
        help_text="`retracted` cases appear only on their own detail and in the change feed.",
    )
    topics = serializers.ListField(child=serializers.CharField(), help_text="Topic slugs.")
    symptom_tags = serializers.ListField(child=serializers.CharField(), help_text="Symptom tag names.")
    root_cause_category = serializers.CharField(help_text="Root-cause category name.")
    components = serializers.ListField(child=serializers.CharField(), help_text="Component names.")
    accelerator = serializers.CharField(allow_null=True, help_text="null when not known.")
    url = serializers.URLField(help_text="This case in the API.")
    html_url = serializers.URLField(help_text="This case's web page.")


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


class CaseDetailSerializer(ResponseSerializer):
    """The case document exactly as `case.schema.json` defines it (and `GET /api/export`
    streams it) plus the fields the API adds: its links, when it last changed and why it was
    retracted."""

    # The document's own fields are described by `case.schema.json`, which
    # `schema.add_case_document_schemas` merges into this component; these follow them.
    url = serializers.URLField(help_text="This case in the API.")
    html_url = serializers.URLField(help_text="This case's web page.")
    similar_url = serializers.URLField(help_text="Similar cases of this one in the API.")
    history_url = serializers.URLField(help_text="This case's change history.")
    modified = serializers.DateTimeField(help_text="When the case was last changed (UTC).")
    retraction_reason = serializers.CharField(
        allow_null=True, help_text="Why the case was retracted; null unless `status` is `retracted`."
    )

    def to_representation(self, instance: Any) -> dict[str, Any]:
        """`instance["document"]` (the case document, unchanged) then the declared fields."""
        return {**instance["document"], **super().to_representation(instance)}


class SimilarCaseSerializer(CaseSummarySerializer):
    """A similar case with its score and the reasons for it."""

    score = serializers.FloatField(help_text="Similarity from 0 to 1.")
    similarity = serializers.CharField(
        help_text="What the score means to a person: `very similar`, `similar` or `related`."
    )
    reasons = serializers.ListField(
        child=serializers.CharField(),
        help_text='Why, in words, e.g. ["Both: NCCL timeout, DeepSpeed", "same root cause: software bug"].',
    )
    shared_terms = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Facet -> names of the terms both cases carry.",
    )
    score_parts = serializers.DictField(
        child=serializers.FloatField(),
        help_text='What the score is made of, e.g. {"vocabulary": 0.3, "text": 0.1, "semantic": 0.2}.',
    )


class SimilarListSerializer(ResponseSerializer):
    """The cases most similar to one case."""

    case = serializers.CharField(help_text="Id of the case the others are similar to.")
    url = serializers.URLField(help_text="That case in the API.")
    results = SimilarCaseSerializer(many=True, help_text="Most similar first.")


def shown_json(data: Any) -> str:
    """`data` as the "(got ...)" of a body field's refusal quotes it: JSON, cut to 40
    characters (`5`, `"five"`, `[1, 2]`)."""
    shown = json.dumps(data, ensure_ascii=False, default=str)
    return shown if len(shown) <= 40 else shown[:39] + "…"


class StrictCharField(serializers.CharField):
    """A JSON string, nothing coerced into one (DRF would turn `0` into `"0"`); anything
    else is refused saying what came, as every body field's refusal does: `must be a
    string (got 5)`."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            raise serializers.ValidationError(f"must be a string (got {shown_json(data)})")
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    """A whole number by the rule of every JSON door (`selectors.json_whole_number`, as MCP
    tools read their integer arguments): a JSON integer or its digits 0-9 as text, `5`,
    `"5"` and `5.0` alike; never `true`, `2.5`, `"٣"` or `"five"`. A refusal says what
    would work, worded as every parameter error (`api.errors`: a phrase after the name):
    `must be a whole number from 1 to 50, such as 10 or "10" (got "five")`, and one out of
    range `must be between 1 and 50 (got 80)`."""

    def __init__(self, **kwargs: Any):
        low, high = kwargs.get("min_value"), kwargs.get("max_value")
        if low is not None and high is not None:
            # Django's validators fill in `%(value)s`; DRF formats `{...}` first (none here).
            out_of_range = f"must be between {low} and {high} (got %(value)s)"
            kwargs["error_messages"] = {
                "min_value": out_of_range,
                "max_value": out_of_range,
                **kwargs.get("error_messages", {}),
            }
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> int:
        number = json_whole_number(data)
        if number is None:
            example = self.default if isinstance(self.default, int) else None
            wanted = whole_number_wanted(
                data, minimum=self.min_value, maximum=self.max_value, example=example
            )
            raise serializers.ValidationError(f"{wanted} (got {shown_json(data)})")
        return number


class StrictIntegerSchema(OpenApiSerializerFieldExtension):
    """`StrictIntegerField` in the OpenAPI schema: in a request, the integer (with its bounds)
    or its digits as text (`"5"`), as the field reads it; in an answer, an integer."""

    target_class = StrictIntegerField

    def map_serializer_field(self, auto_schema: Any, direction: str) -> dict[str, Any]:
        integer = auto_schema._map_serializer_field(self.target, direction, bypass_extensions=True)
        if direction != "request":
            return integer
        # anyOf, not oneOf: a nullable field's null would match two branches. The field's
        # description and default go on the whole (drf-spectacular adds them there).
        # An optional field may be blank: not given (`api.params.without_blank_optionals`).
        bounded = {k: v for k, v in integer.items() if k not in ("description", "default")}
        pattern = WHOLE_NUMBER_PATTERN if self.target.required else OPTIONAL_WHOLE_NUMBER_PATTERN
        return {"anyOf": [bounded, {"type": "string", "pattern": pattern}]}


class NamedChoiceField(serializers.ChoiceField):
    """A choice whose refusal names what would work, in MCP's words (`job must be one of
    training, inference (got "gaming")`): DRF's own said only `"gaming" is not a valid
    choice.`, leaving the caller to find the choices in the schema."""

    default_error_messages = {"invalid_choice": 'must be one of {choices} (got "{input}")'}

    SHOWN_CHARS = 40  # of the value quoted back

    def fail(self, key: str, **kwargs: Any) -> None:  # type: ignore[override]
        if key == "invalid_choice":
            kwargs["choices"] = ", ".join(str(choice) for choice in self.choices)
            shown = str(kwargs.get("input", ""))
            if len(shown) > self.SHOWN_CHARS:
                kwargs["input"] = shown[: self.SHOWN_CHARS - 1] + "…"
        super().fail(key, **kwargs)


class MatchRequestSerializer(serializers.Serializer):
    """Body of `POST /api/match`."""

    text = StrictCharField(
        max_length=MAX_LOG_CHARS,
        trim_whitespace=False,
        help_text="Pasted log text: traceback, NCCL or kernel log, dmesg, Slurm output "
        f"(at most {MAX_LOG_CHARS:,} characters; NUL bytes are read as spaces).",
    )
    limit = StrictIntegerField(
        min_value=1, max_value=MAX_MATCH_LIMIT, default=10, help_text="Most cases to return."
    )

    def validate_text(self, text: str) -> str:
        """A log of blanks is no log: refused as an empty one is (`selectors.empty_detail`,
        the words of every door), as the /match/ page and MCP `match_log` refuse it."""
        if is_blank(text):
            raise serializers.ValidationError(empty_detail(text))
        return text


class MatchedLineSerializer(ResponseSerializer):
    """A line of the pasted text that matched, once, with every term it matched."""

    line_number = serializers.IntegerField(help_text="1-based line in the pasted text.")
    line = serializers.CharField(help_text="The line, cut to 300 characters.")
    terms = serializers.ListField(
        child=serializers.CharField(),
        help_text="Vocabulary terms and tokens the line matched, strongest first.",
    )
    occurrences = serializers.IntegerField(
        help_text=(
            "How many lines of the text it stands for (1 or more): itself and the lines repeating it,"
            " exactly or but for their digits (timestamps, pids, ranks), with the same terms;"
            " `line_number` is the first."
        )
    )


class LogLineSerializer(ResponseSerializer):
    """One line of the pasted text, once, with everything in it the case shares."""

    line_number = serializers.IntegerField(help_text="1-based line in the pasted text.")
    line = serializers.CharField(help_text="The line, cut to 300 characters.")
    terms = serializers.ListField(child=serializers.CharField(), help_text="Terms and tokens it matched.")
    spans = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()),
        help_text="[start, end) character offsets of the matches in `line`.",
    )
    occurrences = serializers.IntegerField(
        help_text=(
            "How many lines of the text it stands for (1 or more): itself and the lines repeating it,"
            " exactly or but for their digits (timestamps, pids, ranks), with the same terms;"
            " `line_number` is the first."
        )
    )


class LogHitSerializer(CaseSummarySerializer):
    """A case the log points at, with the lines that point there."""

    score = serializers.FloatField(help_text="How strongly the log points at this case.")
    confidence = serializers.CharField(
        help_text="`strong` (specific signatures we have seen), `possible`, or `weak` "
        "(little in common: probably not this case)."
    )
    why = serializers.CharField(
        help_text="Why the case is listed, in words, as a search hit's `why`: the signatures it "
        "shares with the log by the first line showing them (`Shares: NET/IB completion error "
        "(line 10); IBV_WC_RETRY_EXC_ERR (line 12).`), the log's rare words it holds, the "
        "components it names beside them (`Context: NCCL.`) and whether it is listed as a case "
        "similar to the first hit."
    )
    like = serializers.CharField(
        allow_null=True,
        help_text="The first hit's id when this case is listed higher as a case like it (its score "
        "raised by how alike the two are; `why` ends `Similar to IL-0450, the first hit.`); null otherwise.",
    )
    matched_lines = MatchedLineSerializer(
        many=True,
        help_text="Each matched line once with all the terms it matched, in line order (as MCP "
        "match_log's `matched_lines`); the same lines as `lines`, without the spans. Earlier "
        "versions gave one entry per (line, term), with `term`.",
    )
    lines = LogLineSerializer(
        many=True,
        help_text="Each distinct matched line once (at its first number), in line order, with the "
        "spans to highlight.",
    )


class LogReadingSerializer(ResponseSerializer):
    """What was read of the log: `lines_with_signature` + `lines_context` + `lines_ignored`
    + `lines_repeated` + `lines_blank` = `lines_read`, and every line a result lists is a
    signature or a context line (a result lists each distinct line once)."""

    lines_read = serializers.IntegerField(help_text="Lines in the text.")
    lines_with_signature = serializers.IntegerField(
        help_text="Distinct lines with a known signature (a component's name alone is not one)."
    )
    lines_context = serializers.IntegerField(
        help_text="Distinct lines with no signature that a result lists all the same: it shares a "
        "component's name, a rare word or a version with them (weight, never a match by itself)."
    )
    lines_ignored = serializers.IntegerField(
        help_text="Distinct non-blank lines with no signature that no result lists."
    )
    lines_repeated = serializers.IntegerField(help_text="Lines repeating an earlier one (read once).")
    lines_blank = serializers.IntegerField(help_text="Blank lines.")
    job_kind = serializers.CharField(
        allow_null=True, help_text="`training` or `inference` when the log says which, else null."
    )


class TermSerializer(ResponseSerializer):
    """A vocabulary term."""

    slug = serializers.CharField(help_text="Filter value for this facet's parameter.")
    name = serializers.CharField(help_text="The term as cases name it.")
    description = serializers.CharField(help_text="What the term means, one line.")
    synonyms = serializers.ListField(
        child=serializers.CharField(), help_text="Other names that search widens to."
    )
    case_count = serializers.IntegerField(help_text="Published cases with this term.")
    cases_url = serializers.URLField(help_text="The API case list filtered by this term.")
    vendor = serializers.CharField(
        required=False, allow_null=True, help_text="Accelerators only: the chip's vendor (NVIDIA)."
    )
    family = serializers.CharField(
        required=False,
        help_text="Accelerators only: the family's slug (a100 for A100 80GB; a family's own "
        "slug for a family). Filtering on it finds every model's cases.",
    )


class TermListSerializer(ResponseSerializer):
    """The terms of one facet."""

    facet = serializers.ChoiceField(choices=[str(f) for f in VOCAB_FACETS], help_text="The facet.")
    terms = TermSerializer(many=True, help_text="By name.")


class VocabularySerializer(ResponseSerializer):
    """Every term, by facet, each list by name."""

    topic = TermSerializer(many=True, help_text="Topics (filter `topic`).")
    symptom = TermSerializer(many=True, help_text="Symptom tags (filter `symptom`).")
    root_cause = TermSerializer(many=True, help_text="Root-cause categories (filter `root_cause`).")
    component = TermSerializer(many=True, help_text="Components (filter `component`).")
    workload = TermSerializer(
        many=True, help_text="Workloads: training, inference, fleet (filter `workload`)."
    )
    organization = TermSerializer(many=True, help_text="Organizations (filter `organization`).")
    accelerator = TermSerializer(
        many=True, help_text="Accelerator families and models, with vendor and family (filter `accelerator`)."
    )


class TopicSerializer(TermSerializer):
    """A topic."""

    url = serializers.URLField(help_text="This topic's overview in the API.")


class TopicListSerializer(ResponseSerializer):
    """Every topic."""

    results = TopicSerializer(many=True, help_text="By name.")


class TermCountSerializer(ResponseSerializer):
    """A term with the number of cases carrying it."""

    slug = serializers.CharField(help_text="Filter value of the term.")
    name = serializers.CharField(help_text="The term's name.")
    count = serializers.IntegerField(help_text="Published cases.")
    cases_url = serializers.URLField(help_text="The API case list filtered by this term.")


class TopicOverviewSerializer(ResponseSerializer):
    """What one topic holds."""

    slug = serializers.CharField(help_text="Topic slug (filter `topic`).")
    name = serializers.CharField(help_text="The topic's name.")
    description = serializers.CharField(help_text="What the topic covers.")
    synonyms = serializers.ListField(
        child=serializers.CharField(), help_text="Other names that search widens to."
    )
    case_count = serializers.IntegerField(help_text="Published cases in the topic.")
    url = serializers.URLField(help_text="This overview.")
    cases_url = serializers.URLField(help_text="The API case list of this topic.")
    top_symptoms = TermCountSerializer(many=True, help_text="Most frequent in the topic first.")
    top_root_causes = TermCountSerializer(many=True, help_text="Most frequent first.")
    top_components = TermCountSerializer(many=True, help_text="Most frequent first.")
    latest_cases = CaseSummarySerializer(many=True, help_text="Newest first.")


class YearCountSerializer(ResponseSerializer):
    """Published cases of one publication year."""

    year = serializers.IntegerField(help_text="Publication year.")
    count = serializers.IntegerField(help_text="Published cases.")
    cases_url = serializers.URLField(help_text="The API case list of that year.")


class AcceleratorCountSerializer(ResponseSerializer):
    """Published cases on one accelerator term (a family counts its models' cases)."""

    accelerator = serializers.CharField(help_text="The accelerator term's name (A100, A100 80GB).")
    slug = serializers.CharField(help_text="Its slug, the value of the `accelerator` filter.")
    vendor = serializers.CharField(allow_null=True, help_text="The chip's vendor.")
    is_family = serializers.BooleanField(help_text="Whether the term is a family.")
    count = serializers.IntegerField(help_text="Published cases.")
    cases_url = serializers.URLField(help_text="The API case list on that accelerator.")


class DistributionSerializer(ResponseSerializer):
    """Nearest-rank percentiles of the known values (each one a value that occurs)."""

    known = serializers.IntegerField(help_text="Published cases with a known value.")
    unknown = serializers.IntegerField(help_text="Published cases without one.")
    min = serializers.IntegerField(allow_null=True, help_text="Smallest; null if none known.")
    p25 = serializers.IntegerField(allow_null=True, help_text="25th percentile.")
    median = serializers.IntegerField(allow_null=True, help_text="50th percentile.")
    p75 = serializers.IntegerField(allow_null=True, help_text="75th percentile.")
    p90 = serializers.IntegerField(allow_null=True, help_text="90th percentile.")
    max = serializers.IntegerField(allow_null=True, help_text="Largest; null if none known.")


class ResolveBucketSerializer(ResponseSerializer):
    """Cases whose time to resolve falls in one range."""

    label = serializers.CharField(help_text="e.g. `1 to 6 hours`.")  # type: ignore[assignment]  # a field named like Field.label
    min_seconds = serializers.IntegerField(help_text="Inclusive lower bound.")
    max_seconds = serializers.IntegerField(allow_null=True, help_text="Exclusive upper bound; null: none.")
    count = serializers.IntegerField(help_text="Published cases in the range.")


class ResolveDistributionSerializer(DistributionSerializer):
    """Time to resolve in seconds: percentiles and a histogram."""

    buckets = ResolveBucketSerializer(many=True, help_text="From short to long.")


class ScaleBandCountSerializer(ResponseSerializer):
    """Published cases whose accelerator count falls in one band of the `scale` facet."""

    scale = serializers.CharField(help_text="The band's slug, the value of `?scale=`: e.g. `1024-9999`.")
    label = serializers.CharField(help_text="e.g. `1,024–9,999 accelerators`.")  # type: ignore[assignment]  # a field named like Field.label
    min_accelerators = serializers.IntegerField(allow_null=True, help_text="Inclusive; null: none.")
    max_accelerators = serializers.IntegerField(allow_null=True, help_text="Inclusive; null: none.")
    count = serializers.IntegerField(help_text="Published cases in the band.")
    cases_url = serializers.URLField(help_text="The case list filtered to the band.")


class StatsSerializer(ResponseSerializer):
    """Counts and distributions over every published case."""

    total = serializers.IntegerField(help_text="Published cases.")
    by_year = YearCountSerializer(many=True, help_text="Publication years in order.")
    by_root_cause = TermCountSerializer(many=True, help_text="Most frequent first.")
    by_symptom = TermCountSerializer(many=True, help_text="Most frequent first.")
    by_component = TermCountSerializer(many=True, help_text="Most frequent first.")
    by_accelerator = AcceleratorCountSerializer(
        many=True,
        help_text="Every accelerator term the cases name, families and models, most frequent first.",
    )
    by_accelerator_family = AcceleratorCountSerializer(
        many=True, help_text="Accelerator families only (each case once), most frequent first."
    )
    time_to_resolve_seconds = ResolveDistributionSerializer(
        help_text="Time to resolve in seconds, over the cases where it is known."
    )
    accelerator_count = DistributionSerializer(
        help_text="Accelerators involved, over the cases where it is known."
    )
    by_scale = ScaleBandCountSerializer(
        many=True,
        help_text="Cases per band of accelerator count, smallest first; cases without a count left out.",
    )


class ChangeSerializer(ResponseSerializer):
    """A case written at `modified`: fetch `url` again."""

    id = serializers.CharField(help_text="Case id.")
    status = serializers.ChoiceField(
        choices=["published", "retracted", "merged"],
        help_text="`retracted`: remove it from a mirror; `merged`: replace it by `merged_into`.",
    )
    modified = serializers.DateTimeField(help_text="When the case was last written (UTC).")
    url = serializers.URLField(help_text="The case in the API (a merged id redirects to the kept case).")
    merged_into = serializers.CharField(allow_null=True, help_text="The kept case of a merged id, else null.")


class ChangesPageSerializer(ResponseSerializer):
    """One page of the change feed."""

    next = serializers.URLField(allow_null=True, help_text="Older changes; null at the end.")
    previous = serializers.URLField(allow_null=True, help_text="Newer changes.")
    results = ChangeSerializer(many=True, help_text="Newest first.")


class SearchTextField(StrictCharField):
    """Text searched as `q` is: at most `MAX_QUERY_CHARS` characters (stated in the schema),
    a longer one refused in the words of the parser the search doors share
    (`selectors.params.query_too_long`), not in DRF's own."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_length=MAX_QUERY_CHARS, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        # Before the field's validators (DRF's own max_length message), which the schema reads.
        value = super().to_internal_value(data)
        if len(value) > MAX_QUERY_CHARS:
            raise serializers.ValidationError(query_too_long(len(value)))
        return value


@extend_schema_serializer(deprecate_fields=["log"])
class TriageRequestSerializer(serializers.Serializer):
    """Body of `POST /api/triage`: symptoms and/or log lines (`text`; `log`, its former name,
    still read), and what is known of the job."""

    symptoms = SearchTextField(
        required=False,
        default="",
        allow_blank=True,
        trim_whitespace=False,
        help_text="What failed, in words or error text.",
    )
    text = StrictCharField(
        max_length=MAX_LOG_CHARS,
        required=False,
        default="",
        allow_blank=True,
        trim_whitespace=False,
        help_text=(
            f"Log lines around the failure (at most {MAX_LOG_CHARS:,} characters), named as "
            "`POST /api/match` and the MCP tools name a pasted log."
        ),
    )
    log = StrictCharField(
        max_length=MAX_LOG_CHARS,
        required=False,
        default="",
        allow_blank=True,
        trim_whitespace=False,
        help_text="Deprecated: the former name of `text`, still read for one release (not both); "
        "an answer to a body sending it carries a `Deprecation` header and a note to send `text`.",
    )
    # `allow_blank`: a blank optional field is not given (`api.params.without_blank_optionals`,
    # which leaves it out before these read it); declared so that the schema admits `""` too.
    job = NamedChoiceField(
        choices=["training", "inference"],
        required=False,
        allow_blank=True,
        help_text='Kind of job (leave out, or `""`, when unknown).',
    )
    framework = StrictCharField(
        max_length=60,
        required=False,
        allow_null=True,
        allow_blank=True,
        default=None,
        help_text="e.g. PyTorch, vLLM.",
    )
    accelerator = StrictCharField(
        max_length=60,
        required=False,
        allow_null=True,
        allow_blank=True,
        default=None,
        help_text="e.g. H100, TPU v4.",
    )
    scale = StrictIntegerField(
        min_value=1,
        max_value=1_000_000,
        required=False,
        allow_null=True,
        default=None,
        help_text="Accelerators in the job.",
    )
    limit = StrictIntegerField(min_value=3, max_value=5, default=5, help_text="Cases to return, 3-5.")

    def validate(self, attrs: dict) -> dict:
        """The log lines as `text`, whichever name gave them (`log` dropped); 400 for both
        given and different, or for neither symptoms nor log lines (`selectors.params.NOTHING_TO_TRIAGE`)."""
        text, log = attrs["text"], attrs.pop("log")
        if text.strip() and log.strip() and text != log:
            raise serializers.ValidationError(
                {"log": "the former name of text: give the log lines once, as text"}
            )
        attrs["text"] = text if text.strip() else log
        if not attrs["symptoms"].strip() and not attrs["text"].strip():
            raise serializers.ValidationError({"symptoms": NOTHING_TO_TRIAGE})
        return attrs


class TriageWhySerializer(ResponseSerializer):
    """Why a case is offered."""

    text = serializers.CharField(
        help_text="Why it is listed, in words, as search and log matching say it of their hits "
        "(`Matches: watchdog, hang.` for the symptoms' words, `Shares: NCCL timeout (line 2).` for "
        "the log's signatures), cut to 200 characters."
    )
    matched_terms = serializers.ListField(
        child=serializers.CharField(), help_text="Terms and tokens matched."
    )
    line_numbers = serializers.ListField(
        child=serializers.IntegerField(), help_text="Log lines that point at the case (see `log_lines`)."
    )
    # A response field named like Field.context; this class only describes output.
    context = serializers.ListField(  # type: ignore[assignment]
        child=serializers.CharField(), help_text="What in the given context fits or contradicts the case."
    )


class TriageRootCauseSerializer(ResponseSerializer):
    """The case's root cause, short."""

    category = serializers.CharField(help_text="Root-cause category name.")
    description = serializers.CharField(allow_null=True, help_text="The root cause, cut to 200 characters.")


class TriageCaseSerializer(ResponseSerializer):
    """A known case like the failure, with what to do about it."""

    id = serializers.CharField(help_text="Case id.")
    title = serializers.CharField(help_text="One-sentence headline of the incident.")
    confidence = serializers.ChoiceField(
        choices=["strong", "possible", "weak"], help_text="How sure the match is."
    )
    why = TriageWhySerializer(help_text="Why the case is offered.")
    like = serializers.CharField(
        allow_null=True,
        help_text="The first hit's id when the case is listed as one like it, as a search or log "
        "match hit gives it (`why` says `Similar to IL-0459, the first hit.`); null otherwise.",
    )
    root_cause = TriageRootCauseSerializer(help_text="Category and description.")
    fix = serializers.ListField(child=serializers.CharField(), help_text="What fixed it (first 3 steps).")
    checks = serializers.ListField(child=serializers.CharField(), help_text="Checks to run (first 2).")
    sources = serializers.ListField(child=serializers.URLField(), help_text="Public sources (first 2).")
    url = serializers.URLField(help_text="The case as JSON.")
    html_url = serializers.URLField(help_text="The case's web page.")


class TriageLogLineSerializer(ResponseSerializer):
    """A posted log line that points at one of the cases."""

    line_number = serializers.IntegerField(help_text="1-based line in the posted log.")
    line = serializers.CharField(help_text="The line, cut to 300 characters.")


class TriageResponseSerializer(ResponseSerializer):
    """The triage answer (the same as the MCP `triage` tool's)."""

    known = serializers.BooleanField(help_text="True when a case matches strongly.")
    cases = TriageCaseSerializer(many=True, help_text="3-5 cases, best first.")
    log_lines = TriageLogLineSerializer(many=True, help_text="Each matched log line once.")
    lines_read = serializers.IntegerField(
        help_text="Lines in the posted log, counted as `POST /api/match` counts `lines_read`; 0 without one."
    )
    notes = serializers.ListField(
        child=serializers.CharField(), help_text='E.g. "Nothing like this is known: ..."'
    )
    truncated = serializers.BooleanField(help_text="Always false here (MCP cuts to its byte budget).")


class ReferenceSerializer(ResponseSerializer):
    """An upstream record as a case's `references` item has it."""

    kind = serializers.ChoiceField(
        choices=["issue", "pull_request", "commit", "release", "advisory", "paper", "postmortem", "other"],
        help_text="What the record is.",
    )
    id = serializers.CharField(
        allow_null=True, help_text="Alias, e.g. `NVIDIA/nccl#1116`, `arXiv:2407.21783`."
    )
    url = serializers.URLField(help_text="Where the record is.")
    state = serializers.CharField(
        allow_null=True, help_text="`open`, `fixed`, `closed` or `unknown` as written; null if not stated."
    )
    fixed_in = serializers.CharField(allow_null=True, help_text="Release carrying the fix, when known.")


class CitingCaseSerializer(CaseSummarySerializer):
    """A case citing the record, and how: in its `references`, its `sources` or both."""

    via = serializers.ListField(
        child=serializers.ChoiceField(choices=["reference", "source"]), help_text="How the case cites it."
    )


class UpstreamLookupSerializer(ResponseSerializer):
    """`GET /api/lookup`: the published cases citing one upstream record or source."""

    query = serializers.CharField(help_text="The `ref` or `url` as sent.")
    key = serializers.CharField(
        help_text="The normalised record key compared: `owner/repo#n` in lower case, `arxiv:NNNN.NNNNN`, "
        "or the URL without scheme, `www.`, fragment or trailing slash."
    )
    record = ReferenceSerializer(
        allow_null=True, help_text="The record as a citing case describes it; null when only sources cite it."
    )
    count = serializers.IntegerField(help_text="Citing published cases.")
    cases = CitingCaseSerializer(many=True, help_text="Newest first.")
    html_url = serializers.URLField(help_text="The record's page.")


class ErrorCodeSerializer(ResponseSerializer):
    """An error code of the vocabulary."""

    slug = serializers.CharField(help_text="The code's slug, e.g. `xid-79`.")
    name = serializers.CharField(help_text="The code as the tool prints it, e.g. `Xid 79`.")
    vendor = serializers.CharField(help_text="What prints it: NVIDIA driver, NCCL, CUDA runtime, ...")
    description = serializers.CharField(help_text="What it means, one line, from the vendor documentation.")
    source_url = serializers.URLField(help_text="The vendor documentation the meaning comes from.")
    synonyms = serializers.ListField(child=serializers.CharField(), help_text="Other ways it is written.")
    patterns = serializers.ListField(
        child=serializers.CharField(), help_text="RE2 patterns (case ignored) that find it in text."
    )
    case_count = serializers.IntegerField(help_text="Published cases that showed it.")
    url = serializers.URLField(help_text="This code in the API.")
    html_url = serializers.URLField(help_text="This code's page.")


class FoundErrorCodeSerializer(ErrorCodeSerializer):
    """An error code a pasted log shows, found by its patterns."""

    line_numbers = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="1-based lines it is on, in order: its first 20 distinct lines, a line the log "
        "repeats word for word at its first number.",
    )


class MatchResponseSerializer(ResponseSerializer):
    """Cases ranked by what the log text contains."""

    results = LogHitSerializer(
        many=True, help_text="Best match first; empty when nothing in the text is recognised."
    )
    reading = LogReadingSerializer(help_text="How many lines were read, matched and ignored.")
    error_codes = FoundErrorCodeSerializer(
        many=True,
        help_text="Error codes whose patterns match lines of the text, by vendor then name, "
        "whether or not a case carries them; cases carrying one rank higher.",
    )


class ErrorCodeListSerializer(ResponseSerializer):
    """Every error code."""

    results = ErrorCodeSerializer(many=True, help_text="By vendor, then name (numbers in order).")


class CauseCountSerializer(ResponseSerializer):
    """How often one root cause was the answer among a code's cases."""

    slug = serializers.CharField(help_text="Root-cause category slug.")
    name = serializers.CharField(help_text="Root-cause category name.")
    count = serializers.IntegerField(help_text="Cases with this root cause.")
    total = serializers.IntegerField(help_text="Cases of the code.")


class CaseCheckSerializer(ResponseSerializer):
    """A check one of the code's cases names."""

    text = serializers.CharField(help_text="The check (Markdown).")
    case_id = serializers.CharField(help_text="The case naming it.")


class ErrorCodeDetailSerializer(ErrorCodeSerializer):
    """An error code with its cases, root-cause breakdown and checks."""

    root_causes = CauseCountSerializer(many=True, help_text="Most frequent first.")
    checks = CaseCheckSerializer(many=True, help_text="Each once, newest case first (at most 12).")
    cases = CaseSummarySerializer(many=True, help_text="Newest first (at most 50).")


class AffectedRequestSerializer(serializers.Serializer):
    """Body of `POST /api/affected` (the bare mapping is accepted too)."""

    versions = serializers.DictField(
        child=serializers.CharField(),
        help_text='Component -> version, e.g. {"NCCL": "2.19.3", "NVIDIA driver": "535.104.05"}; '
        "components by name, slug or synonym.",
    )


class AffectedRangeSerializer(ResponseSerializer):
    """A case's `affected` item."""

    component = serializers.CharField(help_text="Component term name.")
    versions = serializers.ListField(child=serializers.CharField(), help_text="Versions listed as affected.")
    introduced = serializers.CharField(
        allow_null=True, help_text='First affected version (inclusive); "0": every earlier version.'
    )
    fixed = serializers.CharField(allow_null=True, help_text="First fixed version (exclusive).")
    last_affected = serializers.CharField(allow_null=True, help_text="Last affected version (inclusive).")


class AffectedMatchSerializer(ResponseSerializer):
    """A case whose range includes a sent version (or cannot be compared with it)."""

    case = CaseSummarySerializer(help_text="The case.")
    component = serializers.CharField(help_text="Component term name.")
    version = serializers.CharField(help_text="The version sent.")
    range = AffectedRangeSerializer(help_text="The case's range that decided.")
    why = serializers.CharField(help_text="Why, in words, e.g. `introduced 2.19.1 <= 2.19.3 < fixed 2.20.3`.")
    fixed = serializers.CharField(allow_null=True, help_text="The fixed version, when known.")
    workaround = serializers.CharField(allow_null=True, help_text="The case's first remediation step.")


class AffectedResponseSerializer(ResponseSerializer):
    """The cases a set of component versions falls into."""

    checked = serializers.DictField(
        child=serializers.CharField(), help_text="Component name -> version compared."
    )
    count = serializers.IntegerField(help_text="Matches in `affected`.")
    affected = AffectedMatchSerializer(many=True, help_text="Ranges including a version, newest case first.")
    unknown = AffectedMatchSerializer(
        many=True,
        help_text="Possibly affected, check by hand: a range whose bound has no order (e.g. `r0.3.0`), or "
        "a version before the earliest one listed in a range with no `introduced`.",
    )
    skipped = ParameterErrorSerializer(
        many=True,
        help_text="Keys left out, as `errors` would name them: components no vocabulary term names "
        "(`numpy` from a pasted `pip freeze`), with the nearest component names. Empty when every key "
        "was compared; when none was, the answer is a 400.",
    )
