"""Every stored similar-case list waits for a rebuild: since f93f5f0 a neighbour's reasons
name the error codes both cases carry ("Both: ECC error, Xid 63, DeepSpeed"), which the lists
stored before do not. (The facet weights that came with it were not kept; the name stays,
as migrations already applied are recorded by name.)

As in 0024: the old lists stay readable until `rebuild_search --neighbours` (or the next
`import_cases`, which runs it when lists are pending) stores the new ones; an increment
meanwhile leaves its cases pending too, so no list mixes the two.
"""

from django.db import migrations


def mark_every_list_pending(apps, schema_editor):
    apps.get_model("incidents", "CaseProfile").objects.update(neighbours_pending=True)


class Migration(migrations.Migration):
    dependencies = [("incidents", "0026_history_reason_is_text")]

    operations = [migrations.RunPython(mark_every_list_pending, migrations.RunPython.noop)]
