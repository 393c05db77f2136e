"""A scale table's own page: its columns and rows, saved through the case's service."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from .. import workflow
from ..models import ScaleTable
from .common import FORM_FIELDS
from .forms import ScaleTableAdminForm
from .inlines import ScaleColumnInline, ScaleRowInline
from .saving import SavesThroughService


@admin.register(ScaleTable)
class ScaleTableAdmin(SavesThroughService, admin.ModelAdmin):
    """One scale table's columns and rows; saved through the case's service like the case."""

    form = ScaleTableAdminForm
    formfield_overrides = FORM_FIELDS
    list_display = ("caption", "case", "position")
    search_fields = ("caption", "case__id", "case__title")
    list_filter = ("case__status",)
    inlines = (ScaleColumnInline, ScaleRowInline)
    fields = ("case", "position", "caption", "change_reason")
    readonly_fields = ("case",)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return False  # reached from a case's page

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return workflow.is_editor(request.user)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return workflow.is_editor(request.user)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def case_id_of(self, obj: ScaleTable) -> str:
        return obj.case_id
