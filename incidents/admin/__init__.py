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

The write services (`services`, `duplicates`, `proposals.services`) are imported in the
methods that save: Django imports this package at start-up in every process, and they
bring the search modules (numpy, scipy) with them, half a second of every `manage.py`
command before it did anything.

- `common`: what forms and inlines share (field overrides, `LinesField`, `NullBlanksForm`);
- `inlines`: the rows edited below a case's form and a scale table's, `rows_heading`;
- `forms`: `ReasonForm`, `CaseAdminForm`, the retract, merge, scale table and term forms;
- `saving`: `SavesThroughService`, saving a case's rows through the write service;
- `cases`: `CaseAdmin` (registered), with `StatusFilter`;
- `case_actions`: the case admin's workflow actions and its preview, retract and merge pages;
- `scale_tables`: `ScaleTableAdmin` (registered);
- `vocabulary`: `TermAdmin` (registered);
- `proposals`: `ProposalAdmin` (registered), the review queue.
"""

from .case_actions import CaseWorkflowActions
from .cases import CaseAdmin, StatusFilter
from .common import ADMIN_EDIT, FORM_FIELDS, JSON_FIELDS, LIST_FIELDS, LinesField, NullBlanksForm
from .forms import (
    CaseAdminForm,
    MergeForm,
    ReasonForm,
    RetractForm,
    ScaleTableAdminForm,
    TermAdminForm,
    add_import_problems,
    open_corrections,
)
from .inlines import (
    ROW_INLINES,
    CaseRelationInline,
    CaseTermInline,
    EditorInline,
    ScaleColumnInline,
    ScaleRowInline,
    ScaleTableInline,
    SourceInline,
    rows_heading,
)
from .proposals import ProposalAdmin, accepted_message
from .saving import SavesThroughService
from .scale_tables import ScaleTableAdmin
from .vocabulary import TermAdmin

__all__ = [
    "ADMIN_EDIT",
    "FORM_FIELDS",
    "JSON_FIELDS",
    "LIST_FIELDS",
    "ROW_INLINES",
    "CaseAdmin",
    "CaseAdminForm",
    "CaseRelationInline",
    "CaseTermInline",
    "CaseWorkflowActions",
    "EditorInline",
    "LinesField",
    "MergeForm",
    "NullBlanksForm",
    "ProposalAdmin",
    "ReasonForm",
    "RetractForm",
    "SavesThroughService",
    "ScaleColumnInline",
    "ScaleRowInline",
    "ScaleTableAdmin",
    "ScaleTableAdminForm",
    "ScaleTableInline",
    "SourceInline",
    "StatusFilter",
    "TermAdmin",
    "TermAdminForm",
    "accepted_message",
    "add_import_problems",
    "open_corrections",
    "rows_heading",
]
