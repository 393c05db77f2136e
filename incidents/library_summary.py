"""The library's figures (cases, topics, organizations, accelerators, sources), computed from
the bundled case documents, and the README block that shows them.

The README quotes these figures between `<!-- library-summary:start -->` and
`<!-- library-summary:end -->`; `manage.py library_summary --write README.md` rewrites that
block and `tests/content/test_readme_figures.py` fails when it is stale, so no figure about
the library is typed by hand. Reads the JSON files (`fixtures/cases/*.json`, and the topic
names, organizations and accelerator families of `fixtures/vocab.json`), not the database:
the README describes what ships.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from .models import Facet
from .references import split_url
from .selectors.spelling import spelling_key
from .vocabulary import TermDefinition, load_vocabulary

START = "<!-- library-summary:start -->"
END = "<!-- library-summary:end -->"
# The organization of a case reported by a GitHub user rather than an organization.
COMMUNITY = "Community report"


@dataclass(frozen=True)
class LibrarySummary:
    """Figures over the published cases of a fixtures folder."""

    cases: int
    topics: list[tuple[str, int]]  # (topic name, cases), most cases first
    organizations: int  # distinct organizations, community reports not counted
    community_reports: int  # cases whose organization is `COMMUNITY`
    accelerator_cases: int  # cases that name their accelerator
    accelerator_families: list[tuple[str, int]]  # (family, cases), most cases first
    sources: int  # source links over all cases
    primary_sources: list[tuple[str, int]]  # (kind of a case's first source, cases)


# Hosts of papers besides arXiv (proceedings and review sites) and of hosted status pages
# (Atlassian Statuspage serves a company's page under <id>.statuspage.io as well).
PAPER_HOSTS = (
    "arxiv.org",
    "aclanthology.org",
    "openreview.net",
    "usenix.org",
    "dl.acm.org",
    "ieeexplore.ieee.org",
)
STATUS_HOSTS = ("statuspage.io", "status.io")


def source_kind(url: str) -> str:
    """What kind of publication a source URL is, by its host: a GitHub issue or pull
    request (any github.com page), a paper (arXiv or another proceedings site,
    `PAPER_HOSTS`), a status page (`status.<company>`, `<company>status.com` or a hosted
    status page, `STATUS_HOSTS`), or anything else (a postmortem, blog post or vendor
    documentation)."""
    parts = split_url(url)
    host = (parts.hostname or "").lower() if parts else ""

    def under(domains: tuple[str, ...]) -> bool:
        return any(host == d or host.endswith("." + d) for d in domains)

    if host == "github.com" or host.endswith(".github.com"):
        return "GitHub issue, pull request or repository"
    if under(PAPER_HOSTS):
        return "paper (arXiv, proceedings)"
    if host.startswith("status.") or host.endswith("status.com") or under(STATUS_HOSTS):
        return "status-page incident report"
    return "postmortem, blog post or documentation"


def _by_spelling(terms: list[TermDefinition], facet: Facet) -> dict[str, TermDefinition]:
    """Spelling key of every name, slug and synonym of `facet`'s terms -> the term."""
    return {spelling_key(s): term for term in terms if term.facet == facet for s in term.spellings}


def _most_first(counts: Counter[str]) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def summarize(cases_dir: Path, vocab_path: Path) -> LibrarySummary:
    """The figures of the published cases in `cases_dir` (`*.json` case documents); topic
    slugs are named from `vocab_path` (a slug the vocabulary lacks is shown as is)."""
    vocab = json.loads(vocab_path.read_text(encoding="utf-8"))
    topic_names = {t["slug"]: t["name"] for t in vocab.get("topics", []) if "slug" in t}
    definitions, _problems = load_vocabulary(vocab_path)
    organization = _by_spelling(definitions.terms, Facet.ORGANIZATION)
    accelerator = _by_spelling(definitions.terms, Facet.ACCELERATOR)
    documents = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(cases_dir.glob("*.json"))]
    published = [d for d in documents if d.get("status", "published") == "published"]
    topics: Counter[str] = Counter()
    organizations: Counter[str] = Counter()
    families: Counter[str] = Counter()
    primary: Counter[str] = Counter()
    sources = 0
    for document in published:
        topics.update({topic_names.get(slug, slug) for slug in document.get("topics", [])})
        named = document.get("organization") or COMMUNITY
        term = organization.get(spelling_key(named))
        organizations[term.name if term else named] += 1
        spelled = (document.get("environment") or {}).get("accelerator")
        if spelled:
            chip = accelerator.get(spelling_key(spelled))
            # A model counts for its family (A100 80GB for A100); a name the vocabulary
            # lacks (import would refuse it) is shown as spelled.
            families[(chip.family or chip.name) if chip else spelled] += 1
        urls = [s["url"] for s in document.get("sources", [])]
        sources += len(urls)
        if urls:
            primary[source_kind(urls[0])] += 1
    return LibrarySummary(
        cases=len(published),
        topics=_most_first(topics),
        organizations=len([o for o in organizations if o != COMMUNITY]),
        community_reports=organizations[COMMUNITY],
        accelerator_cases=sum(families.values()),
        accelerator_families=_most_first(families),
        sources=sources,
        primary_sources=_most_first(primary),
    )


def _share(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)}%" if whole else "0%"


def render(summary: LibrarySummary) -> str:
    """The README block (markers included) as Markdown."""
    n = summary.cases
    lines = [
        START,
        "<!-- generated by `manage.py library_summary --write README.md`; do not edit by hand -->",
        "",
        f"**{n} cases**, from {summary.organizations} organizations and "
        f"{summary.community_reports} community reports (a user's report, e.g. a GitHub issue), "
        f"citing {summary.sources} sources.",
        "",
        "| topic | cases | share |",
        "|---|---:|---:|",
        *(f"| {name} | {count} | {_share(count, n)} |" for name, count in summary.topics),
        "",
        "A case may have several topics, so the shares can add up to more than 100%.",
        "",
        f"Accelerators: {summary.accelerator_cases} cases name theirs ("
        + ", ".join(f"{family} {count}" for family, count in summary.accelerator_families)
        + "); the others are not tied to one accelerator or their source does not say.",
        "",
        "Primary sources (each case's first source): "
        + ", ".join(f"{kind} {count}" for kind, count in summary.primary_sources)
        + ".",
        END,
    ]
    return "\n".join(lines)


def replace_block(text: str, block: str) -> str:
    """`text` with its summary block (markers included) replaced by `block`.

    Raises ValueError when `text` lacks the markers, or has them out of order or twice.
    """
    if text.count(START) != 1 or text.count(END) != 1:
        raise ValueError(f"expected one {START} and one {END} marker")
    head, rest = text.split(START)
    if END not in rest:
        raise ValueError(f"{END} comes before {START}")
    _, tail = rest.split(END)
    return head + block + tail


def current_block(text: str) -> str:
    """The summary block of `text`, markers included (ValueError without markers)."""
    if text.count(START) != 1 or text.count(END) != 1 or text.index(START) > text.index(END):
        raise ValueError(f"expected one {START} followed by one {END} marker")
    return text[text.index(START) : text.index(END) + len(END)]
