"""The rows edited below a case's form and a scale table's (inlines, editors only), and the
heading of the rows that edit a document field (`rows_heading`), for problems said above the
form.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.contrib import admin
from django.db import models
from django.http import HttpRequest
from django.utils.text import capfirst

from .. import workflow
from ..models import CaseRelation, CaseTerm, Facet, ScaleColumn, ScaleRow, ScaleTable, Source, Term
from .common import FORM_FIELDS, NullBlanksForm


class EditorInline(admin.TabularInline):
    """Child rows of a case: whoever may edit the case edits them (deleting a row is an edit)."""

    form = NullBlanksForm
    formfield_overrides = FORM_FIELDS

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return workflow.is_editor(request.user)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return workflow.is_editor(request.user)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return workflow.is_editor(request.user)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return workflow.is_editor(request.user)


class CaseTermInline(EditorInline):
    """A case's term rows in order, error codes apart (they have a field of their own)."""

    model = CaseTerm
    fields = ("position", "term")
    autocomplete_fields = ("term",)
    ordering = ("position",)
    extra = 1
    verbose_name = "topic, symptom tag or component"
    verbose_name_plural = "topics, symptom tags and components (in order)"

    def get_queryset(self, request: HttpRequest) -> Any:
        # Each row is named by its term (`CaseTerm.__str__`): one join, not a query a row.
        # Error codes have a field of their own (`CaseAdminForm.error_codes`).
        return super().get_queryset(request).select_related("term").exclude(term__facet=Facet.ERROR_CODE)

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "term":
            kwargs["queryset"] = Term.objects.exclude(facet=Facet.ERROR_CODE)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class SourceInline(EditorInline):
    """A case's sources in order."""

    model = Source
    fields = ("position", "title", "url")
    ordering = ("position",)
    extra = 1
    # A title is a line or two: the admin's ten-row, 610-pixel text area pushed each row's
    # delete box past the right edge of a 1280-pixel window.
    formfield_overrides = {
        **FORM_FIELDS,
        models.TextField: {
            **FORM_FIELDS[models.TextField],
            "widget": forms.Textarea(attrs={"rows": 3, "cols": 36}),
        },
    }


class ScaleTableInline(EditorInline):
    """A case's scale tables: position and caption, linking each table's own page."""

    model = ScaleTable
    fields = ("position", "caption")
    ordering = ("position",)
    extra = 0
    show_change_link = True  # columns and rows are edited on the table's own page


class CaseRelationInline(EditorInline):
    """A case's hand-made links to related cases, in order."""

    model = CaseRelation
    fk_name = "source"
    fields = ("position", "target")
    autocomplete_fields = ("target",)
    ordering = ("position",)
    extra = 0
    verbose_name = "related case"
    verbose_name_plural = "related cases (hand-made links, in order)"


def _rows_heading_of(inline: type[admin.options.InlineModelAdmin[Any, Any]]) -> str:
    return capfirst(str(inline.verbose_name_plural or inline.model._meta.verbose_name_plural))


# The case document's fields edited in rows below the case form (its inlines): a problem
# with one is said above the form, so it names the rows' heading.
ROW_INLINES: Mapping[str, type[admin.options.InlineModelAdmin[Any, Any]]] = {
    "topics": CaseTermInline,
    "symptoms.tags": CaseTermInline,
    "environment.components": CaseTermInline,
    "environment.workload": CaseTermInline,
    "sources": SourceInline,
    "scale_tables": ScaleTableInline,
    "related": CaseRelationInline,
}


def rows_heading(path: str) -> str | None:
    """The heading of the rows of the case form that edit the document field at JSON path
    `path` (`$.topics`, `$.sources[0].url`: "Topics, symptom tags and components (in
    order)", "Sources"), or None when no rows do."""
    field = path.removeprefix("$.").split("[", 1)[0]
    for name, inline in ROW_INLINES.items():
        if field == name or field.startswith(f"{name}."):
            return _rows_heading_of(inline)
    return None


class ScaleColumnInline(EditorInline):
    """A scale table's columns, in order."""

    model = ScaleColumn
    fields = ("position", "key", "label", "unit")
    ordering = ("position",)
    extra = 0


class ScaleRowInline(EditorInline):
    """A scale table's rows, in order."""

    model = ScaleRow
    fields = ("position", "values", "outcome", "note")
    ordering = ("position",)
    extra = 0
