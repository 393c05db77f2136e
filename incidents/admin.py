"""The editors' admin: cases with their child rows inline, vocabulary terms, proposals.

Forms only collect what the editor typed. A case is saved through
`services.save_case_document` like an import: the admin writes the rows inside a savepoint
only to build the case document from them, rolls that back, puts in what the form edits
outside rows (`affected`, `references`, the stated error codes: `admin_fields`) and hands
the document to the service, which validates it with import's validation (problems come
back as errors on the fields they are about), writes it, updates the search index and
neighbours and records history, with the editor's reason for the change when given. Status
changes go through the workflow actions (`services.change_status` / `merge_cases`), never
the form.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models, transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.text import capfirst
from simple_history.admin import SimpleHistoryAdmin

from . import selectors, workflow
from .admin_fields import ErrorCodesField, JsonListField, ReasonField, keep_order, problem_field
from .document_model import case_model
from .documents import case_document
from .history import revisions_by_row
from .line_endings import MultilineField
from .models import Case, CaseRelation, CaseTerm, Facet, ScaleColumn, ScaleRow, ScaleTable, Source, Term
from .problems import CaseImportError
from .proposals.models import Proposal
from .proposals.reading import case_html, lookalike_links, source_links
from .vocabulary import term_problems

# The write services (`services`, `duplicates`, `proposals.services`) are imported in the
# methods that save: Django imports this module at start-up in every process, and they
# bring the search modules (numpy, scipy) with them, half a second of every `manage.py`
# command before it did anything.

LIST_FIELDS = ("remediation", "action_items", "lessons", "checks")
# Document fields the case form edits as JSON: lists of objects kept in one column each.
JSON_FIELDS = ("affected", "references")
# What a history row says of an admin save when the editor gives no reason.
ADMIN_EDIT = "admin edit"
# Textareas read with `\\n` line breaks (a browser sends CRLF): a form saved untouched
# changes no field. Case documents are normalised again on the way in (`services.Preparer`).
FORM_FIELDS: Mapping[type[models.Field[Any, Any]], Mapping[str, Any]] = {
    models.TextField: {"form_class": MultilineField},
    # A URL typed without its scheme gets https://, as Django 6 will do (its 5.x forms add
    # http:// and warn on every form built).
    models.URLField: {"assume_scheme": "https"},
}


def https_urls(db_field: models.Field[Any, Any], **kwargs: Any) -> forms.Field | None:
    """A model form's `Meta.formfield_callback`: its URL fields take `FORM_FIELDS`' https://
    for a URL typed without a scheme. The admin applies `formfield_overrides` only to the
    form it derives from a form of ours; Django builds the form's own fields first (at
    import, and again for each admin page), and 5.x warns for each URLField built without
    `assume_scheme`."""
    if isinstance(db_field, models.URLField):
        kwargs = {**FORM_FIELDS[models.URLField], **kwargs}
    return db_field.formfield(**kwargs)


class LinesField(forms.CharField):
    """An ordered list of strings edited as one item per line (blank lines dropped)."""

    widget = forms.Textarea(attrs={"rows": 4, "cols": 80})

    def __init__(self, *, encoder: Any = None, decoder: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)  # a JSONField's form field options do not apply

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, list):
            return "\n".join(str(item) for item in value)
        return value

    def to_python(self, value: Any) -> list[str]:  # type: ignore[override]
        if isinstance(value, list):
            return value
        text = super().to_python(value) or ""
        return [line.strip() for line in text.splitlines() if line.strip()]


class NullBlanksForm(forms.ModelForm):
    """Empty text in a nullable field means "not known": NULL, as the case schema has it."""

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        for field in self._meta.model._meta.fields:
            if field.null and cleaned.get(field.name) == "":
                cleaned[field.name] = None
        return cleaned


class ReasonForm(forms.ModelForm):
    """A form whose save is a change of a case: it takes the editor's reason for it."""

    change_reason = ReasonField()
    # Problems (JSON path, message) the import validation found in the document built from
    # this form; set on the class made for a second, non-saving pass (see
    # SavesThroughService.changeform_view). Each is an error of the field it is about.
    problems: tuple[tuple[str, str], ...] = ()

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        for where, message in self.problems:
            field = problem_field(where, self.fields)
            said = f"{where.removeprefix('$.')}: {message}"
            heading = rows_heading(where) if field is None else None
            if heading is not None:
                # Said above the form, far from the rows it is about: name them.
                said += f" (edit them in the rows under \u201c{heading}\u201d)"
            self.add_error(field, said)
        return cleaned

    def reason(self) -> str:
        """What the history row of this save says: the editor's reason, else "admin edit"."""
        return (self.cleaned_data.get("change_reason") or "").strip() or ADMIN_EDIT

    def edited_document(self, document: dict[str, Any]) -> dict[str, Any]:
        """The case document to save: `document` (built from the rows the form wrote) with
        what the form edits outside rows. Nothing here."""
        return document


class CaseAdminForm(NullBlanksForm, ReasonForm):
    affected = JsonListField(
        required=False,
        label="Affected versions",
        help_text=(
            "JSON: a list of ranges, as in a case file: "
            '[{"component": "NCCL", "versions": ["2.18.1"], "introduced": "2.18.1", '
            '"fixed": "2.18.3"}]. A component is a vocabulary term (name, slug or synonym); give '
            "`fixed` or `last_affected`, not both. Empty: none."
        ),
    )
    references = JsonListField(
        required=False,
        label="Upstream references",
        help_text=(
            "JSON: a list of records, as in a case file: "
            '[{"kind": "issue", "url": "https://github.com/NVIDIA/nccl/issues/1116", '
            '"state": "fixed", "fixed_in": "2.19.3"}]. kind: issue, pull_request, commit, '
            "release, advisory, paper, postmortem or other; `id` is filled from a GitHub or arXiv "
            "URL when left out. Empty: none."
        ),
    )
    error_codes = ErrorCodesField(
        required=False,
        label="Error codes",
        help_text="Error codes the case states (vocabulary terms), in the order stated; new ones go last.",
    )
    accepts_correction = forms.ModelChoiceField(
        queryset=Proposal.objects.none(),
        required=False,
        label="Accepts correction",
        help_text=(
            "The correction proposal this save makes (reviewers): its history entry names the "
            "proposal beside the fields changed, and the proposal is accepted. A save that "
            "changes nothing accepts nothing."
        ),
    )
    # Set by `CaseAdmin.get_form`: whether this editor may accept corrections (reviewers).
    may_accept_corrections = False

    class Meta:
        model = Case
        fields = (
            *("id", "title", "organization", "published", "occurred", "summary"),
            *("severity", "scope", "users_affected", "region", "time_to_detect", "time_to_resolve"),
            *("cluster", "accelerator", "accelerator_count", "node_count", "symptoms_description"),
            *("root_cause_category", "root_cause_description", "root_cause_trigger", "detection"),
            *LIST_FIELDS,
        )
        field_classes = {name: LinesField for name in LIST_FIELDS}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in LIST_FIELDS:
            if name in self.fields:
                self.fields[name].required = False
                self.fields[name].help_text = "One item per line, in order (Markdown)."
        if "id" in self.fields:
            self.fields["id"].required = False
            self.fields["id"].help_text = "Leave empty for the next free id."
        case = self.instance
        if case.pk is None:
            return
        if "accepts_correction" in self.fields and self.may_accept_corrections:
            field = self.fields["accepts_correction"]
            field.queryset = open_corrections(case.pk)  # type: ignore[attr-defined]
            field.label_from_instance = lambda p: f"{p.title} (proposal {p.pk}, {p.status})"  # type: ignore[attr-defined]
        for name in JSON_FIELDS:
            # As the document has them: every key, in schema order (jsonb reorders keys).
            self.initial.setdefault(name, case_model().binding(name).read(case))
        codes = list(
            CaseTerm.objects.filter(case=case, term__facet=Facet.ERROR_CODE)
            .order_by("position")
            .values_list("term__name", "derived")
        )
        self.initial.setdefault("error_codes", [name for name, derived in codes if not derived])
        derived = [name for name, derived in codes if derived]
        if derived and "error_codes" in self.fields:
            self.fields["error_codes"].help_text += (
                " The codes the case's text shows are added at every save, as at import, and "
                f"need not be chosen; now: {', '.join(derived)}."
            )

    def clean_error_codes(self) -> list[str]:
        return keep_order(self.cleaned_data.get("error_codes") or [], self.initial.get("error_codes") or [])

    def edited_document(self, document: dict[str, Any]) -> dict[str, Any]:
        """`document` with `affected`, `references` and `symptoms.error_codes` as typed: the
        import's validation and normalisation (`services.Preparer`) see them as a file's."""
        edited = dict(document)
        for name in JSON_FIELDS:
            if name in self.fields and name in self.cleaned_data:
                edited[name] = self.cleaned_data[name]
        if "error_codes" in self.fields and "error_codes" in self.cleaned_data:
            edited["symptoms"] = {**edited["symptoms"], "error_codes": self.cleaned_data["error_codes"]}
        return edited


def open_corrections(case_id: str) -> Any:
    """The correction proposals of a case still waiting for a decision, oldest first."""
    return Proposal.objects.filter(
        kind=Proposal.Kind.CORRECTION,
        case_id=case_id,
        status__in=(Proposal.Status.RECEIVED, Proposal.Status.IN_REVIEW),
    ).order_by("created", "pk")


def add_import_problems(form: CaseAdminForm) -> None:
    """Add to a refused case form the problems import's validation finds in the stored case
    with the form's valid fields put in (rows as stored): each as an error of the field it
    is about, unless that field has an error already. Writes nothing."""
    from . import services

    case = Case.objects.with_document().get(pk=form.instance.pk)
    valid = [name for name in form.cleaned_data if name not in form.errors]
    forms.models.construct_instance(form, case, fields=valid)
    document = form.edited_document(dict(case_document(case)))
    for problem in services.validate_document(document, where=f"case {case.pk}"):
        field = problem_field(problem.path, form.fields)
        if field is not None and field not in form.errors:
            form.add_error(field, f"{problem.path.removeprefix('$.')}: {problem.message}")


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
    model = ScaleTable
    fields = ("position", "caption")
    ordering = ("position",)
    extra = 0
    show_change_link = True  # columns and rows are edited on the table's own page


class CaseRelationInline(EditorInline):
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


class RetractForm(forms.Form):
    reason = MultilineField(widget=forms.Textarea, max_length=2000, help_text="Shown on the case page.")


class MergeForm(forms.Form):
    kept = forms.CharField(label="Keep case", max_length=12, help_text="The id that stays, e.g. IL-0428.")
    reason = forms.CharField(required=False, max_length=2000)


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
        from . import duplicates, services
        from .proposals import services as proposal_services

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


@admin.register(Case)
class CaseAdmin(SavesThroughService, SimpleHistoryAdmin):
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

    def save_model(self, request: HttpRequest, obj: Case, form: Any, change: bool) -> None:
        from . import services

        if not change:
            obj.id = obj.id or services.next_case_id()
            obj.status = Case.Status.DRAFT
        super().save_model(request, obj, form, change)

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
        from . import services

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
        from . import services

        return self._workflow_form_view(
            request,
            object_id,
            MergeForm,
            "Merge",
            lambda case, data: services.merge_cases(
                case.id, data["kept"].strip(), user=request.user, reason=data["reason"]
            ),
        )

    def _transition(self, request: HttpRequest, queryset: Any, target: str) -> None:
        from . import services

        for case in queryset:
            try:
                services.change_status(case.id, target, user=request.user)
            except (workflow.WorkflowError, workflow.NotAllowed) as error:
                self.message_user(request, f"{case.id}: {error}", messages.ERROR)
            else:
                said = Case.Status(target).label.lower()
                self.message_user(request, f"{case.id} is now {said}.", messages.SUCCESS)

    @admin.action(description="Submit for review")
    def submit_for_review(self, request: HttpRequest, queryset: Any) -> None:
        self._transition(request, queryset, Case.Status.IN_REVIEW)

    @admin.action(description="Send back to draft")
    def send_back_to_draft(self, request: HttpRequest, queryset: Any) -> None:
        self._transition(request, queryset, Case.Status.DRAFT)

    @admin.action(description="Publish (reviewers)")
    def publish(self, request: HttpRequest, queryset: Any) -> None:
        self._transition(request, queryset, Case.Status.PUBLISHED)


class ScaleColumnInline(EditorInline):
    model = ScaleColumn
    fields = ("position", "key", "label", "unit")
    ordering = ("position",)
    extra = 0


class ScaleRowInline(EditorInline):
    model = ScaleRow
    fields = ("position", "values", "outcome", "note")
    ordering = ("position",)
    extra = 0


class ScaleTableAdminForm(ReasonForm):
    class Meta:
        model = ScaleTable
        fields = ("position", "caption")


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


class TermAdminForm(forms.ModelForm):
    class Meta:
        model = Term
        fields = (
            "facet",
            "name",
            "slug",
            "description",
            "synonyms",
            "patterns",
            "vendor",
            "family",
            "source_url",
        )
        field_classes = {"synonyms": LinesField, "patterns": LinesField}
        formfield_callback = https_urls

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["synonyms"].required = False
        self.fields["patterns"].required = False
        self.fields[
            "patterns"
        ].help_text = "Regular expressions (RE2) that spot the term in logs, one per line."

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        raw = {key: cleaned.get(key) for key in ("name", "slug", "description", "synonyms", "patterns")}
        problems = term_problems({k: v for k, v in raw.items() if v not in (None, "")}, "term")
        if problems:
            raise ValidationError([f"{p.path.removeprefix('$.')}: {p.message}" for p in problems])
        return cleaned


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
        from . import services

        services.save_term(obj, user=request.user)


@admin.register(Proposal)
class ProposalAdmin(admin.ModelAdmin):
    """The review queue of public proposals. Accepting (reviewers) publishes a new case's
    draft; a correction is accepted on the case's own page, by the save that makes it
    (`CaseAdminForm.accepts_correction`); declining needs the reason written on the proposal
    first."""

    formfield_overrides = FORM_FIELDS
    list_display = ("title", "kind", "status", "case", "created")
    list_filter = ("status", "kind")
    search_fields = ("title", "text", "case__id", "source_urls")
    ordering = ("-created",)
    readonly_fields = (
        "kind",
        "status",
        "case",
        "title",
        "text",
        "sources",
        "contact",
        "looked_like",
        "created",
        "proposed_case",
        "case_now",
    )
    actions = ("start_review", "accept", "decline")

    class Media:
        css = {"all": ("css/admin-proposal.css",)}

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        # A new case's proposal is read as the draft it made; a correction beside the case
        # as it stands. Either as a case, not as the JSON of its document.
        shown = "case_now" if obj is not None and obj.kind == Proposal.Kind.CORRECTION else "proposed_case"
        kept = [name for name in self.readonly_fields if name not in ("proposed_case", "case_now")]
        return (*kept, shown, "decline_reason")

    @admin.display(description="Proposed case (its draft)")
    def proposed_case(self, obj: Proposal) -> str:
        return case_html(obj.case_id)

    @admin.display(description="The case now")
    def case_now(self, obj: Proposal) -> str:
        return case_html(obj.case_id)

    @admin.display(description="Source URLs")
    def sources(self, obj: Proposal) -> str:
        return source_links(obj.source_urls)

    @admin.display(description="Looked like, when sent")
    def looked_like(self, obj: Proposal) -> str:
        return lookalike_links(obj.lookalikes)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return workflow.is_editor(request.user)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return workflow.is_editor(request.user)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return workflow.is_editor(request.user)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # proposals come from the public form and API

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_actions(self, request: HttpRequest) -> Any:
        # Accepting publishes: a reviewer's step, not offered to editors.
        actions = super().get_actions(request)
        if not workflow.is_reviewer(request.user):
            actions.pop("accept", None)
        return actions

    def _review(self, request: HttpRequest, queryset: Any, step: Any, done: Any, then: Any = None) -> None:
        """Apply `step` to each selected proposal; `done`: the success message's end, or a
        function of the proposal giving it; `then`: called with each proposal after it."""
        from .proposals import services as proposal_services

        for proposal in queryset:
            try:
                step(proposal)
            except (proposal_services.ReviewError, workflow.WorkflowError, workflow.NotAllowed) as error:
                self.message_user(request, f"{proposal.title}: {error}", messages.ERROR)
            else:
                said = done(proposal) if callable(done) else done
                self.message_user(request, f"{proposal.title}: {said}.", messages.SUCCESS)
                if then is not None:
                    then(proposal)

    @admin.action(description="Start reviewing")
    def start_review(self, request: HttpRequest, queryset: Any) -> None:
        from .proposals import services as proposal_services

        self._review(
            request, queryset, lambda p: proposal_services.start_review(p, user=request.user), "in review"
        )

    @admin.action(
        description=(
            "Accept (reviewers): publish a new case (a correction is accepted by saving it in its case)"
        )
    )
    def accept(self, request: HttpRequest, queryset: Any) -> None:
        from .proposals import services as proposal_services

        def warn_of_lookalikes(proposal: Proposal) -> None:
            # As a save of the case in the admin warns: said, never a refusal.
            for duplicate in proposal_services.lookalikes(proposal):
                self.message_user(
                    request,
                    f"Possible duplicate: {proposal.case_id} looks like {duplicate}",
                    messages.WARNING,
                )

        self._review(
            request,
            queryset,
            lambda p: proposal_services.accept(p, user=request.user),
            accepted_message,
            then=warn_of_lookalikes,
        )

    @admin.action(description="Decline (write the reason on the proposal first)")
    def decline(self, request: HttpRequest, queryset: Any) -> None:
        from .proposals import services as proposal_services

        self._review(
            request,
            queryset,
            lambda p: proposal_services.decline(p, user=request.user, reason=p.decline_reason),
            "declined",
        )


def accepted_message(proposal: Proposal) -> str:
    """What accepting a new case's proposal did."""
    return f"accepted; {proposal.case_id} is published"
