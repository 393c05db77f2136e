from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from incidents.exporting import export_to_directory


class Command(BaseCommand):
    help = "Write every case as <id>.json (the case schema document) into DIR."

    def add_arguments(self, parser):
        parser.add_argument("directory", type=Path)

    def handle(self, *args, directory: Path, **options):
        if directory.exists() and not directory.is_dir():
            raise CommandError(f"{directory} exists and is not a folder")
        written = export_to_directory(directory)
        self.stdout.write(f"exported {len(written)} case(s) to {directory}")
