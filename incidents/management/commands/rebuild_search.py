"""`manage.py rebuild_search`: rebuild the full-text index and every stored neighbour list."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django.db import transaction

from incidents.database_ready import require_tables
from incidents.models import Case
from incidents.search.index import finish_pending, rebuild_all
from incidents.search.models import CaseNeighbour


class Command(BaseCommand):
    help = (
        "Rebuild the search index and similar-case neighbours of every case: the one full "
        "rebuild. Imports and deletions through the services keep both up to date; use this "
        "after changing cases any other way, or after restoring a database."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--neighbours",
            action="store_true",
            help="only the passage embeddings not stored yet and the similar-case lists (the "
            "step a first bulk import leaves pending with import_cases --neighbours-later)",
        )

    def handle(self, *args, neighbours: bool = False, **options) -> None:
        require_tables()
        if neighbours:
            # Not in one transaction: the passages are encoded outside the write lock, a batch
            # at a time; the profiles were stored by the import that left this step pending.
            rows = finish_pending()
            self.stdout.write(f"stored {rows} neighbour(s)")
            return
        with transaction.atomic():
            rebuild_all()
        self.stdout.write(
            f"indexed {Case.objects.count()} case(s), stored {CaseNeighbour.objects.count()} neighbour(s)"
        )
