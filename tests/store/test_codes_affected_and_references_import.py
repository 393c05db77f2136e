"""`symptoms.error_codes`, `affected` and `references` (issue 15): validated with the file
and JSON path, normalised at import, stored, exported as imported, served unchanged."""

from __future__ import annotations

from typing import Any

import pytest

from incidents.documents import case_document
from incidents.exporting import iter_documents
from incidents.models import Case, CaseKey
from incidents.problems import CaseImportError
from incidents.services import import_case_files
from tests.factories import synthetic_case, write_cases

pytestmark = pytest.mark.django_db


def imported(tmp_path, document) -> dict:
    import_case_files(paths=write_cases(tmp_path, [document]))
    return dict(case_document(Case.objects.with_document().get(id=document["id"])))


def problems_of(tmp_path, document) -> list[tuple[str, str]]:
    [path] = write_cases(tmp_path, [document])
    with pytest.raises(CaseImportError) as excinfo:
        import_case_files(paths=[path])
    assert not Case.objects.filter(id=document["id"]).exists()
    assert {p.file for p in excinfo.value.problems} == {str(path)}
    return [(p.path, p.message) for p in excinfo.value.problems]


def test_error_codes_are_stored_by_name_and_derived_from_the_text(tmp_path):
    document = synthetic_case(1)
    document["symptoms"]["description"] = (
        "Ranks died with `NVRM: Xid (PCI:0000:3b:00): 79, pid=1234` and later `Xid 48`."
    )
    document["symptoms"]["error_codes"] = ["ncclsystemerror", "XID 79"]  # any spelling
    stored = imported(tmp_path, document)
    # Stated codes by name in the document's order, then the codes the text shows.
    assert stored["symptoms"]["error_codes"] == ["ncclSystemError", "Xid 79", "Xid 48"]


def test_affected_and_references_are_spelled_out_with_ids_from_urls(tmp_path):
    document = synthetic_case(2)
    document["affected"] = [{"component": "nccl", "introduced": "2.19.1", "fixed": "2.20.3"}]
    document["references"] = [
        {"kind": "issue", "url": "https://github.com/NVIDIA/nccl/issues/1116", "state": "closed"},
        {"kind": "paper", "id": "arXiv:2407.21783", "url": "https://arxiv.org/abs/2407.21783v3"},
    ]
    stored = imported(tmp_path, document)
    assert stored["affected"] == [
        {
            "component": "NCCL",
            "versions": [],
            "introduced": "2.19.1",
            "fixed": "2.20.3",
            "last_affected": None,
        }
    ]
    assert stored["references"] == [
        {
            "kind": "issue",
            "id": "NVIDIA/nccl#1116",
            "url": "https://github.com/NVIDIA/nccl/issues/1116",
            "state": "closed",
            "fixed_in": None,
        },
        {
            "kind": "paper",
            "id": "arXiv:2407.21783",
            "url": "https://arxiv.org/abs/2407.21783v3",
            "state": None,
            "fixed_in": None,
        },
    ]
    keys = set(CaseKey.objects.filter(case_id=document["id"]).values_list("kind", "key"))
    assert {
        ("reference", "nvidia/nccl#1116"),
        ("reference", "arxiv:2407.21783"),
        ("affected", "nccl"),
    } <= keys


def test_reimporting_the_export_changes_nothing(tmp_path):
    document = synthetic_case(3)
    document["symptoms"]["description"] = "Got completion from peer with error 12, vendor err 129."
    document["affected"] = [{"component": "PyTorch", "versions": ["2.10"]}]
    imported(tmp_path / "first", document)
    exported: list[dict[str, Any]] = [dict(d) for d in iter_documents() if d["id"] == document["id"]]
    [path] = write_cases(tmp_path / "second", exported)
    result = import_case_files(paths=[path])
    assert result.unchanged == [document["id"]]
    assert exported[0]["symptoms"]["error_codes"] == ["IBV_WC_RETRY_EXC_ERR", "NET/IB completion error"]


def test_unknown_codes_and_components_are_named_by_json_path(tmp_path):
    document = synthetic_case(4)
    document["symptoms"]["error_codes"] = ["Xid 79", "Xid 7999"]
    document["affected"] = [
        {"component": "NCCL", "fixed": "2.20.3", "last_affected": "2.19.4"},
        {"component": "Nccl-tests-x"},
    ]
    document["references"] = [
        {"kind": "issue", "id": "NVIDIA/nccl#1", "url": "https://github.com/NVIDIA/nccl/issues/2"}
    ]
    problems = problems_of(tmp_path, document)
    paths = [path for path, _ in problems]
    assert paths == [
        "$.symptoms.error_codes[1]",
        "$.affected[0]",
        "$.affected[1].component",
        "$.references[0].id",
    ]
    messages = dict(problems)
    assert messages["$.symptoms.error_codes[1]"].startswith("unknown error code 'Xid 7999' (did you mean")
    assert messages["$.affected[0]"].startswith(
        "give `fixed` (first version with the fix) or `last_affected`"
    )
    assert messages["$.affected[1].component"].startswith("unknown component 'Nccl-tests-x'")
    assert "names another record than its url ('NVIDIA/nccl#2')" in messages["$.references[0].id"]


def test_the_schema_refuses_a_reference_without_kind(tmp_path):
    document = synthetic_case(5)
    document["references"] = [{"url": "https://github.com/NVIDIA/nccl/issues/2", "state": "merged"}]
    problems = problems_of(tmp_path, document)
    assert ("$.references[0]", "'kind' is a required property") in problems
    assert any(path == "$.references[0].state" for path, _ in problems)


def test_the_fixture_cases_carry_the_writers_facts():
    nccl = case_document(Case.objects.with_document().get(id="IL-0602"))
    assert nccl["affected"] == [
        {
            "component": "NCCL",
            "versions": ["2.19.1", "2.19.3", "2.19.4"],
            "introduced": "2.19.1",
            "fixed": "2.20.3",
            "last_affected": None,
        }
    ]
    assert nccl["references"][0]["id"] == "NVIDIA/nccl#1116"
    assert nccl["references"][0]["fixed_in"] == "2.20.3"
    assert case_document(Case.objects.with_document().get(id="IL-0603"))["symptoms"]["error_codes"] == [
        "ENOSPC",
        "ncclSystemError",
        "NCCL shared memory segment failure",
        "NCCL socket connection lost",
    ]


def test_an_error_code_definition_needs_its_source_and_patterns(tmp_path):
    vocab = tmp_path / "vocab.json"
    vocab.write_text(
        '{"error_codes": [{"name": "Xid 999", "description": "A made-up code.", "vendor": "NVIDIA driver",'
        ' "patterns": ["(a+)+\\\\1"]}]}',
        encoding="utf-8",
    )
    [path] = write_cases(tmp_path / "cases", [synthetic_case(6)])
    with pytest.raises(CaseImportError) as excinfo:
        import_case_files(paths=[path], vocab_paths=[vocab])
    problems = [(p.file, p.path, p.message) for p in excinfo.value.problems]
    assert problems[0] == (str(vocab), "$.error_codes[0]", "'source_url' is a required property")
