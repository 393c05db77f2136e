"""`POST /api/triage`: symptoms and log lines in, the known cases most like the failure out."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from incidents.selectors.params import NOTHING_TO_TRIAGE

from .base import ResponseSerializer
from .fields import NamedChoiceField, SearchTextField, StrictCharField, StrictIntegerField
from .match import MAX_LOG_CHARS


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
        "match hit gives it (`why` says `Similar to IL-0459, the first hit.` when that hit is this "
        "answer's first case, else `..., the word search's first hit.` or `..., the log match's first "
        "hit.`); null otherwise.",
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
