from __future__ import annotations

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _index_unindexed_cases(sender, using: str = "default", **kwargs) -> None:
    """After migrations, index the cases that have no index row: a migration that changes
    how the index is built (0013) drops the rows, and this writes them back."""
    from django.db import connections

    from incidents.search.backends import POSTGRES_TABLE, SQLITE_TABLE
    from incidents.search.index import sync_index

    connection = connections[using]
    if using != "default" or not {POSTGRES_TABLE, SQLITE_TABLE} & set(connection.introspection.table_names()):
        return  # migrated back past the search index, or another database
    sync_index()


class IncidentsConfig(AppConfig):
    name = "incidents"
    verbose_name = "Incident cases"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        post_migrate.connect(_index_unindexed_cases, sender=self)
