"""The proposal form (the HTML page and the API read the same one): sizes bounded, no
HTML, public http(s) source URLs, and a honeypot field that people never fill in."""

from __future__ import annotations

import calendar
import datetime
import re
from typing import Any

import nh3
from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.utils import timezone

from incidents.line_endings import MultilineField
from incidents.models import Case, Facet, Term
from incidents.selectors.lookup import find_published_case

from .models import Proposal
from .organizations import organization_term

MAX_URLS = 10
CASE_ID_CHARS = 12  # of the form's case id: `IL-000428` with room to spare
MAX_TEXT = 5000
HONEYPOT = "website"


def no_html(value: str) -> None:
    # JSON may carry a lone surrogate (`"\ud800"`): not a character, and the HTML check
    # below could not even encode it.
    surrogate = next((c for c in value if "\ud800" <= c <= "\udfff"), None)
    if surrogate is not None:
        raise ValidationError(
            f"Contains a lone surrogate (U+{ord(surrogate):04X}), which is not a character."
        )
    if value and nh3.is_html(value):
        raise ValidationError("HTML is not accepted: write plain text (Markdown is fine).")


ISO_DATE = re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})")
SHOWN_DATE_CHARS = 40  # of a value quoted back in the error


def date_problem(text: str) -> str:
    """Why `text` is no `YYYY-MM-DD` date, in words: a day the month does not have
    (`2025-02-30 is not a date: February 2025 has 28 days`), a month or day 0 or a
    month past 12, or (not that form at all) the form to write."""
    shown = text if len(text) <= SHOWN_DATE_CHARS else text[: SHOWN_DATE_CHARS - 1] + "…"
    match = ISO_DATE.fullmatch(text)
    if match is not None:
        year, month, day = (int(part) for part in match.groups())
        if year < datetime.MINYEAR:
            return f"{shown} is not a date: there is no year 0."
        if not 1 <= month <= 12:
            return f"{shown} is not a date: there is no month {month} (months are 01 to 12)."
        if day < 1:
            return f"{shown} is not a date: there is no day 0."
        days = calendar.monthrange(year, month)[1]
        if day > days:
            return f"{shown} is not a date: {calendar.month_name[month]} {year} has {days} days."
    return f"Write the date as YYYY-MM-DD, e.g. 2025-02-28 (not “{shown}”)."


class SourceDateField(forms.DateField):
    """A date written `YYYY-MM-DD` (the help text's and the API schema's form; `03/04/2025`
    would be read as March 4 by Django's default formats). A value that is no date gets
    `date_problem`'s reason, not "Enter a valid date."."""

    input_formats = ["%Y-%m-%d"]

    def to_python(self, value: Any) -> datetime.date | None:
        try:
            return super().to_python(value)
        except ValidationError:
            raise ValidationError(date_problem(str(value).strip()), code="invalid") from None


class TermChoice(forms.ModelChoiceField):
    def label_from_instance(self, obj: Term) -> str:
        return obj.name


def initial_from_link(query: Any) -> dict[str, str]:
    """What a link prefills: `?case_id=IL-0428` (each case page's "Propose a correction")
    starts a correction of that case; the id is checked on sending, as typed ones are. A
    value no id could be (longer than the field, or holding control characters) is left
    out rather than shown back."""
    case_id = str(query.get("case_id", "")).strip()
    if not case_id or len(case_id) > CASE_ID_CHARS or not case_id.isprintable():
        return {}
    return {"kind": Proposal.Kind.CORRECTION, "case_id": case_id}


class ProposalForm(forms.Form):
    """A new case (title, text, organization, date, topic and sources needed) or a correction
    of an existing one (the case and what is wrong needed; title and sources optional)."""

    kind = forms.ChoiceField(
        choices=Proposal.Kind.choices, widget=forms.RadioSelect, initial=Proposal.Kind.NEW
    )
    # Each help text starts with the kind it is for: one form takes both, and a corrector
    # could not tell which fields were theirs (or what "Topic" of a correction meant).
    case_id = forms.CharField(
        label="Case to correct",
        max_length=CASE_ID_CHARS,
        required=False,
        help_text="Correction only: the id at the top of the case page, e.g. IL-0428. Empty for a new case.",
    )
    title = forms.CharField(
        max_length=300,
        min_length=10,
        required=False,
        validators=[no_html],
        help_text=(
            "New case (needed): what broke, at what scale, with what effect. Correction "
            "(optional): what is wrong, in one line, e.g. “Node count: 64, not 32”."
        ),
    )
    organization = forms.CharField(
        max_length=200,
        required=False,
        validators=[no_html],
        help_text="New case only: the organization whose incident it was, as the vocabulary names it "
        "(/vocab/#organization) or by any other name (a reviewer adds an organization the "
        "vocabulary lacks), or “Community report” for a user's report.",
    )
    published = SourceDateField(
        required=False,
        label="Date of the source",
        help_text="New case only: the day the source was published, YYYY-MM-DD.",
        widget=forms.DateInput(attrs={"type": "date"}),
    )
    text = MultilineField(
        label="What happened (new case) or what is wrong (correction)",
        max_length=MAX_TEXT,
        validators=[no_html],
        widget=forms.Textarea(attrs={"rows": 8}),
        help_text=(
            "New case: the incident in a few sentences (symptoms, cause, fix). Correction: the part "
            "of the case that is wrong (its title, summary, symptoms, root cause, remediation, a "
            "figure, a date or a source), what it says now, what it should say and where you read "
            "that. Plain text or Markdown, no HTML."
        ),
    )
    topic = TermChoice(
        queryset=Term.objects.of(Facet.TOPIC).order_by("name"),
        required=False,
        help_text="New case only: the kind of failure (/topics/).",
    )
    root_cause = TermChoice(
        queryset=Term.objects.of(Facet.ROOT_CAUSE).order_by("name"),
        required=False,
        label="Root cause, if known",
        help_text="New case only: leave it empty when the source does not say.",
    )
    source_urls = forms.CharField(
        label="Source URLs",
        max_length=MAX_URLS * 2001,
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=(
            f"Public accounts (postmortems, issues, papers), one per line, at most {MAX_URLS}. New "
            "case: at least one. Correction: only one the case does not cite that your correction "
            "rests on."
        ),
    )
    contact = forms.EmailField(
        required=False,
        max_length=200,
        help_text="Optional: an email address, used only to ask you about this proposal; never shown.",
    )
    # Hidden from people by CSS and aria-hidden; bots filling every field give themselves away.
    website = forms.CharField(required=False, label="Leave this empty")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The closest accepted values of a refused field, by field name (the API's `suggestions`).
        self.suggestions: dict[str, list[str]] = {}

    def clean_published(self) -> datetime.date | None:
        """A source is dated today at the latest (a day of slack for the proposer's time zone)."""
        published = self.cleaned_data.get("published")
        latest = timezone.now().date() + datetime.timedelta(days=1)
        if published is not None and published > latest:
            raise ValidationError(
                f"{published.isoformat()} is in the future: give the date the source was published."
            )
        return published

    def clean_source_urls(self) -> list[str]:
        lines = [line.strip() for line in self.cleaned_data["source_urls"].splitlines() if line.strip()]
        if len(lines) > MAX_URLS:
            raise ValidationError(f"At most {MAX_URLS} URLs.")
        check = URLValidator(schemes=["http", "https"])
        for line in lines:
            if len(line) > 2000:
                raise ValidationError("A URL is longer than 2000 characters.")
            try:
                check(line)
            except ValidationError:
                raise ValidationError(f"Not an http(s) URL: {line[:100]}") from None
        return list(dict.fromkeys(lines))

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if cleaned.get(HONEYPOT):
            raise ValidationError("This proposal looks automated.", code="honeypot")
        if cleaned.get("kind") == Proposal.Kind.CORRECTION:
            # A correction needs only the case it corrects and what is wrong (`text`): its
            # title and sources are optional (`services.correction_title` names it when untitled).
            cleaned["case"] = self._case_to_correct((cleaned.get("case_id") or "").strip())
        elif cleaned.get("kind") == Proposal.Kind.NEW:
            if not cleaned.get("title") and "title" not in self.errors:
                self.add_error("title", "Needed for a new case.")
            if not cleaned.get("source_urls") and "source_urls" not in self.errors:
                self.add_error("source_urls", "Give at least one public source URL.")
            for name in ("organization", "published", "topic"):
                # A value given but refused already says why (`2025-02-30 is not a date`);
                # "needed" is for a value left out.
                if not cleaned.get(name) and name not in self.errors:
                    self.add_error(name, "Needed for a new case.")
            if cleaned.get("organization"):
                cleaned["organization_term"] = organization_term(cleaned["organization"])
        return cleaned

    def _case_to_correct(self, raw: str) -> Case | None:
        """The published case `raw` names, in any spelling the case pages read (`IL-0428`,
        `il0428`, `428`: `selectors.find_published_case`); else an error naming the
        closest published ids."""
        if not raw:
            self.add_error("case_id", "Name the published case to correct, e.g. IL-0428.")
            return None
        lookup = find_published_case(raw)
        if lookup.case is None:
            self.suggestions["case_id"] = lookup.closest
            hint = (
                f"Did you mean {', '.join(lookup.closest)}?"
                if lookup.closest
                else "Case ids look like IL-0428."
            )
            self.add_error("case_id", f"No published case {raw}. {hint}")
        return lookup.case
