"""Every stored similar-case list waits for a rebuild: since 1cbcf01 the text part compares the
words at least two cases hold, so the lists stored before score by the old rule.

The old lists stay readable until `rebuild_search --neighbours` (or the next `import_cases`,
which runs it when lists are pending) stores the new ones; an increment meanwhile leaves its
cases pending too (`incidents/search/deferred.py`), so no list mixes the two rules.
"""

from django.db import migrations


def mark_every_list_pending(apps, schema_editor):
    apps.get_model("incidents", "CaseProfile").objects.update(neighbours_pending=True)


class Migration(migrations.Migration):
    dependencies = [("incidents", "0023_search_index_error_codes")]

    operations = [migrations.RunPython(mark_every_list_pending, migrations.RunPython.noop)]
