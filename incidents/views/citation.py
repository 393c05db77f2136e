"""A BibTeX entry for citing one case page."""

from __future__ import annotations

from incidents.models import Case

_BIBTEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "%": r"\%",
    "&": r"\&",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def bibtex_escape(text: str) -> str:
    """Escape BibTeX/LaTeX special characters so any title survives a LaTeX build."""
    return "".join(_BIBTEX_ESCAPES.get(ch, ch) for ch in text)


def bibtex(case: Case, url: str) -> str:
    """A `@misc` entry for `case`, keyed `incidentlib-<id>`, dated by its publication date.

    `url` is the absolute URL of the case page. Example:
    `@misc{incidentlib-IL-0428, title = {{IL-0428: ...}}, author = {{incidentlib}}, ...}`.
    """
    fields = [
        ("title", "{" + bibtex_escape(f"{case.id}: {case.title}") + "}"),
        ("author", "{incidentlib}"),
        ("howpublished", bibtex_escape(f"incidentlib case {case.id}")),
        ("organization", bibtex_escape(case.organization)),
        ("year", str(case.published.year)),
        ("month", MONTHS[case.published.month - 1]),
        ("url", url),
        ("note", "Written from public sources linked on the case page"),
    ]
    body = ",\n".join(
        f"  {name} = {value}" if name == "month" else f"  {name} = {{{value}}}" for name, value in fields
    )
    return f"@misc{{incidentlib-{case.id},\n{body}\n}}"
