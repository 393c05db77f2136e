"""A case in a list, a case's document as the API serves it, and the cases similar to one."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from .base import ResponseSerializer


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
        help_text=(
            'Why, in words, e.g. ["Both: NCCL timeout, DeepSpeed", "same kind of root cause: software bug"].'
        ),
    )
    shared_terms = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Facet -> names of the terms both cases carry.",
    )
    score_parts = serializers.DictField(
        child=serializers.FloatField(),
        help_text='What the score is made of, e.g. {"vocabulary": 0.3, "text": 0.1, "semantic": 0.2}.',
    )


class RelatedCaseSerializer(ResponseSerializer):
    """A case an editor linked to another by hand."""

    id = serializers.CharField(help_text="Case id, e.g. `IL-0464`.")
    title = serializers.CharField(help_text="One-sentence headline of the incident.")
    url = serializers.URLField(help_text="This case in the API.")
    html_url = serializers.URLField(help_text="This case's web page.")


class SimilarListSerializer(ResponseSerializer):
    """The cases most similar to one case, and apart those an editor linked to it."""

    case = serializers.CharField(help_text="Id of the case the others are similar to.")
    url = serializers.URLField(help_text="That case in the API.")
    results = SimilarCaseSerializer(many=True, help_text="Most similar first; hand-linked cases left out.")
    related = RelatedCaseSerializer(
        many=True,
        help_text="The published cases an editor linked to this one (its `related`), in the editor's "
        "order: often the closest of all, so not left for the case document alone.",
    )
