"""Every bundled case was checked against its primary source by a second helper (issue 13.2):
fixtures/REVIEW.md holds one entry per case with the source read and a verdict."""

from __future__ import annotations

import json
import re
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
ENTRY = re.compile(r"(?m)^## (IL-\d{4,}) — review by ([^\n]+)\n(.*?)(?=^## IL-|\Z)", re.S)


def entries() -> dict[str, str]:
    return {
        m.group(1): m.group(3) for m in ENTRY.finditer((FIXTURES / "REVIEW.md").read_text(encoding="utf-8"))
    }


def test_every_case_has_a_review_entry_and_every_entry_a_case():
    case_ids = {path.stem for path in (FIXTURES / "cases").glob("IL-*.json")}
    reviewed = entries()
    assert sorted(case_ids - set(reviewed)) == []
    assert sorted(set(reviewed) - case_ids) == []


def test_each_entry_names_the_primary_source_read_and_a_kept_verdict():
    for case_id, body in entries().items():
        document = json.loads((FIXTURES / "cases" / f"{case_id}.json").read_text(encoding="utf-8"))
        verdict = re.search(r"^- Verdict: (\w+)", body, re.M)
        assert verdict and verdict.group(1) in {"ok", "fixed"}, case_id  # "removed" cases are deleted
        source_read = re.search(r"^- Source read: (\S+)", body, re.M)
        assert source_read, case_id
        urls = [s["url"] for s in document["sources"]]
        # The source the checker read is one of the case's sources (normally the first).
        assert any(source_read.group(1).rstrip(",;") in url or url in source_read.group(1) for url in urls), (
            case_id
        )
