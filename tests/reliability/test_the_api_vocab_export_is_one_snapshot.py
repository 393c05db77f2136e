"""`GET /api/export/vocab` reads the vocabulary in one snapshot, as `export_cases --vocab`
does (`test_an_export_is_one_snapshot.py`).

It read the accelerators' names (their families) and then every term, each statement seeing
what was committed by then: a family renamed between the two reads was under its old name in
its models' `family` and its new one as a term, a file `import_cases --vocab` refuses (a
family no term has). `exporting.vocabulary_document` now reads both in one transaction
(`snapshot.one_snapshot`), for the API and the command alike.

The request runs in a child process on a scratch database (file-backed SQLite in WAL mode, or
a PostgreSQL database of its own), so that it opens its own transaction; right after the
names are read, a second process renames the family and commits.
"""

from __future__ import annotations

import json

from tests.reliability.scratch import scratch_database

RENAME = """
from incidents import services
from incidents.models import Facet, Term

family = Term.objects.get(facet=Facet.ACCELERATOR, name="A100")
family.name = "A100 series"
services.save_term(family)
"""

# Run by `manage.py shell -c`: GET /api/export/vocab with the rename between its two reads.
REQUEST = """
import subprocess, sys
from django.test import Client
from incidents import exporting

read = exporting.accelerator_names

def interrupted():
    names = read()
    subprocess.run([sys.executable, "manage.py", "shell", "-c", {write!r}], check=True, timeout=300)
    print("written meanwhile")
    return names

exporting.accelerator_names = interrupted
response = Client(HTTP_HOST="127.0.0.1").get("/api/export/vocab")
print("status", response.status_code)
with open({out!r}, "w", encoding="utf-8") as out:
    out.write(response.content.decode())
"""


def families(document: dict) -> tuple[set[str], set[str]]:
    """(the families the accelerator models name, the accelerator terms' names)."""
    accelerators = document["accelerators"]
    return {a["family"] for a in accelerators if "family" in a}, {a["name"] for a in accelerators}


def test_a_family_renamed_while_the_api_exports_the_vocabulary_is_in_neither_read(tmp_path):
    for database in scratch_database(tmp_path, "vocab_snapshot"):
        database.seed()
        out = tmp_path / "vocab.json"

        result = database.manage("shell", "-c", REQUEST.format(write=RENAME, out=str(out)))

        assert result.returncode == 0, result.stderr
        assert "written meanwhile" in result.stdout and "status 200" in result.stdout
        named, terms = families(json.loads(out.read_text(encoding="utf-8")))
        # The state before the rename, in both reads: every family named is a term.
        assert ("A100" in named, "A100" in terms, "A100 series" in terms) == (True, True, False)
        assert named - terms == set()
        # The rename did commit: the next export has it, in both.
        again = database.manage("export_cases", str(tmp_path / "cases"), "--vocab", str(tmp_path / "v2.json"))
        assert again.returncode == 0, again.stderr
        named, terms = families(json.loads((tmp_path / "v2.json").read_text(encoding="utf-8")))
        assert ("A100 series" in named, "A100 series" in terms, "A100" in terms) == (True, True, False)
