from __future__ import annotations

import datetime
import shlex
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from incidents.database_ready import require_tables
from incidents.folder_swap import shown
from incidents.models import Case
from incidents.problems import CaseImportError
from incidents.search import deferred
from incidents.search.index import finish_pending
from incidents.seeding import KeptCase
from incidents.servers_cache import SharedCacheUnreachable
from incidents.services import ImportResult, import_case_files


class Command(BaseCommand):
    # Like migrate and shell: an import reads no templates or URLs, and the system checks
    # (template tag libraries, URL namespaces) were half a second of importing 10 cases.
    requires_system_checks: list[str] = []
    help = (
        "Validate and import case JSON documents (files or folders). All or nothing: any "
        "problem is reported with file and JSON path, and nothing is written."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", help="case JSON files or folders of them")
        parser.add_argument(
            "--restore",
            action="store_true",
            help="PATHS is one folder written by export_cases --backup: restore its cases, "
            "vocabulary, editorial state and history (all or nothing); refused when the database "
            "holds cases, history or terms the backup does not, or changes made after the backup "
            "to a case it holds, unless --replace (the one other option it takes); then stores the "
            "similar-case lists left pending, as a plain import does",
        )
        parser.add_argument(
            "--replace",
            action="store_true",
            help="with --restore: delete the cases, history rows and vocabulary terms the backup "
            "does not hold, and drop the changes made after it to the cases it holds, in the "
            "restore's transaction, so the database is the backup's state",
        )
        parser.add_argument(
            "--vocab",
            action="append",
            default=[],
            metavar="FILE",
            help="vocabulary definitions (fixtures/vocab.json style) to create or update terms",
        )
        parser.add_argument("--dry-run", action="store_true", help="validate only, write nothing")
        modes = parser.add_mutually_exclusive_group()
        modes.add_argument(
            "--seed",
            action="store_true",
            help="how `make data` imports the bundled files: import the cases whose id the library "
            "does not hold, replace a held case from its file only while nobody changed it here "
            "since its last import (its latest history row is that import), and keep a case "
            "edited, retracted or merged since as stored, naming those whose file changed; create "
            "only the vocabulary terms the library does not hold (terms keep no history)",
        )
        modes.add_argument(
            "--new-only",
            action="store_true",
            help="import only the cases whose id the library does not hold (a retracted, draft or "
            "merged-away id is held) and create only the vocabulary terms it does not hold, "
            "leaving the others as stored and naming what was skipped",
        )
        parser.add_argument(
            "--strict",
            action="store_true",
            help="refuse the import when a new case looks like a stored one (same source URL or "
            "near-identical text) instead of warning",
        )
        parser.add_argument(
            "--neighbours-later",
            action="store_true",
            help="when the import changes most of the library, leave the passage embeddings and "
            "the similar-case lists to `manage.py rebuild_search --neighbours` (until then search "
            "ranks the new cases by their words and similar cases are computed on the fly) "
            "instead of building them right after the import",
        )

    def handle(
        self,
        *args,
        paths,
        vocab,
        dry_run,
        strict,
        restore,
        replace,
        neighbours_later,
        new_only,
        seed,
        **options,
    ):
        require_tables()
        if restore:
            given = {
                "--vocab": bool(vocab),
                "--dry-run": dry_run,
                "--strict": strict,
                "--seed": seed,
                "--new-only": new_only,
                "--neighbours-later": neighbours_later,
            }
            self._restore(paths, others=[name for name, on in given.items() if on], replace=replace)
            return
        if replace:
            raise CommandError("--replace goes with --restore (a plain import replaces the cases it reads)")
        try:
            result = import_case_files(
                paths=paths,
                vocab_paths=vocab,
                dry_run=dry_run,
                strict=strict,
                defer_neighbours=True,
                new_only=new_only,
                seed=seed,
            )
        except CaseImportError as exc:
            for problem in exc.problems:
                self.stderr.write(str(problem))
            raise CommandError(
                f"import refused: {len(exc.problems)} problem(s); nothing was written"
            ) from exc
        except SharedCacheUnreachable as exc:
            raise CommandError(f"import refused: {exc}") from exc
        for warning in result.warnings:
            self.stderr.write(f"warning: possible duplicate: {warning}")
        if seed:
            self._report_seeded(result, dry_run=dry_run)
        else:
            verb = "would import" if dry_run else "imported"
            total = len(result.created) + len(result.updated) + len(result.unchanged)
            self.stdout.write(
                f"{verb} {total} case(s): {len(result.created)} new, {len(result.updated)} updated, "
                f"{len(result.unchanged)} unchanged"
            )
        if new_only:
            self._report_skipped(result)
        if not dry_run and deferred.pending():
            if neighbours_later:
                self.stdout.write(
                    "passage embeddings and similar-case lists pending:"
                    " run manage.py rebuild_search --neighbours"
                )
                return
            self._finish_pending()

    def _report_skipped(self, result: ImportResult) -> None:
        if result.skipped:
            self.stdout.write(
                f"skipped {len(result.skipped)} case(s) the library holds, left as stored "
                "(import_cases without --new-only replaces them)"
            )
        for case_id, kept_id in result.skipped_merged.items():
            self.stdout.write(f"skipped {case_id}: merged into {kept_id}, its id is never reused")
        if result.terms_skipped:
            self.stdout.write(
                f"skipped {result.terms_skipped} vocabulary term(s) the library holds, left as stored"
            )

    def _report_seeded(self, result: ImportResult, *, dry_run: bool) -> None:
        """The summary line, then each kept case whose file changed since its last import
        (a correction that did not land) with how to take it, and each merged-away id."""
        total = len(result.created) + len(result.updated) + len(result.unchanged) + len(result.kept)
        self.stdout.write(
            f"{'would seed' if dry_run else 'seeded'} {total} case file(s): {len(result.created)} new, "
            f"{len(result.updated)} updated from a changed file, {len(result.unchanged)} unchanged, "
            f"{len(result.kept)} kept because edited here"
        )
        for kept in result.kept:
            if kept.status == Case.Status.MERGED:
                self.stdout.write(
                    f"skipped {kept.case_id}: merged into {kept.merged_into}, its id is never reused"
                )
            elif kept.file_changed:
                self.stdout.write(
                    f"kept {kept.case_id} as changed here ({_last_change(kept)}); its file changed since "
                    f"its last import and was not applied: `manage.py import_cases {shlex.quote(kept.file)}` "
                    "replaces the case with the file, undoing the changes made here"
                )
        if result.terms_skipped:
            self.stdout.write(
                f"skipped {result.terms_skipped} vocabulary term(s) the library holds, left as stored "
                "(terms keep no history to tell an edited one from a seeded one)"
            )

    def _restore(self, paths: list[str], *, others: list[str], replace: bool) -> None:
        """`--restore DIR [--replace]`; `others`: the other options given, which it refuses.
        Then the lists left pending (`_finish_pending`), as after a plain import."""
        takes = "--restore takes one backup folder and no option but --replace"
        if len(paths) != 1:
            given = " ".join(map(shlex.quote, paths))
            raise CommandError(f"{takes}; {len(paths)} paths were given ({given})")
        if others:
            raise CommandError(f"{takes}; leave out {' and '.join(others)}")
        from incidents.backup import RestoreRefused, restore_backup  # only here: a start-up cost

        try:
            summary = restore_backup(Path(paths[0]), replace=replace)
        except RestoreRefused as exc:
            raise CommandError(f"restore refused: {exc}") from exc
        except CaseImportError as exc:
            for problem in exc.problems:
                self.stderr.write(str(problem))
            raise CommandError(
                f"restore refused: {len(exc.problems)} problem(s); nothing was written"
            ) from exc
        except SharedCacheUnreachable as exc:
            raise CommandError(f"restore refused: {exc}") from exc
        self.stdout.write(
            f"restored {summary.cases} case(s), {summary.terms} term(s) and "
            f"{summary.history_rows} history row(s)"
        )
        if summary.deleted_cases or summary.deleted_history_rows or summary.deleted_terms:
            self.stdout.write(
                f"deleted what the backup does not hold (--replace): {summary.deleted_cases} case(s), "
                f"{summary.deleted_history_rows} history row(s), {summary.deleted_terms} term(s)"
            )
        if summary.changed_cases:
            self.stdout.write(
                f"took the {len(summary.changed_cases)} case(s) changed after the backup back to its "
                f"state and history (--replace): {shown(list(summary.changed_cases))}"
            )
        self._finish_pending()

    def _finish_pending(self) -> None:
        """Store the passage embeddings and similar-case lists left pending, as a plain
        import does after its write: a restore into a library whose lists an earlier
        `--neighbours-later` import left pending marks its cases pending too and stored
        none, so search and similar cases stayed on the slower, word-only way until
        `rebuild_search --neighbours` was run by hand. Nothing when none is pending."""
        if not deferred.pending():
            return
        # Its own transactions: the restore is committed; a failure here leaves what is
        # not done pending (lists computed on the fly) until run again.
        # Said before the work: the first run computes every sentence vector (about two
        # minutes for the bundled cases), and `make run` printed nothing all that time.
        self.stdout.write(
            "storing the similar-case lists (the first run computes sentence vectors for every "
            "case: a few minutes; later runs reuse them)..."
        )
        self.stdout.flush()
        started = time.perf_counter()
        rows = finish_pending()
        self.stdout.write(f"stored {rows} neighbour(s) in {time.perf_counter() - started:.1f} s")


def _last_change(kept: KeptCase) -> str:
    """The case's status (when not published) and its latest history row, on one line:
    "retracted; 2026-12-06 03:10 UTC by rita: Source withdrawn." (the reason at most 80
    characters; "no user" for a change without one, as a term rename by an import)."""
    parts = [] if kept.status == Case.Status.PUBLISHED else [str(kept.status)]
    change = kept.last_change
    if change is None:
        parts.append("no recorded import")
    else:
        when = change.when.astimezone(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
        reason = " ".join(change.reason.split())
        reason = reason if len(reason) <= 80 else reason[:79] + "…"
        parts.append(f"{when} by {change.user or 'no user'}" + (f": {reason}" if reason else ""))
    return "; ".join(parts)
