"""Allocating the large arrays a worker keeps (every case's passage vectors).

Every 4 KB page of a fresh array costs a page fault when first written; in the virtual
machines this runs on, filling 192 MB (the int8 passage vectors of 100,000 cases) took 0.6 to
0.8 s that way and 0.2 s in 2 MB pages. Anonymous memory advised as huge pages
(`MADV_HUGEPAGE`, honoured where transparent huge pages are `madvise` or `always`) gets
them; elsewhere the advice is ignored and nothing changes. A page still becomes resident
only when written, and the memory goes back to the system when the array is freed.
"""

from __future__ import annotations

import math
import mmap

import numpy as np

# Arrays below this many bytes come from numpy's allocator as usual.
HUGE_FROM = 8 * 1024 * 1024


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
