"""`GET /api/lookup`: the published cases citing one upstream record or source."""

from __future__ import annotations

from rest_framework import serializers

from .base import ResponseSerializer
from .cases import CaseSummarySerializer


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
