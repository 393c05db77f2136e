"""Saving a case's rows through `services.save_case_document` (`SavesThroughService`), as
an import does, with import's problems shown on the same form again.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.admin import helpers
from django.db import transaction
from django.http import HttpRequest, HttpResponse

from ..documents import case_document
from ..models import Case
from ..problems import CaseImportError
from .common import ADMIN_EDIT
from .forms import CaseAdminForm, ReasonForm, add_import_problems


class SavesThroughService:
    """Admin saving of a case's rows through `services.save_case_document`.

    The admin writes the rows inside a savepoint, the case document is built from them, the
    savepoint is rolled back, the form puts in what it edits outside rows
    (`ReasonForm.edited_document`) and the service validates and writes the document, its
    history row saying the editor's reason (`ReasonForm.reason`). When the import validation
    finds problems the whole save is rolled back and the same form is shown again with them
    (a second pass whose form carries the problems as errors).
    """

    def case_id_of(self, obj: Any) -> str:
        raise NotImplementedError

    def message_user(
        self,
        request: HttpRequest,
        message: Any,
        level: int | str = messages.INFO,
        extra_tags: str = "",
        fail_silently: bool = False,
    ) -> None:
        """The admin's messages, less its success message after a save that changed nothing
        (`save_related` said so instead)."""
        if level == messages.SUCCESS and getattr(request, "_case_unchanged", False):
            return
        super().message_user(request, message, level, extra_tags, fail_silently)  # type: ignore[misc]

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        form = super().get_form(request, obj, change, **kwargs)  # type: ignore[misc]
        problems = getattr(request, "_case_problems", None)
        if problems:
            base = form if issubclass(form, ReasonForm) else type("Form", (ReasonForm, form), {})
            return type(form.__name__, (base,), {"problems": tuple(problems)})
        return form

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: Any = None,
    ) -> HttpResponse:
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)  # type: ignore[misc]
        except CaseImportError as error:
            # Everything was rolled back; show the same form again with the problems.
            request._case_problems = [(p.path, p.message) for p in error.problems]  # type: ignore[attr-defined]
            return super().changeform_view(request, object_id, form_url, extra_context)  # type: ignore[misc]

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: Any = None,
    ) -> Any:
        form = context.get("adminform") and context["adminform"].form
        if (
            request.method == "POST"
            and isinstance(form, CaseAdminForm)
            and form.instance.pk
            and not form.problems
            and context.get("errors")
        ):
            # Refused before the import validation ran: check the fields that did validate
            # now, so the editor sees every problem of this save at once, not one group a save.
            formsets = [inline.formset for inline in context.get("inline_admin_formsets", [])]
            add_import_problems(form)
            context["errors"] = helpers.AdminErrorList(form, formsets)
        return super().render_change_form(request, context, add, change, form_url, obj)  # type: ignore[misc]

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        request._case_savepoint = transaction.savepoint()  # type: ignore[attr-defined]
        super().save_model(request, obj, form, change)  # type: ignore[misc]

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        from .. import duplicates, services
        from ..proposals import services as proposal_services

        super().save_related(request, form, formsets, change)  # type: ignore[misc]
        case = Case.objects.with_document().get(id=self.case_id_of(form.instance))
        document = form.edited_document(dict(case_document(case)))
        # The rows were written only to build the document: the service writes it for real.
        transaction.savepoint_rollback(request._case_savepoint)  # type: ignore[attr-defined]
        reason = form.reason()
        correction = form.cleaned_data.get("accepts_correction")
        if correction is not None:
            typed = "" if reason == ADMIN_EDIT else reason
            reason = proposal_services.correction_note(correction) + (f": {typed}" if typed else "")
        saved = services.save_case_document(
            document, user=request.user, reason=reason, where=f"case {case.id}"
        )
        if correction is not None and saved.changed:
            proposal_services.accept_correction(correction, user=request.user)
            self.message_user(
                request,
                f"{correction.title}: accepted; this change is its entry in the history of {case.id}.",
                messages.SUCCESS,
            )
        if not saved.changed:
            # Said instead of the admin's "was changed successfully", which would contradict it.
            request._case_unchanged = True  # type: ignore[attr-defined]
            if correction is not None:
                self.message_user(
                    request,
                    f"Nothing changed, so “{correction.title}” was not accepted: make its "
                    "correction in the case, then save with it chosen again.",
                    messages.WARNING,
                )
            elif reason != ADMIN_EDIT:
                self.message_user(
                    request,
                    "Nothing changed, so no history entry was recorded for your reason.",
                    messages.WARNING,
                )
            else:
                self.message_user(request, "Nothing changed.", messages.INFO)
        for duplicate in duplicates.find_duplicates(document):
            self.message_user(request, f"Possible duplicate: {duplicate}", messages.WARNING)
