"""Root causes become `CaseTerm` rows like topics, symptom tags and components, so every
facet is read one way; `Case.root_cause_category` stays for display and the document.

Plain ORM operations: the same on SQLite and PostgreSQL.
"""

from django.db import migrations
from django.db.models import Max


def add_root_cause_rows(apps, schema_editor):
    Case = apps.get_model("incidents", "Case")
    CaseTerm = apps.get_model("incidents", "CaseTerm")
    last = dict(CaseTerm.objects.values("case_id").annotate(last=Max("position")).values_list("case_id", "last"))
    have = set(
        CaseTerm.objects.filter(term__facet="root_cause").values_list("case_id", "term_id")
    )
    rows = [
        CaseTerm(case_id=case_id, term_id=term_id, position=last.get(case_id, -1) + 1)
        for case_id, term_id in Case.objects.values_list("id", "root_cause_category_id")
        if (case_id, term_id) not in have
    ]
    CaseTerm.objects.bulk_create(rows, batch_size=1000)


def remove_root_cause_rows(apps, schema_editor):
    CaseTerm = apps.get_model("incidents", "CaseTerm")
    CaseTerm.objects.filter(term__facet="root_cause").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("incidents", "0002_search"),
    ]

    operations = [
        migrations.RunPython(add_root_cause_rows, remove_root_cause_rows),
    ]
