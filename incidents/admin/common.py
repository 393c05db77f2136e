"""What the admin's forms and inlines share: the case form's list and JSON fields, the form
field overrides (`\n` line breaks, https:// assumed), one-item-a-line lists (`LinesField`) and
empty text as NULL (`NullBlanksForm`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.db import models

from ..line_endings import MultilineField

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
