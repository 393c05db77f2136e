"""Helpers for the search tests: synthetic cases, imported next to the real ones with the
`import_synthetic` fixture of tests/conftest.py."""

from __future__ import annotations

from tests.factories import synthetic_case

__all__ = ["synthetic_case"]
