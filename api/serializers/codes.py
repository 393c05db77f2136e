"""The error codes of the vocabulary, a code with its cases, and the codes a pasted log shows."""

from __future__ import annotations

from rest_framework import serializers

from .base import ResponseSerializer
from .cases import CaseSummarySerializer


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
