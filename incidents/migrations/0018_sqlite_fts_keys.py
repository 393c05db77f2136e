from django.db import migrations

# Two indexes on the FTS5 table's content shadow table (SQLite only; PostgreSQL's search
# table has the case id as its key). Its rows hold every indexed text, so reading the case
# id of a match by rowid read a large record each time: a phrase in 47,000 of 100,000 cases
# took 125 ms against 18 ms through `(id, c0)` (`backends.SQLITE_KEYS`). And `c0` lets a
# case's row be deleted by its id without reading every row (170 ms against under 1 ms).
# SQLite keeps both in step with every write FTS5 makes to the table.
INDEXES = {
    "incidents_case_fts_rowid_case": "(id, c0)",
    "incidents_case_fts_case": "(c0)",
}


def create_indexes(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for name, columns in INDEXES.items():
            schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {name} ON incidents_case_fts_content {columns}")


def drop_indexes(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for name in INDEXES:
            schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [
        ("incidents", "0017_case_profile_pending_index"),
    ]

    operations = [migrations.RunPython(create_indexes, drop_indexes)]
