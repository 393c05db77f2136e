"""`export_cases DIR --vocab FILE` reads the cases and the vocabulary in one snapshot, as a
backup does (`test_a_backup_is_one_snapshot.py`). It read the case files in batches and the
vocabulary after them, each statement seeing what was committed by then: a term renamed
between the two reads was under its old slug in the case files and its new one in FILE, so
`import_cases --vocab FILE DIR` refused the export it had just written (an unknown topic).
The reads now share one transaction (`snapshot.one_snapshot`).

The export runs in a child process on a scratch database (file-backed SQLite in WAL mode,
or a PostgreSQL database of its own), so that it opens its own transaction. Right after the
case files are written, a hook runs a second process that renames a topic the cases carry
and adds a case, and waits for it to commit: on SQLite this also shows that the export holds
no write lock (the writer would wait for it).
"""

from __future__ import annotations

import json

from tests.reliability.scratch import scratch_database

WRITE = """
from incidents import services
from incidents.models import Facet, Term
from tests.conftest import load_fixture

topic = Term.objects.get(facet=Facet.TOPIC, slug="interconnect")
topic.name, topic.slug = "Interconnects", "interconnects"
services.save_term(topic)
draft = {**load_fixture("IL-0428"), "id": "IL-9001", "status": "draft", "related": []}
draft["title"] = "A draft written while the export reads"
draft["topics"] = ["training-hang", "interconnects"]
services.save_case_document(draft, reason="written during the export")
"""


def topics_of(folder) -> set[str]:
    """The topic slugs the case files in `folder` carry."""
    return {
        slug for path in folder.iterdir() for slug in json.loads(path.read_text(encoding="utf-8"))["topics"]
    }


def vocab_topics(path) -> set[str]:
    return {term["slug"] for term in json.loads(path.read_text(encoding="utf-8"))["topics"]}


def test_a_write_committed_while_an_export_reads_is_in_neither_file(tmp_path):
    for database in scratch_database(tmp_path, "export_snapshot"):
        database.seed()
        folder, vocab = tmp_path / "export", tmp_path / "vocab.json"

        # The write in a process of its own, between the case files and the vocabulary.
        result = database.manage_interrupted(
            "incidents.exporting.export_to_directory",
            WRITE,
            "export_cases",
            str(folder),
            "--vocab",
            str(vocab),
        )

        assert result.returncode == 0, result.stderr
        assert "written meanwhile" in result.stdout and "exported 173 case(s)" in result.stdout
        # The state before the write, in both: the old slug, and no new case.
        assert "IL-9001.json" not in {p.name for p in folder.iterdir()}
        assert "interconnect" in topics_of(folder)
        assert ("interconnect" in vocab_topics(vocab), "interconnects" in vocab_topics(vocab)) == (
            True,
            False,
        )
        # Every topic a case file carries is defined in the vocabulary file: they import back.
        assert topics_of(folder) - vocab_topics(vocab) == set()
        # The write did commit: the next export holds it, in both files.
        again = database.manage("export_cases", str(tmp_path / "again"), "--vocab", str(tmp_path / "v2.json"))
        assert again.returncode == 0, again.stderr
        assert (tmp_path / "again" / "IL-9001.json").is_file()
        assert "interconnects" in topics_of(tmp_path / "again") - {"interconnect"}
        assert topics_of(tmp_path / "again") - vocab_topics(tmp_path / "v2.json") == set()
