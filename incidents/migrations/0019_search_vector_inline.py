"""PostgreSQL keeps each case's tsvector in its row (STORAGE MAIN), not in the TOAST table.

A case's tsvector is about 1.6 KB and compresses badly, so with the default EXTENDED storage
a row holding it and the body (over the 2 KB TOAST threshold) had the vector moved out of
line: every match the ranking reads cost a TOAST index look-up and a chunk read. At 100,000
synthetic cases a phrase scanned over every vector took 340 ms; with the vectors in their
rows, 85 to 95 ms (the body, read only for the snippets of a page, still goes out of line).
The rows already written are rewritten so that they move in too: the table is locked
meanwhile (searches wait; about 5 s per 30,000 rows on 2 cores) and each row leaves a dead
copy for VACUUM.
"""

from django.db import migrations

INLINE = """
ALTER TABLE incidents_case_search ALTER COLUMN vector SET STORAGE MAIN;
UPDATE incidents_case_search SET vector = vector || ''::tsvector;
"""
OUT_OF_LINE = "ALTER TABLE incidents_case_search ALTER COLUMN vector SET STORAGE EXTENDED;"


def inline(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(INLINE)


def out_of_line(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(OUT_OF_LINE)


class Migration(migrations.Migration):
    dependencies = [("incidents", "0018_sqlite_fts_keys")]

    operations = [migrations.RunPython(inline, out_of_line)]
