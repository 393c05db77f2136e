"""The README's figures about the library are the ones the case files give (issue 13: "the
README's figures come from the data, not hand-typed")."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from incidents.library_summary import END, START, current_block, render, replace_block, summarize
from tests.conftest import CASES_DIR, VOCAB_FILE, fixture_ids, load_fixture

README = Path(settings.BASE_DIR) / "README.md"


def test_the_readme_block_is_what_the_fixtures_give():
    block = current_block(README.read_text(encoding="utf-8"))
    assert block == render(summarize(CASES_DIR, VOCAB_FILE)), (
        "README.md's library summary is stale: run `python manage.py library_summary --write README.md`"
    )


def test_the_summary_counts_what_the_case_files_say():
    # Counted here straight from the documents, not through the module under test.
    documents = [load_fixture(case_id) for case_id in fixture_ids()]
    published = [d for d in documents if d["status"] == "published"]
    summary = summarize(CASES_DIR, VOCAB_FILE)
    assert summary.cases == len(published)
    names = {t["slug"]: t["name"] for t in json.loads(VOCAB_FILE.read_text())["topics"]}
    assert dict(summary.topics) == dict(Counter(names[s] for d in published for s in d["topics"]))
    organizations = {d["organization"] for d in published} - {"Community report"}
    assert summary.organizations == len(organizations)
    assert summary.community_reports == sum(d["organization"] == "Community report" for d in published)
    assert summary.accelerator_cases == sum(bool(d["environment"]["accelerator"]) for d in published)
    assert summary.sources == sum(len(d["sources"]) for d in published)
    assert sum(n for _, n in summary.primary_sources) == sum(bool(d["sources"]) for d in published)


def test_no_other_case_count_is_typed_in_the_readme():
    # The library's size appears in the generated block only; elsewhere it would go stale.
    text = README.read_text(encoding="utf-8")
    outside = text.replace(current_block(text), "")
    assert f"{summarize(CASES_DIR, VOCAB_FILE).cases} cases" not in outside


def test_write_replaces_only_the_block_and_check_notices_a_stale_one(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text(f"# Title\n\nBefore.\n\n{START}\n**36 cases**\n{END}\n\nAfter.\n", encoding="utf-8")
    with pytest.raises(CommandError, match="stale"):
        call_command("library_summary", check=readme)
    call_command("library_summary", write=readme)
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("# Title\n\nBefore.\n\n" + START) and text.endswith(END + "\n\nAfter.\n")
    assert current_block(text) == render(summarize(CASES_DIR, VOCAB_FILE))
    call_command("library_summary", check=readme)
    assert "up to date" in capsys.readouterr().out


def test_a_file_without_markers_is_refused():
    with pytest.raises(ValueError, match="marker"):
        replace_block("# no markers here\n", render(summarize(CASES_DIR, VOCAB_FILE)))
