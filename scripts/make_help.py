"""Print the Makefile's targets, each with the first sentence of the comment above it.

`make help` runs this, so the list is the Makefile's own comments and stays true as targets
come and go. A target is listed when a comment block precedes it (variable assignments may
stand between them, as `EVAL_POSTGRES_URL ?= ...` does before `eval:`); file targets such
as `.env` and `$(VENV)/.installed` are steps of others and are not listed.

Usage: make_help.py MAKEFILE
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

TARGET = re.compile(r"(?P<name>[a-z][a-z-]*):(?!=)")
ASSIGNMENT = re.compile(r"[A-Z_]+\s*(\?|:|\+)?=")
# The first sentence: up to a full stop or a colon followed by a space (or the end).
SENTENCE_END = re.compile(r"[.:](\s|$)")


def targets(makefile: str) -> list[tuple[str, str]]:
    """(target, first sentence of its comment) in the order of the Makefile."""
    listed, comment = [], []
    for line in makefile.splitlines():
        if line.startswith("#"):
            comment.append(line.lstrip("#").strip())
            continue
        target = TARGET.match(line)
        if target and comment:
            text = " ".join(comment)
            end = SENTENCE_END.search(text)
            listed.append((target["name"], text[: end.start()] if end else text))
        if not ASSIGNMENT.match(line):
            comment = []
    return listed


def main(path: str) -> None:
    for name, sentence in targets(Path(path).read_text(encoding="utf-8")):
        print(f"  {name:<18} {sentence}")


if __name__ == "__main__":
    main(sys.argv[1])
