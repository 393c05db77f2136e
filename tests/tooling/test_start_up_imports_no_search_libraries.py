"""Starting Django (the apps, the admin, every URL module and view) imports neither numpy,
scipy nor jsonschema: only the code that searches, scores similar cases, writes cases or
validates documents does. They were half a second of every `manage.py` command, `check` and
`export_cases` included, before it did anything (issue #10)."""

from __future__ import annotations

import json

from tests.tooling.conftest import run_python

HEAVY = ("numpy", "scipy", "jsonschema")


def imported_by(*args: str) -> set[str]:
    """The top-level packages a `python -X importtime ARGS` child imported."""
    result = run_python("-X", "importtime", *args)
    return {
        line.rsplit("|", 1)[1].strip().split(".")[0]
        for line in result.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


def test_manage_py_check_imports_no_search_library():
    modules = imported_by("manage.py", "check")
    assert "django" in modules and "rest_framework" in modules  # the apps and URLs were read
    assert [name for name in HEAVY if name in modules] == []


def test_commands_that_never_search_import_none():
    script = (
        "import django, importlib;"
        "django.setup();"
        "from django.urls import get_resolver;"
        "get_resolver().url_patterns;"
        "[importlib.import_module(f'incidents.management.commands.{name}') for name in"
        " ('export_cases', 'library_summary', 'check_overlap', 'createeditor')]"
    )
    modules = imported_by("-c", script)
    assert "incidents" in modules and "api" in modules
    assert [name for name in HEAVY if name in modules] == []


def test_the_search_functions_are_read_when_first_used():
    script = (
        "import django, json, sys;"
        "django.setup();"
        "from incidents import search;"
        "before = 'numpy' in sys.modules;"
        "function = search.search_cases;"
        "print(json.dumps([before, 'numpy' in sys.modules, function.__module__,"
        " search.similar_cases.__module__, search.FacetCount.__module__]))"
    )
    result = run_python("-c", script)
    assert json.loads(result.stdout.splitlines()[-1]) == [
        False,
        True,
        "incidents.search.engine",
        "incidents.search.similarity",
        "incidents.search.results",
    ]


def test_the_read_paths_import_numpy_and_not_scipy():
    """A server worker reads stored similar-case lists and never builds a sparse matrix:
    scipy (about 10 MB of every worker) comes with the first product of hundreds of rows (a
    full rebuild, a large import); a few rows are multiplied in numpy (`row_products.py`,
    tests/search/test_an_increment_needs_no_scipy.py)."""
    script = (
        "import django;"
        "django.setup();"
        "from incidents import search;"
        "search.search_cases, search.similar_cases;"
        "import incidents.search.logmatch, incidents.search.index, incidents.triage"
    )
    modules = imported_by("-c", script)
    assert "numpy" in modules
    assert "scipy" not in modules
