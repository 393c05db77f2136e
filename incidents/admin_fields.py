"""Form fields of the case admin for the parts of a case document that are not plain
columns: `affected` and `references` (lists of objects, edited as JSON), the error codes a
case states (a vocabulary facet, chosen from its terms), and the editor's reason for a
change (kept with the change's history row, not in the case).

Each field only collects what the editor typed; the admin puts it into the case document,
and `services.save_case_document` checks and normalises it as an import does (see
`admin.SavesThroughService`): a problem it finds comes back as an error on the field its
JSON path names (`problem_field`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

from django import forms
from django.contrib.admin.widgets import FilteredSelectMultiple
from django.core.exceptions import ValidationError
from django.utils.html import format_html
from django.utils.safestring import SafeString

from .codes import natural_key
from .line_endings import MultilineField
from .models import Facet, Term
from .strict_json import MAX_DEPTH, NESTED_TOO_DEEPLY, NumberTooLong, nesting_depth, parse_json


class JsonListField(forms.JSONField):
    """A JSON array edited as text, shown indented (empty text: an empty list).

    Read with import's strict JSON reader (`strict_json.parse_json`), at most `MAX_DEPTH`
    levels deep; what the array holds is left to the import's validation, which names the
    item and key that are wrong."""

    widget = forms.Textarea(attrs={"rows": 8, "cols": 80, "spellcheck": "false"})

    def to_python(self, value: Any) -> Any:
        if isinstance(value, list) or value is None:
            return value or []
        text = str(value).strip()
        if not text:
            return []
        try:
            value = parse_json(text)
        except NumberTooLong as error:
            raise ValidationError(f"not valid JSON: {error}", code="invalid") from None
        except json.JSONDecodeError as error:
            raise ValidationError(
                f"not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})", code="invalid"
            ) from None
        except ValueError as error:
            raise ValidationError(f"not valid JSON: {error}", code="invalid") from None
        if nesting_depth(value, MAX_DEPTH) > MAX_DEPTH:
            raise ValidationError(
                f"{NESTED_TOO_DEEPLY} (a case file's nest at most 3)",
                code="invalid",
            )
        return value

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, forms.fields.InvalidJSONInput):
            return value
        if value in (None, []):
            return ""
        return json.dumps(value, indent=2, ensure_ascii=False)

    def bound_data(self, data: Any, initial: Any) -> Any:
        # Shown again as typed when the form comes back with an error.
        return forms.fields.InvalidJSONInput(data) if isinstance(data, str) else data

    def has_changed(self, initial: Any, data: Any) -> bool:
        try:
            return self.to_python(data) != (initial or [])
        except ValidationError:
            return True


def error_code_choices() -> list[tuple[str, str]]:
    """(name, "name (vendor)") of every error-code term, in the vocabulary's order (vendor,
    then name, numbers read as numbers: `codes.CodeVocabulary`). One query."""
    terms = Term.objects.of(Facet.ERROR_CODE).values_list("name", "vendor")
    ordered = sorted(terms, key=lambda t: (natural_key(t[1] or ""), natural_key(t[0])))
    return [(name, f"{name} ({vendor})" if vendor else name) for name, vendor in ordered]


class ChooserWidget(FilteredSelectMultiple):
    """The admin's two-list chooser in a `<div>` of its own. The admin's script puts the
    lists first in the select's parent (`SelectFilter2.js`: `prepend`); for a field that is
    no relation that parent was the row's own, so the label followed the lists, on their
    right. Wrapped, the label stays before the control, as every other field's does (a
    relation's chooser is wrapped by the admin's `RelatedFieldWidgetWrapper` alike)."""

    def render(self, name: str, value: Any, attrs: Any = None, renderer: Any = None) -> SafeString:
        return format_html('<div class="chooser">{}</div>', super().render(name, value, attrs, renderer))


class ErrorCodesField(forms.MultipleChoiceField):
    """Error codes chosen from the vocabulary's terms, by name.

    Whether a value names a code is the import's check (`validation._code_problems`: any
    spelling, with the nearest names when none matches), so a script posting a synonym is
    answered as an import would answer it. `keep_order` gives the codes in the case's
    stated order, new ones after them: a browser sends a multiple choice in the order of
    its options, which is not the order a case states its codes in."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("widget", ChooserWidget("error codes", is_stacked=False))
        super().__init__(choices=error_code_choices, **kwargs)

    def valid_value(self, value: str) -> bool:
        return True  # the import's validation decides (see the class docstring)


def keep_order(chosen: list[str], before: Collection[str]) -> list[str]:
    """`chosen` with the codes of `before` first, in their order, then the others as given."""
    kept = [code for code in before if code in chosen]
    return kept + [code for code in dict.fromkeys(chosen) if code not in kept]


class ReasonField(MultilineField):
    """Why the editor made a change: stored with the change's history row. Typing one is no
    change of the case, so a form whose only new value is a reason has no changed field
    (the admin's log says "No fields changed" and the history records nothing)."""

    widget = forms.Textarea(attrs={"rows": 2, "cols": 80})

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("max_length", 2000)
        kwargs.setdefault("label", "Reason for this change")
        kwargs.setdefault(
            "help_text",
            "Optional. Shown with this change on the case's public history page and in its API "
            "history (without one the change reads \u201cadmin edit\u201d).",
        )
        super().__init__(**kwargs)

    def has_changed(self, initial: Any, data: Any) -> bool:
        return False


# A document path's field name: `affected[0].component` -> `affected`,
# `facts.time_to_detect` -> `facts.time_to_detect`.
_FIELD_PATH = re.compile(r"^[^.\[]+(?:\.[^.\[]+)?")


def problem_field(path: str, fields: Collection[str]) -> str | None:
    """The form field an import problem at the JSON path `path` (`$.affected[0].component`,
    `$.symptoms.error_codes[1]`, `$.facts.time_to_detect`) is about, among `fields`: the
    document field's column name (`symptoms_description`) or its own name
    (`time_to_detect`, `error_codes`); None when no field of the form holds it."""
    found = _FIELD_PATH.match(path.removeprefix("$."))
    if found is None:
        return None
    parent, _, name = found.group(0).rpartition(".")
    for candidate in (f"{parent}_{name}" if parent else name, name):
        if candidate in fields:
            return candidate
    return None
