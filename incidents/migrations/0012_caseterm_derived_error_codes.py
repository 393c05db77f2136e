"""`CaseTerm.derived`: an error code found in the case's text by the code's patterns, as
opposed to one the case states; `services.rederive_error_code` follows the patterns for the
derived ones only.

Rows stored before this migration did not say which codes were stated. A code the current
patterns find in the case's scanned text is what an import would derive, so it is marked
derived; the others were stated.
"""

from django.db import migrations, models


def mark_found_codes_derived(apps, schema_editor):
    from incidents.search.patterns import compile_pattern, pattern_problem

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
