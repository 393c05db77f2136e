"""Vocabulary definitions files (`fixtures/vocab.json`): reading and checking them.

A file maps each facet's plural key to a list of term definitions:
`{"topics": [{"name", "slug", "description", "synonyms"?}], "symptom_tags": [...],
"root_causes": [...], "components": [...], "workloads": [...], "organizations": [...],
"accelerators": [...], "error_codes": [...]}`. Every facet but topics and workloads may omit `slug` (derived
from the name). Symptom tags, root causes and components may carry `patterns` (regular
expressions used by log matching).

Organizations and accelerators are named on cases by any spelling (name, slug or synonym,
compared by `spelling_key`), so no spelling may belong to two terms of one of those facets.
An accelerator has a `vendor` and, when it is a model of a family, `family`: the name of
another accelerator of the file that has no family itself ({"name": "A100 80GB",
"vendor": "NVIDIA", "family": "A100", "synonyms": ["NVIDIA A100 SXM 80GB"]}).

An error code (`error_codes`) has `vendor` (the software that prints it: "NVIDIA driver",
"NCCL", "CUDA runtime", "InfiniBand verbs", "PyTorch", "Kubernetes", "Slurm") and
`source_url`, the vendor documentation its one-line description is written from; its
`patterns` (RE2) tag the cases whose text shows the code (`codes.py`) and pasted logs. A
case names an error code by any spelling (name, slug or synonym, any letter case), so no
spelling may belong to two error codes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from django.utils.text import slugify

from .line_endings import unix_newlines
from .models import ALIAS_FACETS, Facet
from .problems import ImportProblem
from .search.patterns import pattern_problem
from .selectors.spelling import spelling_key
from .strict_json import parse_json

FILE_KEYS: dict[str, Facet] = {
    "topics": Facet.TOPIC,
    "symptom_tags": Facet.SYMPTOM,
    "root_causes": Facet.ROOT_CAUSE,
    "components": Facet.COMPONENT,
    "workloads": Facet.WORKLOAD,
    "organizations": Facet.ORGANIZATION,
    "accelerators": Facet.ACCELERATOR,
    "error_codes": Facet.ERROR_CODE,
}

_TERM_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "description"],
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 120},
        "slug": {"type": "string", "pattern": "^[a-z0-9]+(?:-[a-z0-9]+)*$", "maxLength": 120},
        "description": {"type": "string", "minLength": 1},
        "synonyms": {"type": "array", "items": {"type": "string", "minLength": 1}},
        "patterns": {"type": "array", "items": {"type": "string", "minLength": 1}},
    },
}
_ALIAS_PROPERTIES = {k: v for k, v in _TERM_SCHEMA["properties"].items() if k != "patterns"}  # type: ignore[attr-defined]
_ORGANIZATION_SCHEMA = {**_TERM_SCHEMA, "properties": _ALIAS_PROPERTIES}
_ACCELERATOR_SCHEMA = {
    **_TERM_SCHEMA,
    "required": ["name", "description", "vendor"],
    "properties": {
        **_ALIAS_PROPERTIES,
        "vendor": {"type": "string", "minLength": 1, "maxLength": 60},
        "family": {"type": "string", "minLength": 1, "maxLength": 120},
    },
}
_ERROR_CODE_SCHEMA = {
    **_TERM_SCHEMA,
    "required": ["name", "description", "vendor", "source_url", "patterns"],
    "properties": {
        **_TERM_SCHEMA["properties"],  # type: ignore[dict-item]
        "vendor": {"type": "string", "minLength": 1, "maxLength": 60},
        "source_url": {"type": "string", "pattern": "^https://", "maxLength": 500},
        "patterns": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
    },
}
FACET_SCHEMAS: dict[Facet, dict] = {
    **{facet: _TERM_SCHEMA for facet in FILE_KEYS.values()},
    Facet.ORGANIZATION: _ORGANIZATION_SCHEMA,
    Facet.ACCELERATOR: _ACCELERATOR_SCHEMA,
    Facet.ERROR_CODE: _ERROR_CODE_SCHEMA,
}
# Facets a case names by any spelling of a term, so no spelling may name two terms.
SPELLED_FACETS: tuple[Facet, ...] = (*ALIAS_FACETS, Facet.ERROR_CODE)
VOCABULARY_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {key: {"type": "array", "items": FACET_SCHEMAS[facet]} for key, facet in FILE_KEYS.items()},
}


@dataclass(frozen=True)
class TermDefinition:
    facet: Facet
    name: str
    slug: str
    description: str
    synonyms: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    vendor: str | None = None  # accelerators; error codes: the software that prints it
    family: str | None = None  # accelerators: the family term's name
    source_url: str | None = None  # error codes: the vendor documentation

    @property
    def spellings(self) -> tuple[str, ...]:
        """Every spelling a case may use for an organization, accelerator or error code."""
        return (self.slug, self.name, *self.synonyms)


@dataclass
class VocabularyDefinitions:
    """Term definitions by facet, indexed the way case documents refer to them."""

    terms: list[TermDefinition] = field(default_factory=list)


def reference_of(facet: Facet | str, name: str, slug: str) -> str:
    """How a case document names a term: topics and workloads by slug, every other facet by name."""
    return slug if facet in (Facet.TOPIC, Facet.WORKLOAD) else name


def term_problems(
    raw: dict, where: str, json_path: str = "$", facet: Facet | str | None = None
) -> list[ImportProblem]:
    """Problems of one term definition (`name`, `slug`, `description`, `synonyms`,
    `patterns`; `vendor` and `family` for accelerators): its schema and its patterns, as a
    vocabulary file is checked."""
    # jsonschema is imported by the two checks that use it: this module is read at start-up
    # (the admin's term form, the affected-versions selectors) and the import is ~50 ms.
    import jsonschema

    schema = FACET_SCHEMAS[Facet(facet)] if facet else _TERM_SCHEMA
    validator = jsonschema.Draft202012Validator(schema)
    problems = [
        ImportProblem(where, json_path + error.json_path.removeprefix("$"), error.message)
        for error in sorted(validator.iter_errors(raw), key=lambda e: list(e.absolute_path))
    ]
    for p_index, pattern in enumerate(raw.get("patterns") or []):
        problem = pattern_problem(pattern) if isinstance(pattern, str) else None
        if problem:
            problems.append(ImportProblem(where, f"{json_path}.patterns[{p_index}]", problem))
    return problems


def load_vocabulary(path: Path) -> tuple[VocabularyDefinitions, list[ImportProblem]]:
    """Read and check one definitions file; problems name the file and JSON path."""
    problems: list[ImportProblem] = []
    try:
        data = parse_json(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return VocabularyDefinitions(), [ImportProblem(str(path), "$", f"cannot read file: {exc}")]
    except json.JSONDecodeError as exc:
        message = f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        return VocabularyDefinitions(), [ImportProblem(str(path), "$", message)]
    except ValueError as exc:
        return VocabularyDefinitions(), [ImportProblem(str(path), "$", f"invalid JSON: {exc}")]
    import jsonschema

    validator = jsonschema.Draft202012Validator(VOCABULARY_SCHEMA)
    for error in sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path)):
        problems.append(ImportProblem(str(path), error.json_path, error.message))
    if problems:
        return VocabularyDefinitions(), problems

    definitions = VocabularyDefinitions()
    seen: dict[tuple[Facet, str], str] = {}
    for key, facet in FILE_KEYS.items():
        for index, raw in enumerate(data.get(key, [])):
            slug = raw.get("slug") or slugify(raw["name"])
            json_path = f"$.{key}[{index}]"
            if not slug:
                problems.append(ImportProblem(str(path), json_path, "name gives an empty slug"))
                continue
            for kind, value in (("slug", slug), ("name", raw["name"])):
                earlier = seen.get((facet, f"{kind}:{value}"))
                if earlier:
                    problems.append(
                        ImportProblem(str(path), json_path, f"duplicate {kind} {value!r} (also at {earlier})")
                    )
                seen[(facet, f"{kind}:{value}")] = json_path
            problems.extend(p for p in term_problems(raw, str(path), json_path) if ".patterns[" in p.path)
            definitions.terms.append(
                TermDefinition(
                    facet=facet,
                    name=raw["name"],
                    slug=slug,
                    description=unix_newlines(raw["description"]),
                    synonyms=tuple(raw.get("synonyms", [])),
                    patterns=tuple(raw.get("patterns", [])),
                    vendor=raw.get("vendor"),
                    family=raw.get("family"),
                    source_url=raw.get("source_url"),
                )
            )
    problems.extend(_alias_problems(data, str(path)))
    problems.extend(_family_problems(data, str(path)))
    return definitions, problems


def _alias_problems(data: dict, where: str) -> list[ImportProblem]:
    """A spelling of an organization, accelerator or error code that names two terms of
    its facet."""
    problems = []
    for key, facet in FILE_KEYS.items():
        if facet not in SPELLED_FACETS:
            continue
        owner: dict[str, tuple[str, str]] = {}
        for index, raw in enumerate(data.get(key, [])):
            json_path = f"$.{key}[{index}]"
            spellings = [raw.get("slug") or slugify(raw["name"]), raw["name"], *raw.get("synonyms", [])]
            for spelling in dict.fromkeys(spellings):
                spelled = spelling_key(spelling)
                earlier = owner.get(spelled)
                if earlier and earlier[0] != raw["name"]:
                    problems.append(
                        ImportProblem(
                            where,
                            json_path,
                            f"spelling {spelling!r} also names {earlier[0]!r} (at {earlier[1]}); "
                            "a case naming it would be ambiguous",
                        )
                    )
                owner.setdefault(spelled, (raw["name"], json_path))
    return problems


def _family_problems(data: dict, where: str) -> list[ImportProblem]:
    """An accelerator's `family` must name another accelerator of the file that has no
    family itself (families are one level deep)."""
    accelerators = data.get("accelerators", [])
    families = {raw["name"]: raw for raw in accelerators}
    problems = []
    for index, raw in enumerate(accelerators):
        family = raw.get("family")
        if family is None:
            continue
        path = f"$.accelerators[{index}].family"
        if family == raw["name"]:
            problems.append(ImportProblem(where, path, "an accelerator cannot be its own family"))
        elif family not in families:
            problems.append(ImportProblem(where, path, f"no accelerator named {family!r} in this file"))
        elif families[family].get("family") is not None:
            problems.append(
                ImportProblem(where, path, f"{family!r} is itself a model of {families[family]['family']!r}")
            )
    return problems
