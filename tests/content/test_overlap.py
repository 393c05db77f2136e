"""The copied-wording check finds runs of 8+ shared words and nothing shorter."""

from __future__ import annotations

import hashlib
import json
from datetime import date

import pytest
from django.core.management import CommandError, call_command

from incidents.overlap import case_overlaps, shared_runs

SOURCE = (
    "The job hung because one rank never entered the allreduce, and the watchdog fired after "
    "thirty minutes. We replaced the faulty node and restarted from the last checkpoint."
)


def test_a_copied_sentence_is_found_whole_despite_punctuation_and_case():
    prose = "Summary: THE WATCHDOG FIRED after thirty minutes; we replaced the faulty node and restarted."
    runs = shared_runs(prose, SOURCE)
    assert [str(r) for r in runs] == [
        "the watchdog fired after thirty minutes we replaced the faulty node and restarted"
    ]


def test_seven_shared_words_are_not_flagged():
    prose = "Operators say one rank never entered the allreduce here, then left."
    assert shared_runs(prose, SOURCE) == []
    assert shared_runs(prose, SOURCE, min_words=7) == []
    assert [str(r) for r in shared_runs(prose, SOURCE, min_words=6)] == [
        "one rank never entered the allreduce"
    ]


def test_urls_and_ids_are_not_prose():
    document = {
        "id": "IL-9999",
        "sources": [{"url": "https://x/the-job-hung-because-one-rank-never-entered"}],
    }
    assert case_overlaps(document, SOURCE) == []


def test_the_command_fails_on_a_flagged_case_and_names_it(tmp_path, capsys):
    cases, sources = tmp_path / "cases", tmp_path / "sources"
    cases.mkdir(), sources.mkdir()
    (cases / "IL-9001.json").write_text(
        json.dumps({"summary": "Because one rank never entered the allreduce, and the watchdog fired."})
    )
    (cases / "IL-9002.json").write_text(json.dumps({"summary": "A rank stalled; the timeout tripped."}))
    (sources / "IL-9001.txt").write_text(SOURCE)
    (sources / "IL-9002.txt").write_text(SOURCE)
    with pytest.raises(CommandError, match="1 shared run"):
        call_command("check_overlap", str(cases), sources=str(sources))
    out = capsys.readouterr().out
    assert out.splitlines() == [
        "IL-9001: 11 words shared: “because one rank never entered the allreduce and the watchdog fired”"
    ]


def test_source_titles_are_not_prose():
    # A source's title is quoted as published ("issue #2731: vLLM getting stuck..."), so it
    # may share any run of words with the source text; the summary quoting it still counts.
    title = "The job hung because one rank never entered the allreduce"
    sources = [{"title": title, "url": "https://example.org/issue/1"}]
    assert case_overlaps({"sources": sources}, SOURCE) == []
    quoted = {"summary": title, "sources": sources}
    assert [str(r) for r in case_overlaps(quoted, SOURCE)] == [title.lower()]


def test_the_record_keeps_each_checked_case_and_the_rows_of_cases_not_checked_again(tmp_path):
    cases, sources = tmp_path / "cases", tmp_path / "sources"
    cases.mkdir(), sources.mkdir()
    record = tmp_path / "overlap.tsv"
    record.write_text(
        "case\tsource_sha256\tsource_words\tmin_words\tshared_runs\tchecked_on\n"
        "IL-9000\t0123456789abcdef\t812\t8\t0\t2026-11-30\n"
        "IL-9002\tfedcba9876543210\t5\t8\t3\t2026-11-30\n"
    )
    (cases / "IL-9002.json").write_text(json.dumps({"summary": "A rank stalled; the timeout tripped."}))
    (cases / "IL-9003.json").write_text(json.dumps({"summary": "No saved source for this one."}))
    (sources / "IL-9002.txt").write_text(SOURCE)
    call_command("check_overlap", str(cases), sources=str(sources), record=str(record))
    lines = record.read_text().splitlines()
    assert lines[0] == "case\tsource_sha256\tsource_words\tmin_words\tshared_runs\tchecked_on"
    assert lines[1] == "IL-9000\t0123456789abcdef\t812\t8\t0\t2026-11-30"
    # The fingerprint and length are those of the source text read now; the old row is replaced.
    digest = hashlib.sha256(SOURCE.encode()).hexdigest()[:16]
    assert lines[2] == f"IL-9002\t{digest}\t28\t8\t0\t{date.today().isoformat()}"
    assert len(lines) == 3  # IL-9003 had no saved source: no row
