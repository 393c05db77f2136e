"""The case store: incident cases, their vocabulary terms, scale tables, sources and links.

A case document (`case.schema.json`) maps onto these tables without loss; `documents.py`
builds the document back from them and `services` writes them from a document.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import models
from django.urls import reverse
from django.utils.text import Truncator
from simple_history.models import HistoricalRecords


class Facet(models.TextChoices):
    """The vocabularies of a case: those that describe the failure (topic, symptom, root
    cause, component, workload), and two that say who reported it and on what hardware
    (organization, accelerator: `ALIAS_FACETS`)."""

    TOPIC = "topic", "Topic"
    SYMPTOM = "symptom", "Symptom tag"
    ROOT_CAUSE = "root_cause", "Root-cause category"
    COMPONENT = "component", "Component"
    # Training, inference or fleet-wide: at most one per case (`environment.workload`).
    WORKLOAD = "workload", "Workload"
    # Codes and messages the failing tools print (Xid 79, ncclSystemError, IB completion
    # status 12, ProcessGroupNCCL watchdog timeout ...): `symptoms.error_codes`.
    ERROR_CODE = "error_code", "Error code"
    ORGANIZATION = "organization", "Organization"
    ACCELERATOR = "accelerator", "Accelerator"


# Facets a case names by a free string (`organization`, `environment.accelerator`) that
# resolves to a term through its name, slug or synonyms in any letter case. Who reported a
# case and on which chip say nothing about whether two failures are alike, so case
# similarity leaves these out.
ALIAS_FACETS: tuple[Facet, ...] = (Facet.ORGANIZATION, Facet.ACCELERATOR)
# How long the name of a row made from free text (a caption) may be, in the admin.
NAME_CHARS = 80
# The facets `/vocab/`, `/api/vocab/` and the MCP `vocab` tool list. Error codes have pages
# of their own (`/codes/`, `/api/codes/`, `explain_error`): meaning, source, root causes; the
# `vocab` tool lists them only when asked for `facet="error_code"`.
VOCAB_FACETS: tuple[Facet, ...] = tuple(f for f in Facet if f != Facet.ERROR_CODE)


class TermQuerySet(models.QuerySet["Term"]):
    def of(self, facet: Facet | str) -> TermQuerySet:
        return self.filter(facet=facet)


# What a list of cases leaves unread of each linked term (`CaseQuerySet.with_summary`).
TERM_DETAIL = ("description", "synonyms", "patterns", "source_url")


class Term(models.Model):
    """One vocabulary term: a topic, symptom tag, root-cause category, component, workload,
    organization or accelerator.

    Cases name topics and workloads by slug, organizations and accelerators by any of their
    spellings (name, slug or synonym: "NVIDIA A100 SXM 80GB" is the term A100 80GB) and the
    other facets by name; slug and name are unique within a facet. `synonyms` widen search
    and, for organizations and accelerators, are the aliases import accepts; `patterns` are
    regular expressions that spot the term in logs.

    Accelerators only: `vendor` ("NVIDIA") and `family`, the family term a model belongs to
    (A100 80GB -> A100); a family term has no family of its own. A case on a model is
    linked to its family too, so a filter on the family finds every model's cases.
    """

    facet = models.CharField(max_length=20, choices=Facet.choices)
    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=120)
    description = models.TextField()
    synonyms = models.JSONField(default=list, blank=True)
    patterns = models.JSONField(default=list, blank=True)
    vendor = models.CharField(max_length=60, null=True, blank=True)
    # Error codes only: the vendor documentation the one-line description is written from.
    source_url = models.URLField(max_length=500, null=True, blank=True)
    family = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="members",
        limit_choices_to={"facet": "accelerator", "family": None},
    )

    objects = TermQuerySet.as_manager()

    # Present only on rows of annotated querysets (`selectors.vocabulary()`, the `Count(...)` of
    # term counts); declared so that code reading them is type-checked.
    case_count: int

    class Meta:
        ordering = ["facet", "name"]
        constraints = [
            models.UniqueConstraint(fields=["facet", "slug"], name="term_unique_facet_slug"),
            models.UniqueConstraint(fields=["facet", "name"], name="term_unique_facet_name"),
        ]

    def __str__(self) -> str:
        return f"{self.get_facet_display()}: {self.name}"

    def get_absolute_url(self) -> str:
        """The term's own page: `/topics/<slug>` for topics, `/codes/<slug>` for error codes,
        `/vocab/<facet>/<slug>` otherwise."""
        if self.facet == Facet.TOPIC:
            return reverse("incidents:topic-detail", args=[self.slug])
        if self.facet == Facet.ERROR_CODE:
            return reverse("incidents:code-detail", args=[self.slug])
        segment = self.facet.replace("_", "-")
        return reverse("incidents:vocab-term", args=[segment, self.slug])

    def get_filter_url(self) -> str:
        """The case list filtered by this term (`/cases/?symptom=nccl-timeout`)."""
        return f"{reverse('incidents:case-list')}?{self.facet}={self.slug}"


class HistoryDocument(models.Model):
    """What each historical case row keeps besides the case's own columns: the whole case
    document at that moment, so that a change to sources, terms or scale tables shows in the
    field-level diff too."""

    document = models.JSONField(default=dict)

    class Meta:
        abstract = True


# Case columns its history rows leave out: the time of the row is `history_date`, and when
# the case was first published is read from its rows (`history.first_published`).
NOT_IN_HISTORY = ("modified", "added")


class CaseQuerySet(models.QuerySet["Case"]):
    def published(self) -> CaseQuerySet:
        return self.filter(status=Case.Status.PUBLISHED)

    def visible(self) -> CaseQuerySet:
        """Cases that resolve by id: published and retracted (drafts, cases in review and
        merged-away ids stay hidden; a merged id redirects through `merged_into`)."""
        return self.filter(status__in=Case.PUBLIC_STATUSES)

    def newest_first(self) -> CaseQuerySet:
        return self.order_by("-published", "-id")

    def latest_added(self) -> CaseQuerySet:
        """Most recently added to the library first (`Case.added`), whatever their sources'
        dates."""
        return self.order_by(models.F("added").desc(nulls_last=True), "-id")

    # Set by `with_summary`: attach each fetched case's terms as `Case.linked_terms`.
    _attach_terms = False

    def with_summary(self) -> CaseQuerySet:
        """What a list entry shows: the root cause (a join) and the ordered terms (1 extra
        query, made when the cases are fetched: `attach_terms`). The terms come without
        `TERM_DETAIL` (a list names its terms; a term's own page reads the rest): decoding
        every linked term's synonyms and patterns from JSON was a tenth of a search's time
        in Python."""
        clone = self.select_related("root_cause_category")
        clone._attach_terms = True
        return clone

    def _with_term_links(self) -> CaseQuerySet:
        """The root cause and the term link objects (`term_links`, with `derived`), for the
        readers of a whole case (`with_index_text`, `with_document`): 1 extra query."""
        return self.select_related("root_cause_category").prefetch_related(
            models.Prefetch(
                "term_links",
                queryset=CaseTerm.objects.select_related("term")
                .defer(*(f"term__{name}" for name in TERM_DETAIL))
                .order_by("position"),
            )
        )

    def _clone(self) -> CaseQuerySet:
        clone = super()._clone()  # type: ignore[misc]  # private in django-stubs
        clone._attach_terms = self._attach_terms
        return clone

    def _fetch_all(self) -> None:
        fetching = self._result_cache is None
        super()._fetch_all()
        # Model rows only: values() and values_list() rows have no terms to attach.
        rows = self._result_cache
        if (
            fetching
            and rows
            and self._attach_terms
            and issubclass(self._iterable_class, models.query.ModelIterable)
        ):
            attach_terms(rows)

    def with_index_text(self) -> CaseQuerySet:
        """Prefetch what `search.text.index_columns` reads (terms, root cause, scale tables),
        not the sources and links a whole document needs: 5 extra queries."""
        return self._with_term_links().with_scale_tables()

    def with_scale_tables(self) -> CaseQuerySet:
        """Prefetch the scale tables with their columns and rows (3 extra queries)."""
        return self.prefetch_related(
            models.Prefetch(
                "scale_tables",
                queryset=ScaleTable.objects.order_by("position").prefetch_related(
                    models.Prefetch("columns", queryset=ScaleColumn.objects.order_by("position")),
                    models.Prefetch("rows", queryset=ScaleRow.objects.order_by("position")),
                ),
            )
        )

    def with_document(self) -> CaseQuerySet:
        """Prefetch everything `documents.case_document` reads: a fixed number of queries."""
        return self.with_index_text().prefetch_related(
            models.Prefetch("sources", queryset=Source.objects.order_by("position")),
            related_links_prefetch(),
        )


def related_links_prefetch() -> models.Prefetch:
    """A case's hand-made links in the editor's order, each with its target and the target's
    kept case (a join, no query): published answers list a merged target as the case it was
    merged into (`selectors.related_cases`). One query for any number of cases."""
    return models.Prefetch(
        "related_links",
        queryset=CaseRelation.objects.select_related("target__merged_into").order_by("position"),
    )


class Case(models.Model):
    """One post-incident case. Unknown facts are NULL, never an empty string."""

    class Status(models.TextChoices):
        """The editorial workflow: draft -> in review -> published -> retracted; a duplicate
        becomes `merged` (its id then redirects to `merged_into` and is never reused)."""

        DRAFT = "draft"
        IN_REVIEW = "in_review", "In review"
        PUBLISHED = "published"
        RETRACTED = "retracted"
        MERGED = "merged"

    PUBLIC_STATUSES = (Status.PUBLISHED, Status.RETRACTED)

    class Severity(models.TextChoices):
        CRITICAL = "critical"
        HIGH = "high"
        MEDIUM = "medium"
        LOW = "low"

    id = models.CharField(primary_key=True, max_length=12)
    title = models.CharField(max_length=300)
    organization = models.CharField(max_length=200, db_index=True)
    published = models.DateField(db_index=True)
    occurred = models.DateField(null=True, blank=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PUBLISHED)
    summary = models.TextField()

    severity = models.CharField(max_length=10, choices=Severity.choices, null=True, blank=True)
    scope = models.TextField(null=True, blank=True)
    users_affected = models.TextField(null=True, blank=True)
    region = models.TextField(null=True, blank=True)
    # ISO 8601 durations as written (round-trip exact) plus seconds for sorting and statistics.
    time_to_detect = models.CharField(max_length=40, null=True, blank=True)
    time_to_detect_seconds = models.BigIntegerField(null=True, blank=True)
    time_to_resolve = models.CharField(max_length=40, null=True, blank=True)
    time_to_resolve_seconds = models.BigIntegerField(null=True, blank=True)

    cluster = models.TextField(null=True, blank=True)
    accelerator = models.CharField(max_length=120, null=True, blank=True)
    accelerator_count = models.PositiveIntegerField(null=True, blank=True)
    node_count = models.PositiveIntegerField(null=True, blank=True)

    symptoms_description = models.TextField()
    root_cause_category = models.ForeignKey(
        Term,
        on_delete=models.PROTECT,
        related_name="root_cause_cases",
        limit_choices_to={"facet": Facet.ROOT_CAUSE},
    )
    root_cause_description = models.TextField(null=True, blank=True)
    root_cause_trigger = models.TextField(null=True, blank=True)
    detection = models.TextField(null=True, blank=True)

    # Ordered lists of Markdown strings; a JSON array keeps their order on both databases.
    remediation = models.JSONField(default=list, blank=True)
    action_items = models.JSONField(default=list, blank=True)
    lessons = models.JSONField(default=list, blank=True)
    checks = models.JSONField(default=list, blank=True)
    # OSV-style affected ranges and upstream records, stored as the document has them after
    # import's normalisation (`references.py`); `CaseKey` rows index them for lookups.
    affected = models.JSONField(default=list, blank=True)
    references = models.JSONField(default=list, blank=True)

    terms: models.ManyToManyField[Term, CaseTerm] = models.ManyToManyField(
        Term, through="CaseTerm", related_name="cases"
    )
    related: models.ManyToManyField[Case, CaseRelation] = models.ManyToManyField(
        "self", through="CaseRelation", symmetrical=False, related_name="related_from"
    )
    modified = models.DateTimeField(auto_now=True, db_index=True)
    # When the case was first published in this library (NULL until then; kept through a
    # retraction and a new publication): the order of the Atom feeds, which follow what the
    # library adds. `published` is the source's date, which may be years older.
    added = models.DateTimeField("added to the library", null=True, blank=True, editable=False, db_index=True)
    # Editorial state kept beside the document (the workflow sets them, import does not).
    retraction_reason = models.TextField(null=True, blank=True)
    merged_into = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="merged_from"
    )

    objects = CaseQuerySet.as_manager()
    # One row per editorial change, written by `incidents.history.record` (not on every
    # save: SIMPLE_HISTORY_ENABLED is off), each with the whole case document. The reason is
    # text, not simple-history's 100 characters: an editor's reason for a change, a
    # retraction's reason, are kept whole in the history.
    history = HistoricalRecords(
        bases=[HistoryDocument],
        excluded_fields=list(NOT_IN_HISTORY),
        history_change_reason_field=models.TextField(null=True),
    )

    class Meta:
        ordering = ["-published", "-id"]
        # Search and listing select the ids of published cases on every request: covered by
        # this index, SQLite reads it instead of every (wide) case row. The lexical ranking
        # looks up each match's case by (status, id) for its date and root cause: covered
        # too (at 100,000 cases SQLite's "nccl timeout" ranking went from 94 to 70 ms).
        indexes = [
            models.Index(
                fields=["status", "id", "published", "root_cause_category"],
                name="incidents_case_status_ranked",
            )
        ]

    def __str__(self) -> str:
        return f"{self.id}: {self.title}"

    def get_absolute_url(self) -> str:
        return reverse("incidents:case-detail", args=[self.id])

    # Every term of the case in link order, when its reader attached them without link
    # objects (`search.text.cases_for_index`); `terms_of` reads `term_links` otherwise.
    linked_terms: list[Term] | None = None

    def refresh_from_db(
        self,
        using: str | None = None,
        fields: Iterable[str] | None = None,
        from_queryset: models.QuerySet[Case] | None = None,
    ) -> None:
        """Reload from the database; attached `linked_terms` go when Django drops prefetched
        `term_links` (a whole refresh, or one naming them), so that the terms are read again."""
        fields = None if fields is None else list(fields)
        if fields is None or "term_links" in fields:
            self.linked_terms = None
        super().refresh_from_db(using=using, fields=fields, from_queryset=from_queryset)

    def terms_of(self, facet: Facet | str) -> list[Term]:
        """Ordered terms of one facet, read from `linked_terms` when attached, else from the
        prefetched `term_links`."""
        if self.linked_terms is not None:
            return [term for term in self.linked_terms if term.facet == facet]
        return [link.term for link in self.term_links.all() if link.term.facet == facet]

    @property
    def topics(self) -> list[Term]:
        return self.terms_of(Facet.TOPIC)

    @property
    def symptom_tags(self) -> list[Term]:
        return self.terms_of(Facet.SYMPTOM)

    @property
    def components(self) -> list[Term]:
        return self.terms_of(Facet.COMPONENT)

    @property
    def error_codes(self) -> list[Term]:
        return self.terms_of(Facet.ERROR_CODE)

    @property
    def workload(self) -> Term | None:
        """The case's workload term (training, inference, fleet), None when not specific."""
        terms = self.terms_of(Facet.WORKLOAD)
        return terms[0] if terms else None

    @property
    def organization_term(self) -> Term | None:
        """The organization term `organization` resolves to (None before it is linked)."""
        terms = self.terms_of(Facet.ORGANIZATION)
        return terms[0] if terms else None

    @property
    def accelerator_term(self) -> Term | None:
        """The accelerator term `accelerator` resolves to: the model, or the family when the
        case names only the family (its family link comes after it)."""
        terms = self.terms_of(Facet.ACCELERATOR)
        return terms[0] if terms else None


class CaseTerm(models.Model):
    """A case's use of a topic, symptom tag, component or root-cause category, in the order
    the document lists them. Every facet is read from these rows; the root cause is also the
    foreign key `Case.root_cause_category`, for display."""

    # No index of its own: the unique (case, term) constraint's index starts with the case
    # (a second one cost an import of 1,000,000 links a quarter of their insert time).
    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="term_links", db_index=False)
    term = models.ForeignKey(Term, on_delete=models.PROTECT, related_name="case_links")
    position = models.PositiveSmallIntegerField()
    # An error code the case's text shows by the code's patterns, not one the case states:
    # it follows the patterns when an editor changes them (`services.rederive_error_code`).
    derived = models.BooleanField(default=False)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["case", "term"], name="caseterm_unique_case_term"),
        ]

    def __str__(self) -> str:
        # Read with its term (`select_related`) wherever rows are listed (the admin's inline).
        return str(self.term)


def attach_terms(cases: list[Case]) -> None:
    """Attach each case's terms, in link order, as `Case.linked_terms` (what `terms_of`
    reads): 1 query of plain rows, each term built once however many of the cases carry it,
    without `TERM_DETAIL`. Django's prefetch built a link object and a term object per link
    and filtered a related manager for each case: a quarter of a search request's time in
    Python at 20 hits."""
    if not cases:
        return
    names = [f.attname for f in Term._meta.concrete_fields if f.attname not in TERM_DETAIL]
    links = (
        CaseTerm.objects.filter(case_id__in=[case.pk for case in cases])
        .order_by("case_id", "position", "id")
        .values_list("case_id", *(f"term__{name}" for name in names))
    )
    linked: dict[str, list[Term]] = {case.pk: [] for case in cases}
    built: dict[int, Term] = {}
    db = links.db
    for case_id, *values in links:
        term = built.get(values[0])  # `id` is the first concrete field
        if term is None:
            term = built[values[0]] = Term.from_db(db, names, values)
        linked[case_id].append(term)
    for case in cases:
        case.linked_terms = linked[case.pk]


class CaseRelation(models.Model):
    """A hand-made link from one case to another (the document's `related`), in order."""

    source = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="related_links")
    target = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="+")
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["source", "target"], name="caserelation_unique_pair"),
        ]

    def __str__(self) -> str:
        return f"{self.source_id} → {self.target_id}"


class CaseKey(models.Model):
    """A lookup key derived from a case at import (`references.case_keys`), never edited:
    an upstream record the case cites (`owner/repo#N`, `arxiv:2407.21783` or a normalised
    URL, from `references` and from `sources`) or a component its `affected` ranges name
    (the component term's slug). One indexed query answers "which cases cite X" and "which
    cases have ranges for NCCL"."""

    class Kind(models.TextChoices):
        REFERENCE = "reference"  # references[].id / url
        SOURCE = "source"  # sources[].url
        AFFECTED = "affected"  # affected[].component, as the term's slug

    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="keys")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    key = models.CharField(max_length=500, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["case", "kind", "key"], name="casekey_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.key}"


class Source(models.Model):
    """A public account the case was written from."""

    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="sources")
    position = models.PositiveSmallIntegerField()
    title = models.TextField(null=True, blank=True)
    url = models.URLField(max_length=2000)

    class Meta:
        ordering = ["position"]

    def __str__(self) -> str:
        return f"{self.title} ({self.url})" if self.title else self.url


class ScaleTable(models.Model):
    """Observations across scales or settings: which configuration worked and which failed."""

    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="scale_tables")
    position = models.PositiveSmallIntegerField()
    caption = models.TextField()

    class Meta:
        ordering = ["position"]

    def __str__(self) -> str:
        return Truncator(self.caption).chars(NAME_CHARS)


class ScaleColumn(models.Model):
    table = models.ForeignKey(ScaleTable, on_delete=models.CASCADE, related_name="columns")
    position = models.PositiveSmallIntegerField()
    key = models.SlugField(max_length=60)
    label = models.CharField(max_length=200)
    unit = models.CharField(max_length=60, null=True, blank=True)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["table", "key"], name="scalecolumn_unique_key"),
        ]

    def __str__(self) -> str:
        return f"{self.label} ({self.unit})" if self.unit else self.label


class ScaleRow(models.Model):
    """One configuration: its values keyed by column key, and how it went."""

    class Outcome(models.TextChoices):
        WORKED = "worked"
        FAILED = "failed"
        INTERMITTENT = "intermittent"
        DEGRADED = "degraded"
        UNKNOWN = "unknown"

    table = models.ForeignKey(ScaleTable, on_delete=models.CASCADE, related_name="rows")
    position = models.PositiveSmallIntegerField()
    values = models.JSONField(default=dict)
    outcome = models.CharField(max_length=12, choices=Outcome.choices)
    note = models.TextField(null=True, blank=True)

    class Meta:
        ordering = ["position"]

    def __str__(self) -> str:
        values = ", ".join(f"{key}={value}" for key, value in self.values.items())
        return Truncator(f"{values}: {self.outcome}").chars(NAME_CHARS)

    def cells(self) -> list[object]:
        """Values in the table's column order (None where the row has no value)."""
        return [self.values.get(column.key) for column in self.table.columns.all()]


class ServersCache(models.Model):
    """The shared cache the app servers keep the store generation in (one row), as their
    `settings.CACHES["default"]` without credentials (`incidents.cache_identity`): written at
    each server's start with the store cache on (removed by one started with it off), read
    by every write (`incidents.servers_cache`), so a process configured otherwise (a command
    run without CACHE_URL) still tells the servers that the store changed."""

    config = models.JSONField()
    # The servers' entry had a user name or password, left out of `config`: only a process
    # whose own CACHE_URL names that cache can reach it.
    needs_credentials = models.BooleanField(default=False)
    recorded_at = models.DateTimeField(auto_now=True)


# Derived search data lives with the search module; importing it here registers the model.
from .proposals.models import Proposal  # noqa: E402, F401
from .search.models import CaseNeighbour, CaseProfile, WordStatistic  # noqa: E402, F401
