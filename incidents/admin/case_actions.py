"""A case's preview page, its workflow pages (retract, merge, reviewers only) and its workflow
actions (submit for review, send back to draft, publish), all through the write services.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path

from .. import selectors, workflow
from ..models import Case
from .forms import MergeForm, RetractForm


class CaseWorkflowActions(admin.ModelAdmin):
    """The case admin's workflow: its actions and the preview, retract and merge pages (their
    URLs under the case's change page). Status changes go through `services.change_status`
    and `merge_cases`, never the case form."""

    # --- reviewer-only actions: offered to reviewers alone, as `workflow` allows them ---

    def get_actions(self, request: HttpRequest) -> Any:
        actions = super().get_actions(request)
        if not workflow.is_reviewer(request.user):
            actions.pop("publish", None)
        return actions

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        # The change page links Retract and Merge for reviewers only (change_form.html).
        extra_context = {**(extra_context or {}), "is_reviewer": workflow.is_reviewer(request.user)}
        return super().change_view(request, object_id, form_url, extra_context)

    # --- preview and workflow ---

    def get_urls(self) -> list[Any]:
        extra = [
            path(
                "<str:object_id>/preview/",
                self.admin_site.admin_view(self.preview_view),
                name="incidents_case_preview",
            ),
            path(
                "<str:object_id>/retract/",
                self.admin_site.admin_view(self.retract_view),
                name="incidents_case_retract",
            ),
            path(
                "<str:object_id>/merge/",
                self.admin_site.admin_view(self.merge_view),
                name="incidents_case_merge",
            ),
        ]
        return extra + super().get_urls()

    def preview_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """The case page as readers will see it, for any status."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        case = get_object_or_404(Case.objects.with_document(), id=object_id)
        related = selectors.related_cases(case)
        return render(
            request,
            "incidents/case_detail.html",
            {
                "case": case,
                "preview": True,
                "related": related,
                "related_ids": {other.id for other in related},
                "similar": [],
                "tool_urls": {},
                "page_url": request.build_absolute_uri(case.get_absolute_url()),
                "bibtex": "",
                "json_url": None,
            },
        )

    def _workflow_form_view(
        self, request: HttpRequest, object_id: str, form_class: Any, title: str, apply: Any
    ) -> HttpResponse:
        case = get_object_or_404(Case, id=object_id)
        if not workflow.is_reviewer(request.user):
            # Refused before the form: an editor would otherwise write a reason for nothing.
            self.message_user(
                request, f"{title} needs the reviewer role; ask a reviewer to do it.", messages.ERROR
            )
            return redirect("admin:incidents_case_change", object_id)
        form = form_class(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                apply(case, form.cleaned_data)
            except (workflow.WorkflowError, workflow.NotAllowed, ValueError, Case.DoesNotExist) as error:
                form.add_error(None, str(error))
            else:
                self.message_user(request, f"{title}: done.", messages.SUCCESS)
                return redirect("admin:incidents_case_change", object_id)
        context = {
            **self.admin_site.each_context(request),
            "title": f"{title} {case.id}",
            "form": form,
            "case": case,
        }
        return render(request, "admin/incidents/case/workflow_form.html", context)

    def retract_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Retract the case (reviewers): a form asking the reason, then
        `services.change_status`; back to the case's page when done."""
        from .. import services

        return self._workflow_form_view(
            request,
            object_id,
            RetractForm,
            "Retract",
            lambda case, data: services.change_status(
                case.id, Case.Status.RETRACTED, user=request.user, reason=data["reason"]
            ),
        )

    def merge_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Merge the case into another (reviewers): a form asking the id that stays, then
        `services.merge_cases`; back to the case's page when done."""
        from .. import services

        return self._workflow_form_view(
            request,
            object_id,
            MergeForm,
            "Merge",
            lambda case, data: services.merge_cases(
                case.id, data["kept"], user=request.user, reason=data["reason"]
            ),
        )

    def _transition(self, request: HttpRequest, queryset: Any, target: str) -> None:
        """Move each chosen case to `target`, saying for each whether it moved; a case
        published warns of the cases it looks like (`duplicates.duplicates_of_case`), as a
        save in the admin and a proposal's Accept do."""
        from .. import duplicates, services

        for case in queryset:
            try:
                services.change_status(case.id, target, user=request.user)
            except (workflow.WorkflowError, workflow.NotAllowed) as error:
                self.message_user(request, f"{case.id}: {error}", messages.ERROR)
            else:
                said = Case.Status(target).label.lower()
                self.message_user(request, f"{case.id} is now {said}.", messages.SUCCESS)
                if target == Case.Status.PUBLISHED:
                    for found in duplicates.duplicates_of_case(case.id):
                        self.message_user(request, found.warning(case.id), messages.WARNING)

    @admin.action(description="Submit for review")
    def submit_for_review(self, request: HttpRequest, queryset: Any) -> None:
        self._transition(request, queryset, Case.Status.IN_REVIEW)

    @admin.action(description="Send back to draft")
    def send_back_to_draft(self, request: HttpRequest, queryset: Any) -> None:
        self._transition(request, queryset, Case.Status.DRAFT)

    @admin.action(description="Publish (reviewers)")
    def publish(self, request: HttpRequest, queryset: Any) -> None:
        self._transition(request, queryset, Case.Status.PUBLISHED)
