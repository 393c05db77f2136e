"""The admin's forms: a save with the editor's reason (`ReasonForm`), the case form with what
it edits outside rows (`CaseAdminForm`), the workflow forms (retract, merge), the scale table
and term forms.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from ..admin_fields import ErrorCodesField, JsonListField, ReasonField, keep_order, problem_field
from ..document_model import case_model
from ..documents import case_document
from ..line_endings import MultilineField
from ..models import Case, CaseTerm, Facet, ScaleTable, Term
from ..proposals.models import Proposal
from ..selectors.lookup import KeptCaseProblem, case_to_keep
from ..vocabulary import term_problems
from .common import ADMIN_EDIT, JSON_FIELDS, LIST_FIELDS, LinesField, NullBlanksForm, https_urls
from .inlines import rows_heading


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
    """A case's own fields, plus what the document holds outside its rows and columns
    (`affected`, `references`, the stated error codes: `edited_document`) and, for
    reviewers, the correction proposal the save accepts."""

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
    is about, unless that field had an error of its own already (then its value was not put
    in). Every problem of a field is added, not its first alone: an `affected` entry naming
    an unknown component and giving both `fixed` and `last_affected` was refused for the
    component, and for the bounds only on the next save. Writes nothing."""
    from .. import services

    case = Case.objects.with_document().get(pk=form.instance.pk)
    refused = set(form.errors)
    valid = [name for name in form.cleaned_data if name not in refused]
    forms.models.construct_instance(form, case, fields=valid)
    document = form.edited_document(dict(case_document(case)))
    for problem in services.validate_document(document, where=f"case {case.pk}"):
        field = problem_field(problem.path, form.fields)
        if field is not None and field not in refused:
            form.add_error(field, f"{problem.path.removeprefix('$.')}: {problem.message}")


class RetractForm(forms.Form):
    """Retracting a case: the reason, shown on its page."""

    reason = MultilineField(widget=forms.Textarea, max_length=2000, help_text="Shown on the case page.")


class MergeForm(forms.Form):
    """Merging a case into another: the id that stays, in any spelling the API takes
    (`il-0431`, `IL0431`: `lookup.case_to_keep`, which names the closest ids of an unknown
    one), and an optional reason."""

    kept = forms.CharField(label="Keep case", max_length=12, help_text="The id that stays, e.g. IL-0428.")
    reason = forms.CharField(required=False, max_length=2000)

    def clean_kept(self) -> str:
        try:
            return case_to_keep(self.cleaned_data["kept"])
        except KeptCaseProblem as problem:
            raise forms.ValidationError(str(problem)) from None


class ScaleTableAdminForm(ReasonForm):
    """A scale table's position and caption, with the editor's reason for the change."""

    class Meta:
        model = ScaleTable
        fields = ("position", "caption")


class TermAdminForm(forms.ModelForm):
    """A vocabulary term, synonyms and patterns one a line, checked as a vocabulary file's
    terms are (`vocabulary.term_problems`)."""

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
