"""`CaseTerm.derived`: an error code found in the case's text by the code's patterns, as
opposed to one the case states; `services.rederive_error_code` follows the patterns for the
derived ones only.

Rows stored before this migration did not say which codes were stated. A code the current
patterns find in the case's scanned text is what an import would derive, so it is marked
derived; the others were stated.

"The current patterns" are compiled and vetted as `incidents.search.patterns.compile_pattern`
and `pattern_problem` did when this migration was written, copied here: a migration is
frozen, and importing the live module would let a later change to it change what this one
does.
"""

from __future__ import annotations

from django.db import migrations, models

MAX_PATTERN_LENGTH = 300
MAX_MEM = 8 << 20  # bytes of automaton per pattern: a hard bound on size


def compile_pattern(pattern: str):
    """Compile with RE2, case ignored, bounded memory, no error logging to stderr (raises
    `re2.error` for patterns RE2 cannot run in linear time)."""
    # Imported here, not at the top: loading the migrations (every `migrate`) needs no RE2.
    import re2

    options = re2.Options()
    options.max_mem = MAX_MEM
    options.log_errors = False
    options.case_sensitive = False
    return re2.compile(pattern, options)


def pattern_problem(pattern: str) -> str | None:
    """Why `pattern` cannot be a vocabulary match pattern, or None if it can: longer than 300
    characters, anything RE2 cannot compile, or a pattern matching the empty string."""
    import re2

    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"pattern longer than {MAX_PATTERN_LENGTH} characters"
    try:
        compiled = compile_pattern(pattern)
    except re2.error as exc:
        return f"pattern not accepted by RE2 (linear-time matching): {exc}"
    if compiled.search("") is not None:
        return "pattern matches the empty string"
    return None


def mark_found_codes_derived(apps, schema_editor):
    Term = apps.get_model("incidents", "Term")
    CaseTerm = apps.get_model("incidents", "CaseTerm")
    patterns = {
        term.id: [compile_pattern(p) for p in term.patterns if pattern_problem(p) is None]
        for term in Term.objects.filter(facet="error_code")
    }
    derived = []
    rows = CaseTerm.objects.filter(term_id__in=list(patterns)).select_related("case")
    for row in rows.iterator():
        case = row.case
        text = "\n".join(p for p in (case.title, case.summary, case.symptoms_description, case.detection) if p)
        if any(p.search(text) for p in patterns[row.term_id]):
            derived.append(row.id)
    CaseTerm.objects.filter(id__in=derived).update(derived=True)


class Migration(migrations.Migration):
    dependencies = [
        ("incidents", "0011_error_codes_affected_references"),
    ]

    operations = [
        migrations.AddField(
            model_name="caseterm",
            name="derived",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(mark_found_codes_derived, migrations.RunPython.noop),
    ]
