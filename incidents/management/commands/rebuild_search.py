"""`manage.py rebuild_search`: rebuild the full-text index and every stored neighbour list."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django.db import transaction

from incidents.models import Case
from incidents.search.index import rebuild_all
from incidents.search.models import CaseNeighbour


class Command(BaseCommand):
    help = (
        "Rebuild the search index and similar-case neighbours of every case: the one full "
        "rebuild. Imports and deletions through the services keep both up to date; use this "
        "after changing cases any other way, or after restoring a database."
    )

    def handle(self, *args, **options) -> None:
        with transaction.atomic():
            rebuild_all()
        self.stdout.write(
            f"indexed {Case.objects.count()} case(s), stored {CaseNeighbour.objects.count()} neighbour(s)"
        )
