"""A second process for the pure-Python work of a large import, run while this process
reads and writes the database (the machine's second core; issue #10: no single step of a
first import was more than a sixth of it, so only splitting the work across cores makes
it markedly faster).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager

# Documents from which an import uses a second process: starting one (a fork, about 10 ms,
# and the work's arguments pickled to it) costs more than it saves on a small import.
SECOND_PROCESS_FROM = 500


@contextmanager
def second_process(documents: int) -> Iterator[Executor | None]:
    """A pool of one worker process for an import of `documents` documents, shut down
    (waiting for what it runs) at the end of the block; None below `SECOND_PROCESS_FROM`.
    The worker is forked: it starts with this process's modules and settings, and must not
    use the database (its connection is this process's). What it is given and returns is
    pickled: only work whose result is small pays (parsed documents cost as much to unpickle
    as to parse)."""
    if documents < SECOND_PROCESS_FROM:
        yield None
        return
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork")) as pool:
        yield pool
