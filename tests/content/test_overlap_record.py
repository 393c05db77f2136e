"""Every bundled case went through the copied-wording check (issue 13.2): `fixtures/overlap.tsv`
holds each case's latest check with no shared run, and fixtures/REVIEW.md names the primary text
each check read, one of the case's own sources."""

from __future__ import annotations

import json
import re
from pathlib import Path

from incidents.overlap import DEFAULT_MIN_WORDS
from incidents.overlap_record import read_record

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
SECTION = "## Copied-wording check against re-saved sources"
ROW = re.compile(r"^\| (IL-\d{4,}) \| (\S+) \| (\d+) \| (.+) \|$", re.M)


def case_ids() -> set[str]:
    return {path.stem for path in (FIXTURES / "cases").glob("IL-*.json")}


def test_every_case_was_checked_and_shares_no_run_with_its_source():
    record = read_record(FIXTURES / "overlap.tsv")
    assert sorted(case_ids() ^ set(record)) == []
    flagged = {case: row.shared_runs for case, row in record.items() if row.shared_runs}
    assert flagged == {}
    assert {row.min_words for row in record.values()} == {DEFAULT_MIN_WORDS}
    assert all(
        row.source_words > 0 and re.fullmatch(r"[0-9a-f]{16}", row.source_sha256) for row in record.values()
    )


def test_the_review_names_for_each_check_a_source_of_the_case_and_the_words_read():
    review = (FIXTURES / "REVIEW.md").read_text(encoding="utf-8")
    section = review[review.index(SECTION) :]
    rows = {m.group(1): m for m in ROW.finditer(section)}
    assert sorted(case_ids() ^ set(rows)) == []
    record = read_record(FIXTURES / "overlap.tsv")
    for case, row in rows.items():
        urls = [s["url"] for s in json.loads((FIXTURES / "cases" / f"{case}.json").read_text())["sources"]]
        assert any(row.group(2) in url or url in row.group(2) for url in urls), case
        assert int(row.group(3)) == record[case].source_words, case
