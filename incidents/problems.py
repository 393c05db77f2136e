"""Import problems: every error names the file, the JSON path and what is wrong."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ImportProblem:
    file: str
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.path}: {self.message}"


class CaseImportError(Exception):
    """Raised when an import is refused; nothing was written. `problems` lists every error."""

    def __init__(self, problems: list[ImportProblem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))
