"""The case document model: every field of `case.schema.json` bound to where a case keeps it.

The schema says which fields a document has, in what order and of what type; a `Binding`
says how a stored case gives the field's value, which `Case` columns import writes from it,
which vocabulary facet its values name, which search-index column its text feeds and what
a person reads as its name. `CaseModel` checks the two against each other when it is built:
a schema field without a binding, or a binding without a field, stops the program.

Every place that lists a case's fields reads them from `case_model()`: import (validation,
normalisation, the columns and term rows it writes), `documents.case_document` (export,
the API detail, MCP `get_incident`), the MCP Markdown resource and the search index rows.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

from .case_schema import (
    JsonSchema,
    SchemaField,
    is_array,
    load_schema,
    schema_fields,
    spell_out,
    speller,
    standalone,
)
from .durations import duration_seconds
from .models import Case, Facet, Term

if TYPE_CHECKING:
    import jsonschema

IndexColumn = Literal["title", "tags", "main", "rest"]
INDEX_COLUMNS: tuple[IndexColumn, ...] = ("title", "tags", "main", "rest")
# Resolves a (facet, reference) pair of a validated document to its stored term.
TermLookup = Callable[[Facet, str], Term]


@dataclass(frozen=True)
class Binding:
    """Where one document field lives in the store."""

    path: str  # the schema field, "facts.severity"
    read: Callable[[Case], Any]  # its value, from a case fetched `with_document()` (no queries)
    # The `Case` columns import writes from the value; None: rows of another table (terms,
    # sources, scale tables, related links) that `services` writes.
    store: Callable[[Any, TermLookup], dict[str, Any]] | None = None
    facet: Facet | None = None  # the vocabulary facet whose terms the value names
    index: IndexColumn | None = None  # the search-index column its text feeds
    # Its text feeds the search index only, not the other readers of `CaseModel.index_texts`
    # (the similar-case profiles count a case's error codes as terms, not as its words).
    search_only: bool = False
    text: Callable[[Case], Iterable[Any]] | None = None  # that text (default: the value)
    label: str = ""  # what a person reads; default the name with spaces, capitalised

    @property
    def name(self) -> str:
        return self.path.rpartition(".")[2]

    @property
    def title(self) -> str:
        return self.label or humanize(self.name)


def humanize(name: str) -> str:
    """`users_affected` -> `Users affected`."""
    return name.replace("_", " ").capitalize()


def _attribute(column: str) -> Callable[[Case], Any]:
    return lambda case: getattr(case, column)


def column(path: str, name: str = "", **options: Any) -> Binding:
    """A field stored as it is in one `Case` column (named like the field by default)."""
    name = name or path.rpartition(".")[2]
    return Binding(path, _attribute(name), lambda value, _terms: {name: value}, **options)


def alias_column(path: str, facet: Facet, **options: Any) -> Binding:
    """A field stored as written, whose spelling also links a term of `facet` (organization,
    accelerator: any spelling of the term is accepted)."""
    return column(path, facet=facet, **options)


def date_column(path: str) -> Binding:
    def read(case: Case) -> str | None:
        value = getattr(case, path)
        return value.isoformat() if value else None

    def store(value: str | None, _terms: TermLookup) -> dict[str, Any]:
        return {path: datetime.date.fromisoformat(value) if value else None}

    return Binding(path, read, store)


def duration_column(path: str) -> Binding:
    """An ISO 8601 duration, stored as written and in seconds (for sorting and stats)."""
    name = path.rpartition(".")[2]

    def store(value: str | None, _terms: TermLookup) -> dict[str, Any]:
        return {name: value, f"{name}_seconds": duration_seconds(value)}

    return Binding(path, _attribute(name), store)


def list_column(path: str, **options: Any) -> Binding:
    """A list stored in a JSON column; its items spelled out again on the way out (PostgreSQL's
    jsonb reorders object keys)."""

    def read(case: Case) -> list[Any]:
        return spell_out(list(getattr(case, path)), case_model().field(path).node)

    return Binding(path, read, lambda value, _terms: {path: value}, text=_attribute(path), **options)


def term_list(path: str, facet: Facet, *, key: Literal["name", "slug"] = "name", **options: Any) -> Binding:
    """Terms of `facet` by name or slug, stored as ordered term rows; indexed by name."""
    return Binding(
        path,
        lambda case: [getattr(term, key) for term in case.terms_of(facet)],
        facet=facet,
        text=lambda case: [term.name for term in case.terms_of(facet)],
        **options,
    )


def _workload(case: Case) -> str | None:
    return workload.slug if (workload := case.workload) else None


def _category(case: Case) -> str:
    return case.root_cause_category.name


def _store_category(value: str, terms: TermLookup) -> dict[str, Any]:
    # The foreign key is for display; the category is also a term row like other facets.
    return {"root_cause_category": terms(Facet.ROOT_CAUSE, value)}


def _scale_tables(case: Case) -> list[dict[str, Any]]:
    tables = []
    for table in case.scale_tables.all():
        columns = list(table.columns.all())
        tables.append(
            {
                "caption": table.caption,
                "columns": [{"key": c.key, "label": c.label, "unit": c.unit} for c in columns],
                "rows": [
                    {
                        # Column order, not storage order: PostgreSQL's jsonb reorders keys.
                        "values": {c.key: row.values[c.key] for c in columns if c.key in row.values},
                        "outcome": row.outcome,
                        "note": row.note,
                    }
                    for row in table.rows.all()
                ],
            }
        )
    return tables


def _scale_table_text(case: Case) -> Iterator[Any]:
    # The prefetched tables when there are (`search.text.cases_for_index`): the related
    # manager built on each `case.scale_tables` read was a fortieth of a first import, where
    # every case's text is read twice (index row and profile).
    prefetched = getattr(case, "_prefetched_objects_cache", {}).get("scale_tables")
    for table in case.scale_tables.all() if prefetched is None else prefetched:
        yield table.caption
        yield from (column.label for column in table.columns.all())
        yield from (row.note for row in table.rows.all() if row.note)
        yield from (str(v) for row in table.rows.all() for v in row.values.values())


# The order here matters twice: within one search-index column the texts go in the order
# listed (what snippets are cut from), and import checks (and reports) vocabulary values
# in this order. The document's order is the schema's.
BINDINGS: tuple[Binding, ...] = (
    column("title", index="title"),
    column("summary", index="rest"),
    column("detection", index="rest"),
    list_column("remediation", index="rest"),
    list_column("action_items", index="rest"),
    list_column("lessons", index="rest"),
    list_column("checks", index="rest"),
    Binding("scale_tables", _scale_tables, text=_scale_table_text, index="rest", label="Scale observations"),
    term_list("topics", Facet.TOPIC, key="slug", index="rest"),
    term_list("symptoms.tags", Facet.SYMPTOM, index="tags"),
    column("symptoms.description", "symptoms_description", index="main"),
    column("root_cause.description", "root_cause_description", index="main"),
    column("root_cause.trigger", "root_cause_trigger", index="main"),
    Binding("root_cause.category", _category, _store_category, facet=Facet.ROOT_CAUSE, index="main"),
    term_list("environment.components", Facet.COMPONENT, index="main"),
    Binding(
        "environment.workload",
        _workload,
        facet=Facet.WORKLOAD,
        text=lambda case: [case.workload.name] if case.workload else [],
        index="rest",
    ),
    alias_column("organization", Facet.ORGANIZATION, index="rest"),
    column("environment.cluster", index="rest"),
    alias_column("environment.accelerator", Facet.ACCELERATOR, index="rest"),
    column("facts.scope", index="rest"),
    column("facts.users_affected", index="rest"),
    # Searched as printed (`IBV_WC_RETRY_EXC_ERR`, `Xid 79`): many cases quote a code only here,
    # beside the symptom tags it explains.
    term_list("symptoms.error_codes", Facet.ERROR_CODE, index="tags", search_only=True),
    # Not indexed.
    column("id"),
    date_column("published"),
    date_column("occurred"),
    column("status"),
    column("facts.severity"),
    column("facts.region"),
    duration_column("facts.time_to_detect"),
    duration_column("facts.time_to_resolve"),
    column("environment.accelerator_count"),
    column("environment.node_count"),
    Binding("sources", lambda case: [{"title": s.title, "url": s.url} for s in case.sources.all()]),
    Binding(
        "related", lambda case: [link.target_id for link in case.related_links.all()], label="Related cases"
    ),
    list_column("affected", label="Affected versions"),
    list_column("references", label="Upstream references"),
)


class ModelMismatch(Exception):
    """The bindings and the schema's fields disagree."""


@dataclass(frozen=True)
class CaseModel:
    """The schema's fields, each with its binding."""

    schema: JsonSchema  # the schema file as written
    bindings: tuple[Binding, ...] = field(default=BINDINGS)

    def __post_init__(self) -> None:
        fields = {f.path for f in self.fields}
        bound = [b.path for b in self.bindings]
        unbound = sorted(fields - set(bound))
        unknown = sorted(set(bound) - fields)
        twice = sorted({p for p in bound if bound.count(p) > 1})
        if unbound or unknown or twice:
            raise ModelMismatch(
                f"case.schema.json and document_model.BINDINGS disagree: fields without a "
                f"binding {unbound}, bindings without a field {unknown}, bound twice {twice}"
            )

    @cached_property
    def standalone_schema(self) -> JsonSchema:
        return standalone(self.schema)

    @cached_property
    def fields(self) -> tuple[SchemaField, ...]:
        return schema_fields(self.standalone_schema)

    @cached_property
    def faceted_bindings(self) -> tuple[Binding, ...]:
        """The bindings of vocabulary fields (a facet), in binding order."""
        return tuple(binding for binding in self.bindings if binding.facet is not None)

    @cached_property
    def top_level(self) -> tuple[str, ...]:
        """The document's top-level keys in order."""
        return tuple(self.standalone_schema["properties"])

    @cached_property
    def validator(self) -> jsonschema.Draft202012Validator:
        # Imported here: this module is read at start-up (the case document is built from it)
        # and jsonschema costs about 50 ms to import, for validation only.
        import jsonschema

        return jsonschema.Draft202012Validator(
            self.schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
        )

    @cached_property
    def fast_validator(self) -> Any:
        """The same schema compiled by jsonschema-rs: `is_valid` in microseconds. It checks
        `uri` formats too (jsonschema without rfc3987 does not), so it is at least as strict:
        a document it accepts is valid, one it refuses is checked again by `validator`."""
        import jsonschema_rs

        return jsonschema_rs.validator_for(self.schema, validate_formats=True)

    @cached_property
    def _by_path(self) -> dict[str, tuple[SchemaField, Binding]]:
        bindings = {b.path: b for b in self.bindings}
        return {f.path: (f, bindings[f.path]) for f in self.fields}

    def field(self, path: str) -> SchemaField:
        return self._by_path[path][0]

    def binding(self, path: str) -> Binding:
        return self._by_path[path][1]

    def children(self, name: str) -> list[tuple[SchemaField, Binding]]:
        """The fields of top-level object `name`, in schema order, with their bindings."""
        return [pair for pair in self._by_path.values() if pair[0].parent == name]

    def document(self, case: Case) -> dict[str, Any]:
        """The case's document, keys in schema order (no queries on a `with_document()` case)."""
        document: dict[str, Any] = {}
        for schema_field, binding in self._by_path.values():
            target = document.setdefault(schema_field.parent, {}) if schema_field.parent else document
            target[schema_field.name] = binding.read(case)
        return document

    def spelled_out(self, document: dict[str, Any]) -> dict[str, Any]:
        """`document` with every field present in schema order (see `case_schema.spell_out`)."""
        return self._speller(document)

    @cached_property
    def _speller(self) -> Callable[[Any], Any]:
        return speller(self.standalone_schema)

    def columns(self, document: dict[str, Any], terms: TermLookup) -> dict[str, Any]:
        """The `Case` columns import writes from a validated, spelled-out `document`."""
        values: dict[str, Any] = {}
        for binding in self.bindings:
            if binding.store is not None:
                values.update(binding.store(value_at(document, binding.path), terms))
        return values

    def faceted(self, document: dict[str, Any]) -> Iterator[tuple[Binding, str, str]]:
        """(binding, value, JSON path) for every vocabulary value `document` names, in
        binding order; a value absent or null is left out."""
        # Those bindings alone: this runs several times per document at import.
        for binding in self.faceted_bindings:
            value = value_at(document, binding.path)
            if isinstance(value, list):
                yield from ((binding, item, f"$.{binding.path}[{i}]") for i, item in enumerate(value))
            elif value is not None:
                yield binding, value, f"$.{binding.path}"

    def paths_of_type(self, kind: str) -> frozenset[str]:
        """JSON paths of the fields whose schema type is or includes `kind`."""
        found = set()
        for schema_field in self.fields:
            declared = schema_field.node.get("type")
            if declared == kind or (isinstance(declared, list) and kind in declared):
                found.add(schema_field.json_path)
        return frozenset(found)

    def paths_of_definition(self, name: str) -> frozenset[str]:
        """JSON paths of the fields the schema types as `#/$defs/<name>` (e.g. `duration`)."""
        ref = f"#/$defs/{name}"
        found = set()
        for schema_field in self.fields:
            holder = self.schema["properties"]
            if schema_field.parent:
                holder = holder[schema_field.parent]["properties"]
            if holder[schema_field.name].get("$ref") == ref:
                found.add(schema_field.json_path)
        return frozenset(found)

    def index_texts(
        self, case: Case, *, leave_out: Iterable[str] = (), search: bool = False
    ) -> dict[IndexColumn, list[Any]]:
        """The text of each search-index column, field by field in binding order; the fields
        at the paths in `leave_out` are left out, and those bound `search_only` unless this
        is the search index's own text (`search`)."""
        skipped = frozenset(leave_out)
        unknown = skipped - {binding.path for binding in self.bindings}
        if unknown:
            raise ValueError(f"no document field at {sorted(unknown)}")
        texts: dict[IndexColumn, list[Any]] = {column: [] for column in INDEX_COLUMNS}
        for binding in self.bindings:
            if binding.search_only and not search:
                continue
            if binding.index is not None and binding.path not in skipped:
                if binding.text is not None:
                    texts[binding.index].extend(binding.text(case))
                else:
                    texts[binding.index].append(binding.read(case))
        return texts

    def is_list(self, path: str) -> bool:
        return is_array(self.field(path).node)


def value_at(document: dict[str, Any], path: str) -> Any:
    """The value at a dotted field path; None when absent."""
    parent, _, name = path.rpartition(".")
    holder = (document.get(parent) or {}) if parent else document
    return holder.get(name)


_current: CaseModel | None = None


def case_model() -> CaseModel:
    """The model of `settings.CASE_SCHEMA_PATH`, built on first use."""
    global _current
    if _current is None:
        _current = CaseModel(load_schema())
    return _current
