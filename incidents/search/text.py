"""Text shared by both search backends: what a case's index row holds, words, stop words.

A case is indexed as four weighted columns (`IndexColumns`), built by `index_columns` from
the case's fields (which field feeds which column is `document_model`'s). The same columns
feed SQLite's FTS5 table and PostgreSQL's weighted `tsvector`, so both backends rank the
same text.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from django.db.models import Prefetch, QuerySet

from incidents.document_model import INDEX_COLUMNS, case_model
from incidents.id_lists import ids_in
from incidents.models import Case, CaseTerm, ScaleColumn, ScaleRow, ScaleTable, Term

# Private-use characters that mark matches inside snippets: no case text contains them
# (they are stripped on the way in), so after HTML-escaping a snippet they become <mark>.
MARK_START = "\ue000"
MARK_END = "\ue001"
# PostgreSQL's indexed body has one after each `<`, which snippets drop again (see
# `backends.PostgresBackend.write`).
ZWSP = "\u200b"

# PostgreSQL's `english` stop-word list (tsearch_data/english.stop). Queries drop these words
# on both backends so that a query means the same thing on SQLite (whose FTS5 table keeps
# every word) and on PostgreSQL (whose parser drops them).
STOP_WORDS = frozenset(
    """
i me my myself we our ours ourselves you your yours yourself yourselves he him his himself
she her hers herself it its itself they them their theirs themselves what which who whom
this that these those am is are was were be been being have has had having do does did doing
a an the and but if or because as until while of at by for with about against between into
through during before after above below to from up down in out on off over under again
further then once here there when where why how all any both each few more most other some
such no nor not only own same so than too very s t can will just don should now
""".split()
)

# A word as both FTS5's unicode61 tokenizer and our normalised PostgreSQL text see it:
# a run of letters and digits; every other character (punctuation, `_`, emoji) separates.
WORD_RE = re.compile(r"[^\W_]+")
_NON_WORD_RE = re.compile(r"[^\w\s]|_")
_CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ue000\ue001]")


def clean(text: str) -> str:
    """Text in Unicode NFC without NUL and other control characters or our snippet markers.

    NFC on the way in (index) and on the way out (queries), on both backends, so a query
    typed in decomposed form (NFD `e` + combining accent) finds composed text and back.
    """
    return _CONTROL_RE.sub(" ", unicodedata.normalize("NFC", text))


def words(text: str) -> list[str]:
    """The words of `text`, in order, as written (case kept)."""
    return WORD_RE.findall(text)


_APOSTROPHE_RE = re.compile(r"(?<=[^\W_])['\u2019](?=[^\W_])")


def join_apostrophes(text: str) -> str:
    """`can't` -> `cant`: PostgreSQL would index `can` and `t`, both stop words, and lose it."""
    return _APOSTROPHE_RE.sub("", text)


def flatten_punctuation(text: str) -> str:
    """Punctuation and underscores as spaces: what PostgreSQL indexes and is queried with.

    PostgreSQL's parser keeps `2.18.3`, `torch.distributed.DistBackendError` or `a-b` as
    single tokens while FTS5 splits them; flattening gives both backends the same words.
    """
    return _NON_WORD_RE.sub(" ", join_apostrophes(text))


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light suffix stripper, used to find vocabulary terms in a query (not for ranking).

    `hangs`, `hanging` -> `hang`; `nodes` -> `node`; `crashes` -> `crash`.
    """
    word = word.lower()
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ed"):
        return word[:-2]
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@dataclass(frozen=True)
class IndexColumns:
    """The indexed text of one case, most important column first: title and tags weigh A,
    main B, rest C (`document_model.BINDINGS` says which fields each holds)."""

    title: str
    tags: str
    main: str
    rest: str

    def as_tuple(self) -> tuple[str, str, str, str]:
        return (self.title, self.tags, self.main, self.rest)

    def body(self) -> str:
        """The text snippets are cut from on PostgreSQL: main and rest (the title and tags
        are shown beside a hit anyway)."""
        return "\n".join(part for part in (self.main, self.rest) if part)


def _join(parts) -> str:
    return clean("\n".join(p for p in parts if p))


def cases_for_index(case_ids: list[str], terms: dict[int, Term]) -> list[Case]:
    """The cases with what the index columns read (not a document's sources and links):
    each case's terms attached as `Case.linked_terms` from `terms` (every term by id,
    `Term.objects.in_bulk()`) and its root cause from the same, its scale tables prefetched.
    The term links are read as (case, term) pairs: a link object per row, and the related
    manager Django's prefetch filters for each case, were most of the cost of reading a
    batch back. Up to 5 queries (cases, scale tables, their columns and rows, term links)."""
    cases = list(Case.objects.filter(id__in=ids_in(case_ids)))
    tables: dict[str, list[ScaleTable]] = {}
    for table in (
        ScaleTable.objects.filter(case_id__in=ids_in(case_ids))
        .order_by("position")
        .prefetch_related(
            Prefetch("columns", queryset=ScaleColumn.objects.order_by("position")),
            Prefetch("rows", queryset=ScaleRow.objects.order_by("position")),
        )
    ):
        tables.setdefault(table.case_id, []).append(table)
    none = _prefetched([])
    for case in cases:
        # Django's prefetch filtered a related manager for every case (a third of reading
        # a batch of cases without tables): the tables read are handed over as it would.
        case._prefetched_objects_cache = {  # type: ignore[attr-defined]
            "scale_tables": _prefetched(tables[case.id]) if case.id in tables else none
        }
    linked: dict[str, list[Term]] = {case.id: [] for case in cases}
    links = CaseTerm.objects.filter(case_id__in=ids_in(case_ids)).order_by("case_id", "position", "id")
    for case_id, term_id in links.values_list("case_id", "term_id"):
        if case_id in linked:  # a case written between the two reads is not in `cases`
            linked[case_id].append(terms[term_id])
    for case in cases:
        case.root_cause_category = terms[case.root_cause_category_id]
        case.linked_terms = linked[case.id]
    return cases


def _prefetched(tables: list[ScaleTable]) -> QuerySet[ScaleTable]:
    """What `case.scale_tables.all()` returns after a prefetch: a queryset holding `tables`."""
    found = ScaleTable.objects.none()
    found._result_cache = tables
    found._prefetch_done = True  # type: ignore[attr-defined]
    return found


def index_columns(case: Case) -> IndexColumns:
    """The index row of `case`, read from a case fetched with `with_index_text()` (no queries):
    each column the text of the fields `document_model` binds to it."""
    texts = case_model().index_texts(case, search=True)
    return IndexColumns(*(_join(texts[column]) for column in INDEX_COLUMNS))
