"""The vocabulary: its terms by facet, and the topics with what each one holds."""

from __future__ import annotations

from rest_framework import serializers

from incidents.models import VOCAB_FACETS

from .base import ResponseSerializer
from .cases import CaseSummarySerializer


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
