"""PostgreSQL indexes every word, stop words included, as SQLite's FTS5 table does.

The `english` configuration drops stop words: the curated error phrase `timed out` became
the bare word `time` (any case saying "training time" matched it) and `Connection reset by
peer` lost its `by`, while SQLite matched the phrases as written. The `english_all_words`
configuration stems words as `english` does (Snowball) but keeps every word; queries still
leave single stop words out on both backends (`query.Atom.says_nothing`), so only phrases
change. The index rows written with `english` are dropped here and rewritten after the
migration (`IncidentsConfig.ready` -> `index.sync_index` on post_migrate).
"""

from django.db import migrations

CONFIG = "english_all_words"

CREATE = f"""
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_ts_dict WHERE dictname = '{CONFIG}_stem') THEN
        CREATE TEXT SEARCH DICTIONARY {CONFIG}_stem (TEMPLATE = snowball, Language = english);
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = '{CONFIG}') THEN
        CREATE TEXT SEARCH CONFIGURATION {CONFIG} (COPY = pg_catalog.english);
        ALTER TEXT SEARCH CONFIGURATION {CONFIG} ALTER MAPPING REPLACE english_stem WITH {CONFIG}_stem;
    END IF;
END
$$;
TRUNCATE incidents_case_search;
"""

DROP = f"""
TRUNCATE incidents_case_search;
DROP TEXT SEARCH CONFIGURATION IF EXISTS {CONFIG};
DROP TEXT SEARCH DICTIONARY IF EXISTS {CONFIG}_stem;
"""


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):
    dependencies = [("incidents", "0012_caseterm_derived_error_codes")]

    operations = [migrations.RunPython(create, drop)]
