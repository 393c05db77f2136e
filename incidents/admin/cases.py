"""The case admin: the form, its inlines and fieldsets, permissions (editors edit, nobody
deletes) and the history as the public page reads it.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from simple_history.admin import SimpleHistoryAdmin

from .. import workflow
from ..history import revisions_by_row
from ..models import Case
from .case_actions import CaseWorkflowActions
from .common import FORM_FIELDS, JSON_FIELDS, LIST_FIELDS
from .forms import CaseAdminForm, open_corrections
from .inlines import CaseRelationInline, CaseTermInline, ScaleTableInline, SourceInline
from .saving import SavesThroughService


class StatusFilter(admin.SimpleListFilter):
    """The review queue first: drafts and cases in review."""

    title = "status"
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("queue", "Review queue (draft or in review)"), *Case.Status.choices]

    def queryset(self, request: HttpRequest, queryset: Any) -> Any:
        if self.value() == "queue":
            return queryset.filter(status__in=[Case.Status.DRAFT, Case.Status.IN_REVIEW])
        if self.value():
            return queryset.filter(status=self.value())
        return queryset


@admin.register(Case)
class CaseAdmin(CaseWorkflowActions, SavesThroughService, SimpleHistoryAdmin):
    """Cases: editors add (a draft, the next free id when none is given) and edit them, saved
    through `services.save_case_document` (`SavesThroughService`); nobody deletes one. The
    workflow (actions, preview, retract, merge) is `CaseWorkflowActions`."""

    form = CaseAdminForm
    # `affected` and `references` are the form's own fields, put into the document
    # (`CaseAdminForm.edited_document`), never written to the case's columns by the form.
    exclude = JSON_FIELDS
    formfield_overrides = FORM_FIELDS
    list_display = ("id", "title", "organization", "status", "published", "modified")
    list_filter = (StatusFilter, "severity", "root_cause_category", "published")
    search_fields = ("id", "title", "organization", "summary", "sources__url")
    date_hierarchy = "published"
    ordering = ("-modified",)
    list_select_related = ("root_cause_category",)
    autocomplete_fields = ("root_cause_category",)
    readonly_fields = ("status", "retraction_reason", "merged_into", "added", "modified", "preview_link")
    inlines = (CaseTermInline, SourceInline, ScaleTableInline, CaseRelationInline)
    actions = ("submit_for_review", "send_back_to_draft", "publish")
    # The history reads as the public page's (`/cases/<id>/history`): its revisions, not
    # simple-history's raw values (`in_review`, `[] → ['Roll back …']`, "status: in_review").
    object_history_list_template = "admin/incidents/case/object_history_list.html"
    fieldsets = (
        (None, {"fields": ("id", "title", "organization", "published", "occurred", "summary")}),
        (
            "Status",
            {"fields": ("status", "retraction_reason", "merged_into", "added", "modified", "preview_link")},
        ),
        (
            "Facts",
            {
                "fields": (
                    "severity",
                    "scope",
                    "users_affected",
                    "region",
                    "time_to_detect",
                    "time_to_resolve",
                )
            },
        ),
        ("Environment", {"fields": ("cluster", "accelerator", "accelerator_count", "node_count")}),
        (
            "Symptoms and root cause",
            {
                "fields": (
                    "symptoms_description",
                    "root_cause_category",
                    "root_cause_description",
                    "root_cause_trigger",
                    "detection",
                )
            },
        ),
        ("Lists", {"fields": LIST_FIELDS}),
        ("Error codes, affected versions and upstream references", {"fields": ("error_codes", *JSON_FIELDS)}),
        (None, {"fields": ("change_reason",)}),
    )

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None:
            # A new case has no status, dates or link yet: its status field showed the
            # model's default, "Published", for a case `save_model` makes a draft.
            return [
                (name, {**options, "fields": ("new_case_status",)}) if name == "Status" else (name, options)
                for name, options in fieldsets
            ]
        if workflow.is_reviewer(request.user) and open_corrections(obj.pk).exists():
            *edited, reason = fieldsets
            return (*edited, ("Correction proposals", {"fields": ("accepts_correction",)}), reason)
        return fieldsets

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        form = super().get_form(request, obj, change, **kwargs)
        if workflow.is_reviewer(request.user):
            return type(form.__name__, (form,), {"may_accept_corrections": True})
        return form

    # --- permissions: editors edit, nobody deletes (ids are never reused) ---

    def has_module_permission(self, request: HttpRequest) -> bool:
        return workflow.is_editor(request.user)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return workflow.is_editor(request.user)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return workflow.is_editor(request.user)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return workflow.is_editor(request.user) and (obj is None or obj.status != Case.Status.MERGED)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        # The id is chosen once: changing it would break every link to the case.
        return (*self.readonly_fields, "id") if obj is not None else ("new_case_status",)

    @admin.display(description="Status")
    def new_case_status(self, obj: Case) -> str:
        return "Draft once saved: submit it for review from the list of cases; a reviewer publishes it."

    @admin.display(description="Preview")
    def preview_link(self, obj: Case) -> str:
        if not obj.pk:
            return "Save first to preview."
        return format_html(
            '<a href="{}">Preview the case page</a>', reverse("admin:incidents_case_preview", args=[obj.pk])
        )

    def case_id_of(self, obj: Case) -> str:
        return obj.pk

    def set_history_delta_changes(
        self, request: HttpRequest, historical_records: Any, foreign_keys_are_objs: bool = True
    ) -> None:
        """Give each history row listed its `revision`, what the public history page shows of
        it (`history.revisions_by_row`: one query for the case's rows), in place of
        simple-history's `history_delta_changes`."""
        records = list(historical_records)
        if not records:
            return
        revisions = revisions_by_row(records[0].id)
        for record in records:
            record.revision = revisions[record.history_id]

    def save_model(self, request: HttpRequest, obj: Case, form: Any, change: bool) -> None:
        from .. import services

        if not change:
            obj.id = obj.id or services.next_case_id()
            obj.status = Case.Status.DRAFT
        super().save_model(request, obj, form, change)
