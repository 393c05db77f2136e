"""Shapes of the editorial endpoints (history, writes, proposals), for the OpenAPI schema;
the history answer is built by its serializers (`ResponseSerializer`)."""

from __future__ import annotations

from rest_framework import serializers

from incidents.models import Case
from incidents.proposals.models import Proposal

from .serializers import CaseDetailSerializer, ResponseSerializer


class FieldChangeSerializer(ResponseSerializer):
    """One changed field of one history entry."""

    field = serializers.CharField(
        help_text="Path in the case document (`facts.severity`) or an editorial field."
    )
    old = serializers.JSONField(allow_null=True, help_text="The value before (null: not set).")
    new = serializers.JSONField(allow_null=True, help_text="The value after (null: removed).")


class RevisionSerializer(ResponseSerializer):
    """One recorded change of a case."""

    number = serializers.IntegerField(help_text="1 for the first recorded state.")
    modified = serializers.DateTimeField(help_text="When the change was made (UTC).")
    user = serializers.CharField(
        allow_null=True, help_text="Editor's username; null for an import or a proposal."
    )
    reason = serializers.CharField(help_text="Why, as the editor or the tool said.")
    created = serializers.BooleanField(help_text="True for the entry that created the case.")
    status = serializers.CharField(help_text="The case's status after the change.")
    changes = FieldChangeSerializer(many=True, help_text="Each changed field.")


class LinkedHistorySerializer(serializers.Serializer):
    """Another case tied to this one by a merge, and where its history is."""

    id = serializers.CharField(help_text="Case id.")
    url = serializers.URLField(help_text="That case in the API (a merged id redirects to its kept case).")
    history_url = serializers.URLField(help_text="That case's own change history.")


class CaseHistorySerializer(ResponseSerializer):
    """A case's history, newest first."""

    case = serializers.CharField(help_text="Case id.")
    status = serializers.CharField(help_text="The case's status now: published, retracted or merged.")
    merged_into = LinkedHistorySerializer(
        allow_null=True,
        help_text="The case this one was merged into (its id redirects there); null unless merged.",
    )
    merged_on = serializers.CharField(
        allow_null=True, help_text="When it was merged (UTC, ISO 8601); null unless merged."
    )
    merged_from = LinkedHistorySerializer(many=True, help_text="The cases merged into this one, by id.")
    results = RevisionSerializer(many=True, help_text="Changes, newest first.")


class StatusChangeSerializer(serializers.Serializer):
    """A move along the editorial workflow."""

    status = serializers.ChoiceField(
        choices=[s.value for s in Case.Status if s != Case.Status.MERGED], help_text="The status to move to."
    )
    reason = serializers.CharField(required=False, max_length=2000, help_text="Why; required to retract.")


class MergeRequestSerializer(serializers.Serializer):
    """Which case a duplicate is merged into."""

    into = serializers.CharField(help_text="The id of the case that stays.")
    reason = serializers.CharField(required=False, max_length=2000, help_text="Why, for the history.")


class LookalikeSerializer(serializers.Serializer):
    """An existing case a proposal may duplicate or resemble."""

    id = serializers.CharField(help_text="Case id.")
    title = serializers.CharField(help_text="Case title.")
    url = serializers.URLField(help_text="The case's web page.")
    reason = serializers.CharField(required=False, help_text="Why it may be a duplicate (duplicates only).")


class WriteWarningSerializer(ResponseSerializer):
    """Something a write did that its writer should know: a case the written one looks like
    (`duplicates.duplicates_of_case`), as import, the admin and a proposal's Accept warn."""

    detail = serializers.CharField(
        help_text=(
            "The warning in words: `Possible duplicate: IL-0700 looks like IL-0450 (same source "
            "URL https://...)`, as the admin says it."
        )
    )
    id = serializers.CharField(help_text="The case the written one looks like.")
    title = serializers.CharField(help_text="That case's title.")
    url = serializers.URLField(help_text="That case's web page.")
    reason = serializers.CharField(
        help_text="Why: `same source URL https://...` or `near-identical text (0.93)`."
    )


class CaseWrittenSerializer(CaseDetailSerializer):
    """A write's answer: the case as stored and what the writer should know of it."""

    warnings = WriteWarningSerializer(
        many=True,
        help_text=(
            "Cases this one looks like (same source URL, near-identical text), on a create, a "
            "replace or patch, and a move to published; empty otherwise. The write is made: a "
            "look-alike may be a second account of another incident, or a duplicate to merge."
        ),
    )


class LookalikesSerializer(serializers.Serializer):
    """Possible duplicates (same source URL, near-identical text), then similar cases."""

    duplicates = LookalikeSerializer(many=True, help_text="Cases this may duplicate.")
    similar = LookalikeSerializer(many=True, help_text="Published cases search finds for the title.")


class ProposalStatusSerializer(serializers.Serializer):
    """Where a proposal stands."""

    status = serializers.ChoiceField(
        choices=Proposal.Status.values, help_text="received, in_review, accepted, declined."
    )
    kind = serializers.ChoiceField(choices=Proposal.Kind.values, help_text="`new` case or `correction`.")
    title = serializers.CharField(help_text="The proposal's title.")
    case = serializers.CharField(
        allow_null=True, help_text="The published case (accepted) or the corrected case."
    )
    decline_reason = serializers.CharField(allow_null=True, help_text="Why it was declined.")
    status_url = serializers.URLField(help_text="The private status page; keep it.")
    url = serializers.URLField(help_text="The same status in the API.")
    lookalikes = serializers.ListField(
        child=serializers.DictField(), help_text="Existing cases it looked like when sent (`id`, `reason`)."
    )
