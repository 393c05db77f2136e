"""PostgreSQL keeps a most-common-values entry for every vocabulary term on case links.

With the default statistics target (100) the planner kept 100 of the 220 terms a store of
100,000 synthetic cases links, and guessed the rest from a wrong number of distinct terms:
a topic on 82 cases was taken for 2,600, so a list filtered by that topic and a symptom
walked every case by date and probed its links (570 ms) instead of starting from the 82
links (5.6 ms). Which plan won depended on the rows ANALYZE happened to sample. A target of
1,000 lists every term a curated vocabulary has; ANALYZE reads more rows (1 s at 1.2
million links).
"""

from django.db import migrations

TARGET = 1000


def more_statistics(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE incidents_caseterm ALTER COLUMN term_id SET STATISTICS {TARGET}")
        schema_editor.execute("ANALYZE incidents_caseterm")


def default_statistics(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE incidents_caseterm ALTER COLUMN term_id SET STATISTICS -1")


class Migration(migrations.Migration):
    dependencies = [("incidents", "0020_case_status_ranked_index")]

    operations = [migrations.RunPython(more_statistics, default_statistics)]
