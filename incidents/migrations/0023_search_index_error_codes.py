"""The search index holds each case's error codes (`symptoms.error_codes`), in the tags column.

A case often names its code only there (IL-0450 tags IBV_WC_RETRY_EXC_ERR and its prose says
"completion with error 12"), so searching the code as printed found nothing. The rows written
without the codes are dropped here and rewritten after the migration (`IncidentsConfig.ready`
-> `index.sync_index` on post_migrate), as 0013 did.
"""

from django.db import migrations


def drop_index_rows(apps, schema_editor):
    table = "incidents_case_search" if schema_editor.connection.vendor == "postgresql" else "incidents_case_fts"
    schema_editor.execute(f"DELETE FROM {table}")


class Migration(migrations.Migration):
    dependencies = [("incidents", "0022_word_statistics")]

    operations = [migrations.RunPython(drop_index_rows, drop_index_rows)]
