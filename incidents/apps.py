from __future__ import annotations

import sys

from django.apps import AppConfig
from django.db import transaction
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


def _refresh_old_profiles(sender, using: str = "default", **kwargs) -> None:
    """After migrations, if some stored profile predates the context counts (0016): store
    those profiles again (whatever the case's status) and recompute every similar-case list
    once, since the lists were scored by the earlier text and weights. The cost is a full
    `rebuild_neighbours` (every pair: about 20 s at 10,000 cases on 2 cores, quadratic
    beyond), paid once on upgrade."""
    from django.db import connections

    from incidents.search import profiles
    from incidents.search.models import CaseProfile
    from incidents.search.similarity import rebuild_neighbours

    connection = connections[using]
    table = CaseProfile._meta.db_table
    if using != "default" or table not in connection.introspection.table_names():
        return
    with connection.cursor() as cursor:
        columns = {c.name for c in connection.introspection.get_table_description(cursor, table)}
    if "context_counts" not in columns:
        return  # migrated back before 0016
    # The primary, not a replica that may not have the column yet.
    stale = list(
        CaseProfile.objects.using(using).filter(context_counts__isnull=True).values_list("case_id", flat=True)
    )
    if not stale:
        return
    if kwargs.get("verbosity", 1):
        stdout = kwargs.get("stdout") or sys.stdout
        stdout.write(f"similar cases: {len(stale)} profiles stored before 0016; recomputing every list\n")
    with transaction.atomic(using=using):
        profiles.refresh(stale)
        rebuild_neighbours(refresh_profiles=False)


class IncidentsConfig(AppConfig):
    name = "incidents"
    verbose_name = "Incident cases"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        post_migrate.connect(_index_unindexed_cases, sender=self)
        post_migrate.connect(_refresh_old_profiles, sender=self)
