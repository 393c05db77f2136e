"""Vocabulary definitions files (`fixtures/vocab.json`): reading and checking them.

A file maps each facet's plural key to a list of term definitions:
`{"topics": [{"name", "slug", "description", "synonyms"?}], "symptom_tags": [...],
"root_causes": [...], "components": [...]}`. Symptom tags, root causes and components
may omit `slug` (derived from the name) and may carry `patterns` (regular expressions
used by log matching).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema
from django.utils.text import slugify

from .models import Facet
from .problems import ImportProblem
from .search.patterns import pattern_problem

FILE_KEYS: dict[str, Facet] = {
    "topics": Facet.TOPIC,
    "symptom_tags": Facet.SYMPTOM,
    "root_causes": Facet.ROOT_CAUSE,
    "components": Facet.COMPONENT,
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
VOCABULARY_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {key: {"type": "array", "items": _TERM_SCHEMA} for key in FILE_KEYS},
}


@dataclass(frozen=True)
class TermDefinition:
    facet: Facet
    name: str
    slug: str
    description: str
    synonyms: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()


@dataclass
class VocabularyDefinitions:
    """Term definitions by facet, indexed the way case documents refer to them."""

    terms: list[TermDefinition] = field(default_factory=list)


def reference_of(facet: Facet | str, name: str, slug: str) -> str:
    """How a case document names a term: topics by slug, every other facet by name."""
    return slug if facet == Facet.TOPIC else name


def term_problems(raw: dict, where: str, json_path: str = "$") -> list[ImportProblem]:
    """Problems of one term definition (`name`, `slug`, `description`, `synonyms`,
    `patterns`): its schema and its patterns, as a vocabulary file is checked."""
    validator = jsonschema.Draft202012Validator(_TERM_SCHEMA)
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
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return VocabularyDefinitions(), [ImportProblem(str(path), "$", f"cannot read file: {exc}")]
    except json.JSONDecodeError as exc:
        message = f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        return VocabularyDefinitions(), [ImportProblem(str(path), "$", message)]
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
                    description=raw["description"],
                    synonyms=tuple(raw.get("synonyms", [])),
                    patterns=tuple(raw.get("patterns", [])),
                )
            )
    return definitions, problems
