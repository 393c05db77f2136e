"""The change feed: which cases were written when, for a mirror to fetch again."""

from __future__ import annotations

from rest_framework import serializers

from .base import ResponseSerializer


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
