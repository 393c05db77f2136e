"""Allocating the large arrays a worker keeps (every case's passage vectors).

Every 4 KB page of a fresh array costs a page fault when first written; in the virtual
machines this runs on, filling 192 MB (the int8 passage vectors of 100,000 cases) took 0.6 to
0.8 s that way and 0.2 s in 2 MB pages. Anonymous memory advised as huge pages
(`MADV_HUGEPAGE`, honoured where transparent huge pages are `madvise` or `always`) gets
them; elsewhere the advice is ignored and nothing changes. A page still becomes resident
only when written, and the memory goes back to the system when the array is freed.

`Rows` builds a matrix row block by row block. Given a folder, it writes the rows to a file
there instead, named by the SHA-256 of its bytes (`_Draft.finish`): every worker that builds
the same rows reads the same file, whose pages are the kernel's page cache, held once on the
machine however many workers read it. The file is not mapped: its rows are read with
`os.preadv` when asked for (`FileRows`), into arrays of the reader's own that live as long as
it uses them. A mapped file counts in a worker's resident set (VmRSS, VmHWM) for every page
it ever touched (RssFile): at 100,000 cases the mapped rows were 192 MB of each worker's
410 to 466 MB peak, where search now reads a few thousand rows a query (`semantic.py`).
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
    go to a temporary file there instead and `finish` returns the rows of a file named by
    their digest (`_Draft.finish`), read from it when asked for (`FileRows`). Use as a
    context manager: a build that fails leaves no temporary file."""

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

    def finish(self) -> np.ndarray | FileRows:
        """The rows added (count x width): a view of the array, or the file's (`FileRows`)."""
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

    def finish(self, shape: tuple[int, int], dtype: np.dtype) -> np.ndarray | FileRows:
        """The rows written, read from `rows-<digest>.bin` (`FileRows`), the file of every
        process that filed the same bytes."""
        try:
            return self._shared(shape, dtype)
        finally:
            self.discard()

    def _shared(self, shape: tuple[int, int], dtype: np.dtype) -> np.ndarray | FileRows:
        # Locked shared from now on, as a file in use is: the name linked below is this
        # file's too, and an exclusive lock kept here would hold off our own reader.
        fcntl.flock(self.fd, fcntl.LOCK_SH)
        target = self.folder / f"rows-{self.digest.hexdigest()}.bin"
        for _attempt in range(3):
            try:
                os.link(self.path, target)
            except FileExistsError:
                pass  # another process filed the same bytes: read its file
            else:
                fd, self.fd = self.fd, -1  # the reader's now
                return _opened(fd, target, shape, dtype)
            try:
                fd = os.open(target, os.O_RDONLY)
            except FileNotFoundError:
                continue  # swept between the link and the open: link again
            fcntl.flock(fd, fcntl.LOCK_SH)
            if os.fstat(fd).st_size != math.prod(shape) * dtype.itemsize:
                # Not the bytes its name says (cut short by a crash before its pages reached
                # the disk): read, it would fail every load; this process files it again.
                os.close(fd)
                target.unlink(missing_ok=True)
                continue
            return _opened(fd, target, shape, dtype)
        raise OSError(f"{target}: removed as soon as filed")

    def discard(self) -> None:
        """Remove the temporary file (a name linked to it by `finish` stays)."""
        self.path.unlink(missing_ok=True)
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _opened(fd: int, path: Path, shape: tuple[int, int], dtype: np.dtype) -> np.ndarray | FileRows:
    """The rows of `shape` and `dtype` at the start of the open file `fd` (locked shared), read
    from it when asked for (`FileRows`); `fd` stays open (and the file locked) as long as
    they are used. Files of `path`'s folder that nobody reads any more are removed
    (`_sweep`)."""
    try:
        size = math.prod(shape) * dtype.itemsize
        if os.fstat(fd).st_size < size:
            raise OSError(f"{path}: {os.fstat(fd).st_size} bytes, {size} expected")
    except BaseException:
        os.close(fd)
        raise
    if not size:
        os.close(fd)
        return np.empty(shape, dtype=dtype)
    rows = FileRows(fd, path, shape, dtype)
    _sweep(path.parent, keep=path)
    return rows


class FileRows:
    """Read-only rows (`shape`: count x width, of `dtype`) at the start of the open file `fd`,
    read with `os.preadv` when asked for: each read is a fresh array of the reader's own, and
    the file's pages stay the kernel's page cache (shared by the workers reading the same
    file, and not counted in any worker's resident set). Indexed as a 2-D array is: a slice
    or a row by number, an array of row numbers or a boolean mask of rows (`take`), and
    `np.asarray` reads every row. `fd` (locked shared: `_sweep` leaves the file alone) is
    closed when the object is collected."""

    ndim = 2

    def __init__(self, fd: int, path: Path, shape: tuple[int, int], dtype: np.dtype):
        self.path = path
        self.shape = shape
        self.dtype = np.dtype(dtype)
        self._fd = fd
        self._row_bytes = shape[1] * self.dtype.itemsize
        weakref.finalize(self, os.close, fd)

    def __len__(self) -> int:
        return self.shape[0]

    @property
    def nbytes(self) -> int:
        return self.shape[0] * self._row_bytes

    def read(self, start: int, stop: int) -> np.ndarray:
        """Rows `start` to `stop` (cut to the rows there are), as a new array."""
        start, stop = max(start, 0), min(stop, len(self))
        out = np.empty((max(stop - start, 0), self.shape[1]), dtype=self.dtype)
        self._fill(out, start)
        return out

    def take(self, rows: np.ndarray) -> np.ndarray:
        """The rows numbered `rows` (int array, in that order, repeats allowed), as a new
        array: one read per run of consecutive row numbers. IndexError for a number out of
        range."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        out = np.empty((len(rows), self.shape[1]), dtype=self.dtype)
        if not len(rows):
            return out
        if int(rows.min()) < 0 or int(rows.max()) >= len(self):
            raise IndexError(f"rows {int(rows.min())}..{int(rows.max())} of {len(self)}")
        breaks = np.flatnonzero(np.diff(rows) != 1) + 1
        lows = np.concatenate(([0], breaks)).tolist()
        highs = [*lows[1:], len(rows)]
        firsts = rows[lows].tolist()
        # One view of `out` sliced per run, one read each: a search reads the rows of about
        # 3,000 scattered cases (`semantic.Vectors._gathered`), and an array view, a
        # memoryview and a call per run cost more than the reads (at 100,000 cases 13 -> 9
        # CPU ms a search, the same bytes).
        size = self._row_bytes
        view = memoryview(out.reshape(-1).view(np.uint8).data)
        for low, high, first in zip(lows, highs, firsts, strict=True):
            part = view[low * size : high * size]
            got = os.preadv(self._fd, [part], first * size)
            if got != len(part):
                self._read_into(part[max(got, 0) :], first * size + max(got, 0))
        return out

    def _fill(self, out: np.ndarray, start: int) -> None:
        """Read `len(out)` rows from row `start` into the C-contiguous array `out`."""
        self._read_into(memoryview(out.reshape(-1).view(np.uint8).data), start * self._row_bytes)

    def _read_into(self, view: memoryview, offset: int) -> None:
        """Fill the bytes `view` from byte `offset` of the file, however many reads it takes."""
        while view:
            got = os.preadv(self._fd, [view], offset)
            if got <= 0:
                raise OSError(f"{self.path}: ends before byte {offset}")
            view, offset = view[got:], offset + got

    def __getitem__(self, key: object) -> np.ndarray:
        if isinstance(key, tuple):
            raise TypeError("rows are taken whole: index by a row number, a slice, numbers or a mask")
        if isinstance(key, slice):
            start, stop, step = key.indices(len(self))
            return self.read(start, stop) if step == 1 else self.take(np.arange(start, stop, step))
        if isinstance(key, int | np.integer):
            at = int(key) + (len(self) if key < 0 else 0)
            return self.take(np.array([at]))[0]
        index = np.asarray(key)
        if index.dtype == bool:
            if index.shape != (len(self),):
                raise IndexError(f"a mask of {index.shape} for {len(self)} rows")
            index = np.flatnonzero(index)
        return self.take(index)

    def __array__(self, dtype: np.dtype | None = None, copy: bool | None = None) -> np.ndarray:
        rows = self.read(0, len(self))
        return rows if dtype is None else rows.astype(dtype)


# A temporary file is removed by another process's sweep only past this age (seconds), and
# only when its writer is gone (its lock free): a writer finishing it changes its lock.
DRAFT_AGE = 3600


def _sweep(folder: Path, keep: Path) -> None:
    """Remove the files of `folder` that no process reads or writes any more: each reader
    (`FileRows`) holds a shared lock on its file and each writer an exclusive one on its
    draft, so a file this process can lock exclusively at once is nobody's (a draft, only
    once older than `DRAFT_AGE`)."""
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
