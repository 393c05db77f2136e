"""Allocating the large arrays a worker keeps (every case's passage vectors).

Every 4 KB page of a fresh array costs a page fault when first written; in the virtual
machines this runs on, filling 192 MB (the int8 passage vectors of 100,000 cases) took 0.6 to
0.8 s that way and 0.2 s in 2 MB pages. Anonymous memory advised as huge pages
(`MADV_HUGEPAGE`, honoured where transparent huge pages are `madvise` or `always`) gets
them; elsewhere the advice is ignored and nothing changes. A page still becomes resident
only when written, and the memory goes back to the system when the array is freed.

`Rows` builds a matrix row block by row block. Given a folder, it writes the rows to a file
there instead and maps the finished file read-only, named by the SHA-256 of its bytes
(`_Draft.finish`): every worker that builds the same rows maps the same file, whose pages are the
kernel's page cache, held once on the machine however many workers map it. A worker's
resident set (VmRSS) still counts each page of the file it has read (as RssFile, not
RssAnon), and its proportional set size (Pss) a share of it: a half with two workers.
"""

from __future__ import annotations

import fcntl
import hashlib
import math
import mmap
import os
import threading
import time
import weakref
from pathlib import Path

import numpy as np

# Arrays below this many bytes come from numpy's allocator as usual.
HUGE_FROM = 8 * 1024 * 1024
# A `Rows` with a folder writes a file from this many bytes of room on (smaller matrices, a
# few thousand cases' vectors, are not worth a file).
SHARED_FROM = 8 * 1024 * 1024
SHARED_GLOB = "rows-*.bin"


def empty(shape: tuple[int, ...], dtype: type | np.dtype) -> np.ndarray:
    """An uninitialised, writable array of `shape` and `dtype` (as `np.empty`), in memory
    advised as huge pages when it is at least `HUGE_FROM` bytes."""
    size = math.prod(shape) * np.dtype(dtype).itemsize
    advice = getattr(mmap, "MADV_HUGEPAGE", None)
    if size < HUGE_FROM or advice is None:
        return np.empty(shape, dtype=dtype)
    buffer = mmap.mmap(-1, size)
    buffer.madvise(advice)
    return np.frombuffer(buffer, dtype=dtype).reshape(shape)


class Rows:
    """A matrix of `width` columns of `dtype`, built by appending blocks of rows in order.

    `room`: the rows expected (an array of that many is allocated at once; more are taken,
    the array doubling). With `folder` (and a room of at least `SHARED_FROM` bytes), the rows
    go to a temporary file there instead and `finish` returns the read-only mapping of a
    file named by their digest (`_Draft.finish`). Use as a context manager: a build that fails
    leaves no temporary file."""

    def __init__(self, room: int, width: int, dtype: type | np.dtype, folder: Path | None = None):
        self.width, self.dtype = width, np.dtype(dtype)
        self.count = 0
        self._file: _Draft | None = None
        self.array: np.ndarray | None = None
        if folder is not None and room * width * self.dtype.itemsize >= SHARED_FROM:
            self._file = _Draft(folder)
        else:
            self.array = empty((room, width), self.dtype)

    def __enter__(self) -> Rows:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._file is not None:
            self._file.discard()

    def append(self, block: np.ndarray) -> None:
        """Add `block` (k x width, cast to the dtype) after the rows already added."""
        block = np.ascontiguousarray(block, dtype=self.dtype)
        if self._file is not None:
            self._file.write(block)
        else:
            assert self.array is not None
            if self.count + len(block) > len(self.array):
                grown = empty((max(self.count + len(block), 2 * len(self.array)), self.width), self.dtype)
                grown[: self.count] = self.array[: self.count]
                self.array = grown
            self.array[self.count : self.count + len(block)] = block
        self.count += len(block)

    def finish(self) -> np.ndarray:
        """The rows added (count x width): a view of the array, or read-only from the file."""
        if self._file is None:
            assert self.array is not None
            return self.array[: self.count]  # a view: a copy would hold both for a moment
        return self._file.finish((self.count, self.width), self.dtype)


class _Draft:
    """A temporary file in `folder` written in order (its SHA-256 kept as it goes); locked
    by its writer, so that a sweep (`_sweep`) removes it only once the writer is gone."""

    def __init__(self, folder: Path):
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.path = folder / f"part-{os.getpid()}-{threading.get_ident()}-{os.urandom(4).hex()}.tmp"
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        self.digest = hashlib.sha256()

    def write(self, block: np.ndarray) -> None:
        data = memoryview(block.reshape(-1).view(np.uint8).data)
        self.digest.update(data)
        while data:
            written = os.write(self.fd, data)
            data = data[written:]

    def finish(self, shape: tuple[int, int], dtype: np.dtype) -> np.ndarray:
        """The rows written, as the read-only mapping of `rows-<digest>.bin`, shared with every
        process that filed the same bytes."""
        try:
            return self._shared(shape, dtype)
        finally:
            self.discard()

    def _shared(self, shape: tuple[int, int], dtype: np.dtype) -> np.ndarray:
        # Locked shared from now on, as a mapped file is: the name linked below is this
        # file's too, and an exclusive lock kept here would hold off our own mapping.
        fcntl.flock(self.fd, fcntl.LOCK_SH)
        target = self.folder / f"rows-{self.digest.hexdigest()}.bin"
        for _attempt in range(3):
            try:
                os.link(self.path, target)
            except FileExistsError:
                pass  # another process filed the same bytes: map its file
            else:
                fd, self.fd = self.fd, -1  # the mapping's now
                return _mapped(fd, target, shape, dtype)
            try:
                fd = os.open(target, os.O_RDONLY)
            except FileNotFoundError:
                continue  # swept between the link and the open: link again
            fcntl.flock(fd, fcntl.LOCK_SH)
            if os.fstat(fd).st_size != math.prod(shape) * dtype.itemsize:
                # Not the bytes its name says (cut short by a crash before its pages reached
                # the disk): mapped, it would fail every load; this process files it again.
                os.close(fd)
                target.unlink(missing_ok=True)
                continue
            return _mapped(fd, target, shape, dtype)
        raise OSError(f"{target}: removed as soon as filed")

    def discard(self) -> None:
        """Remove the temporary file (a name linked to it by `finish` stays)."""
        self.path.unlink(missing_ok=True)
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _mapped(fd: int, path: Path, shape: tuple[int, int], dtype: np.dtype) -> np.ndarray:
    """The array of `shape` and `dtype` at the start of the open file `fd` (locked shared),
    mapped read-only; `fd` stays open (and the file locked) as long as the mapping lives.
    Files of `path`'s folder that nobody maps any more are removed (`_sweep`)."""
    try:
        size = math.prod(shape) * dtype.itemsize
        if os.fstat(fd).st_size < size:
            raise OSError(f"{path}: {os.fstat(fd).st_size} bytes, {size} expected")
        if not size:
            os.close(fd)
            return np.empty(shape, dtype=dtype)
        # Populated at once: the first search does not fault each page in.
        buffer = mmap.mmap(
            fd, size, flags=mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0), prot=mmap.PROT_READ
        )
    except BaseException:
        os.close(fd)
        raise
    weakref.finalize(buffer, os.close, fd)  # the shared lock goes with the last view
    _sweep(path.parent, keep=path)
    return np.frombuffer(buffer, dtype=dtype).reshape(shape)


# A temporary file is removed by another process's sweep only past this age (seconds), and
# only when its writer is gone (its lock free): a writer finishing it changes its lock.
DRAFT_AGE = 3600


def _sweep(folder: Path, keep: Path) -> None:
    """Remove the files of `folder` that no process maps or writes any more: each mapping
    holds a shared lock on its file and each writer an exclusive one on its draft, so a
    file this process can lock exclusively at once is nobody's (a draft, only once older
    than `DRAFT_AGE`)."""
    for path in [*folder.glob(SHARED_GLOB), *folder.glob("part-*.tmp")]:
        if path == keep:
            continue
        try:
            fd = os.open(path, os.O_RDONLY)
            if path.suffix == ".tmp" and time.time() - os.fstat(fd).st_mtime < DRAFT_AGE:
                os.close(fd)
                continue
        except OSError:
            continue  # removed meanwhile
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue  # in use
        try:
            path.unlink(missing_ok=True)
        finally:
            os.close(fd)
