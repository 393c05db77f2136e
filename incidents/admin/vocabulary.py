"""Vocabulary terms, saved through `services.save_term`."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from .. import workflow
from ..models import Facet, Term
from .common import FORM_FIELDS
from .forms import TermAdminForm


@admin.register(Term)
class TermAdmin(admin.ModelAdmin):
    """Vocabulary terms: saved through `services.save_term` (the vocabulary import's upsert)
    so the cases using a term are re-indexed."""

    form = TermAdminForm
    formfield_overrides = FORM_FIELDS
    list_display = ("name", "facet", "slug")
    list_filter = ("facet",)
    search_fields = ("name", "slug", "description", "synonyms")
    ordering = ("facet", "name")

    def has_module_permission(self, request: HttpRequest) -> bool:
        return workflow.is_editor(request.user)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return workflow.is_editor(request.user)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return workflow.is_reviewer(request.user)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return workflow.is_reviewer(request.user)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # cases refer to terms by name

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return ("facet",) if obj is not None else ()

    def get_search_results(self, request: HttpRequest, queryset: Any, search_term: str) -> tuple[Any, bool]:
        queryset, distinct = super().get_search_results(request, queryset, search_term)
        if (request.GET.get("model_name"), request.GET.get("field_name")) == ("caseterm", "term"):
            # The case form's term rows take no error code (they have a field of their own):
            # their autocomplete does not offer one.
            queryset = queryset.exclude(facet=Facet.ERROR_CODE)
        return queryset, distinct

    def save_model(self, request: HttpRequest, obj: Term, form: Any, change: bool) -> None:
        from .. import services

        services.save_term(obj, user=request.user)
