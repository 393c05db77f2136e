"""Every stored similar-case list waits for a rebuild: since 906ada2 each vocabulary facet
weighs what sharing its terms tells on the similarity judgements (topics 0.4 -> 0.8,
components 0.8 -> 0.5, error codes 0.5 -> 1, ...), so the lists stored before score by the old
weights, and their reasons do not name shared error codes.

As in 0024: the old lists stay readable until `rebuild_search --neighbours` (or the next
`import_cases`, which runs it when lists are pending) stores the new ones; an increment
meanwhile leaves its cases pending too, so no list mixes the two rules.
"""

from django.db import migrations


def mark_every_list_pending(apps, schema_editor):
    apps.get_model("incidents", "CaseProfile").objects.update(neighbours_pending=True)


class Migration(migrations.Migration):
    dependencies = [("incidents", "0026_history_reason_is_text")]

    operations = [migrations.RunPython(mark_every_list_pending, migrations.RunPython.noop)]
