"""Write a folder whole: into a new sibling that then takes the folder's place.

For the commands whose folder must hold exactly what they wrote last (`export_cases DIR`,
`export_cases --backup DIR`): writing over the earlier files in place kept those of cases
gone since (a later import or restore read them back), and a run that failed half-way left
a mixture. Each command first refuses a folder holding anything it does not write
(`not_written_by`), so nothing of anyone else's is replaced.
"""

from __future__ import annotations

import shutil
import stat
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


def not_written_by(directory: Path, writes: Callable[[Path], bool]) -> list[str]:
    """The entries of `directory` (names, sorted) for which `writes(entry)` is false: what a
    command writing that folder would not have written. None for a missing or empty folder."""
    if not directory.is_dir():
        return []
    return [entry.name for entry in sorted(directory.iterdir()) if not writes(entry)]


def a_plain_file(entry: Path, suffix: str) -> bool:
    """Whether `entry` is a regular file (not a link) whose name ends in `suffix`."""
    return entry.suffix == suffix and entry.is_file() and not entry.is_symlink()


def shown(names: list[str]) -> str:
    """`names` for a message: the first five, then how many more."""
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


@contextmanager
def written_beside(directory: Path) -> Iterator[Path]:
    """A new empty folder beside `directory` (absolute) to write into. When the block ends,
    it takes the place of `directory` (renames in one folder, so each is atomic), keeping the
    earlier folder's permissions, and the earlier folder is removed; when the block raises,
    it is removed and `directory` is left as it was."""
    directory.parent.mkdir(parents=True, exist_ok=True)
    staging = directory.with_name(f".{directory.name}.partial-{uuid.uuid4().hex[:8]}")
    staging.mkdir()
    try:
        yield staging
        _replace_folder(directory, staging)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _replace_folder(directory: Path, staging: Path) -> None:
    if not directory.exists():
        staging.rename(directory)
        return
    staging.chmod(stat.S_IMODE(directory.stat().st_mode))
    earlier = directory.with_name(f".{directory.name}.earlier-{uuid.uuid4().hex[:8]}")
    directory.rename(earlier)
    staging.rename(directory)
    shutil.rmtree(earlier)
