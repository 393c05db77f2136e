"""A `manage.py` command ends with every object it leaves set aside from the collector
(`gc.freeze`) and its database connections closed: Python's finalization otherwise walks
every tracked object once more, about 0.2 CPU s after `import_cases` of 10 cases into
10,000 (issue #10)."""

from __future__ import annotations

from tests.tooling.conftest import run_python


def test_a_command_leaves_every_object_frozen_at_exit():
    script = (
        "import atexit, gc, runpy, sys;"
        "atexit.register(lambda: print('frozen at exit:', gc.get_freeze_count()));"
        "sys.argv = ['manage.py', 'version'];"
        "runpy.run_path('manage.py', run_name='__main__')"
    )
    result = run_python("-c", script)
    lines = result.stdout.splitlines()
    assert lines[-1].startswith("frozen at exit: ")
    assert int(lines[-1].removeprefix("frozen at exit: ")) > 10_000  # Django and the apps
