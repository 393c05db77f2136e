"""Output shapes of the API. The case document itself comes from `incidents.documents`."""

from __future__ import annotations

from django.urls import reverse
from rest_framework import serializers

from incidents.documents import case_document
from incidents.models import Case


class CaseSummarySerializer(serializers.Serializer):
    """A case in a list: enough to choose which one to open."""

    id = serializers.CharField()
    title = serializers.CharField()
    organization = serializers.CharField()
    published = serializers.DateField()
    topics = serializers.SerializerMethodField()
    symptom_tags = serializers.SerializerMethodField()
    root_cause_category = serializers.CharField(source="root_cause_category.name")
    url = serializers.SerializerMethodField()

    def get_topics(self, case: Case) -> list[str]:
        return [term.slug for term in case.topics]

    def get_symptom_tags(self, case: Case) -> list[str]:
        return [term.name for term in case.symptom_tags]

    def get_url(self, case: Case) -> str:
        return self.context["request"].build_absolute_uri(reverse("api:case-detail", args=[case.id]))


def case_detail_payload(case: Case, request) -> dict:
    """The schema document plus `url` and `html_url` (absolute)."""
    document = dict(case_document(case))
    document["url"] = request.build_absolute_uri(reverse("api:case-detail", args=[case.id]))
    document["html_url"] = request.build_absolute_uri(case.get_absolute_url())
    return document
