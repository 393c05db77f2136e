from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import template
from django.urls import reverse
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import mark_safe

from incidents.case_facts import CaseFacts, case_facts, grouped
from incidents.history import status_label
from incidents.rendering import as_sentence, render_markdown, snippet_html, wrap_inline_code
from incidents.search.log_job_kind import a_job
from incidents.search.results import like_sentence

if TYPE_CHECKING:
    from incidents.search.results import Snippet

register = template.Library()


@register.filter(name="markdown")
def markdown_filter(text: str | None) -> str:
    """Sanitised HTML of a Markdown field (safe to output unescaped), inline code marked up
    to wrap at sensible points on narrow screens."""
    return mark_safe(wrap_inline_code(render_markdown(text)))  # noqa: S308 - nh3 has sanitised it


@register.inclusion_tag("incidents/_known.html")
def known(value: object) -> dict[str, object]:
    """Show a fact, or "not known" when it is null."""
    return {"value": value}


@register.simple_tag(name="case_facts")
def case_facts_tag(case) -> CaseFacts:
    """`{% case_facts case as facts %}`: known facts by section and the unknown ones' labels."""
    return case_facts(case)


HEADLINE_MIN = 8  # characters: a break before this would leave a stub headline
HEADLINE_MAX = 110  # characters: past this the headline is no shorter than the title
CLAUSE_BREAKS = (": ", "; ", ", ", " — ", " – ")
CLAUSE_WORDS = (" until ", " because ", " after ", " whenever ", " when ", " while ", " so ")


def _first_break(title: str, separators: tuple[str, ...]) -> int | None:
    """Earliest position of a separator within the headline bounds and outside quotes."""
    found = []
    for separator in separators:
        at = title.find(separator, HEADLINE_MIN)
        while at != -1 and at <= HEADLINE_MAX:
            if title.count('"', 0, at) % 2 == 0:
                found.append(at)
                break
            at = title.find(separator, at + 1)
    return min(found, default=None)


@register.filter
def headline(title: str) -> tuple[str, str]:
    """(short headline, rest) of a case title, for lists that show the headline in bold and
    the rest in normal weight. Splits at the first clause break (": ", "; ", ", ", a dash),
    else before a linking word ("until", "because", ...), within `HEADLINE_MIN`..`HEADLINE_MAX`
    characters; the rest keeps its separator, so headline + rest is the title."""
    at = _first_break(title, CLAUSE_BREAKS)
    if at is None:
        at = _first_break(title, CLAUSE_WORDS)
    if at is None:
        return title, ""
    return title[:at], title[at:]


@register.filter
def short_title(title: str) -> str:
    """A case title short enough for a browser tab or a bookmark: its headline, cut at the
    last space within `HEADLINE_MAX` characters with an ellipsis when even that is longer."""
    short = headline(title)[0]
    if len(short) <= HEADLINE_MAX:
        return short
    cut = short.rfind(" ", 0, HEADLINE_MAX)
    return short[: cut if cut > 0 else HEADLINE_MAX].rstrip(",;:") + "…"


# What a reader sees for the similarity level the search engine gives a neighbour (its
# thresholds live in incidents.search): a bare "28% similar" reads as a weak match. Each
# says it was computed: the weakest was "related", which beside "linked by an editor" under
# the heading "Related cases" read as an editor's link.
SIMILARITY_WORDS = {
    "strong": "very similar",
    "high": "very similar",
    "very similar": "very similar",
    "possible": "similar",
    "medium": "similar",
    "similar": "similar",
    "weak": "somewhat similar",
    "low": "somewhat similar",
    "related": "somewhat similar",
}


@register.filter
def similarity_label(similar: object) -> str:
    """ "very similar" / "similar" / "somewhat similar" for a `SimilarCase`, from the level the search
    engine gives it (`label`, else `strength` or `confidence`); "" when it gives none."""
    for attribute in ("label", "strength", "confidence"):
        level = getattr(similar, attribute, None)
        if isinstance(level, str) and level.lower() in SIMILARITY_WORDS:
            return SIMILARITY_WORDS[level.lower()]
    return ""


register.filter("grouped", grouped)


@register.filter
def zip_columns(cells: list[object], columns) -> list[tuple[object, object]]:
    """A scale row's cells beside their columns, for per-cell labels on narrow screens."""
    return list(zip(cells, columns, strict=False))


@register.filter
def snippet(value: Snippet | None) -> str:
    """A search snippet as HTML: its text escaped, matches in `<mark>`, inline Markdown as
    `<code>`, `<strong>`, `<em>` (`rendering.snippet_html`)."""
    return mark_safe(snippet_html(value) or "")  # noqa: S308 - every piece of text is escaped there


@register.filter
def why_linked(why: str | None, like: str | None = None) -> str:
    """A hit's `why` as HTML, escaped, its last sentence `Similar to IL-0449, the first hit.`
    (`results.like_sentence`, said when `like` is that hit's id) with the id linked to its
    case page; "" for no `why`. The sentence is found as the search module writes it, so a
    `why` that does not end in it (a `like` the card was given without its `why`) is only
    escaped."""
    if not why:
        return ""
    sentence = like_sentence(like) if like else None
    if sentence is None or not why.endswith(sentence):
        return escape(why)
    before = why.removesuffix(sentence)
    return format_html(
        '{}Similar to <a href="{}">{}</a>, the first hit.',
        before,
        reverse("incidents:case-detail", args=[like]),
        like,
    )


@register.filter(name="a_job")
def a_job_filter(kind: str) -> str:
    """`{{ reading.job_kind|a_job }}`: "an inference job", "a training job" (`log_job_kind.a_job`)."""
    return a_job(kind)


@register.filter
def sentence(text: str | None) -> str:
    """`text` ending as a sentence (`rendering.as_sentence`): a retraction reason typed
    without a final full stop gets one before the page's next sentence."""
    return as_sentence(text)


@register.filter
def percent(score: float | None) -> str:
    """0..1 score as a whole percentage (`0.4271` -> `43%`)."""
    if score is None:
        return ""
    return f"{round(score * 100)}%"


@register.filter
def highlight(line: str, spans) -> str:
    """`line` as HTML with each `[start, end)` of `spans` in `<mark>`, the rest escaped."""
    out: list[str] = []
    at = 0
    for start, end in spans or ():
        if start < at:
            continue
        out.append(escape(line[at:start]))
        out.append(f"<mark>{escape(line[start:end])}</mark>")
        at = end
    out.append(escape(line[at:]))
    return mark_safe("".join(out))  # noqa: S308 - every piece of text is escaped above


EMPTY_VALUE = "—"


def _plain(value: Any) -> str:
    """A history value as a reader writes it: a list as `a, b`, an object as `key: value;
    key: value` (unset keys left out; keys sorted, as PostgreSQL's jsonb keeps no order of
    its own to show), yes/no for booleans."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return "; ".join(
            f"{key}: {_plain(inner)}"
            for key, inner in sorted(value.items())
            if inner not in (None, "", [], {})
        )
    if isinstance(value, list):
        return ", ".join(_plain(item) for item in value)
    return str(value)


@register.filter
def history_value(value: Any, field: str = "") -> str:
    """A case-history diff cell (`FieldChange.old` / `.new`, JSON values of the case
    document; `field` its `FieldChange.field`): `—` when unset or empty, a status in words
    (`In review`), a list of objects (sources, affected ranges) as a bulleted list, anything
    else as one line of `_plain` text; escaped."""
    if value in (None, "", [], {}):
        return EMPTY_VALUE
    if field == "status" and isinstance(value, str):
        return escape(status_label(value))
    if isinstance(value, list) and any(isinstance(item, (dict, list)) for item in value):
        return format_html(
            '<ul class="history-list">{}</ul>',
            format_html_join("", "<li>{}</li>", ((_plain(i),) for i in value)),
        )
    return escape(_plain(value))
