"""GET /api/export: every published case as a streamed JSON Lines document."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.management import call_command

from incidents.services import import_case_files
from tests.factories import synthetic_case, write_cases

from .fixture_facts import published_documents

pytestmark = pytest.mark.django_db


def lines_of(response) -> list[str]:
    assert response.streaming
    text = b"".join(response.streaming_content).decode("utf-8")
    assert text.endswith("\n")
    return text.splitlines()


def test_it_streams_the_documents_export_cases_writes(client, tmp_path):
    import_case_files(paths=write_cases(tmp_path / "in", [synthetic_case(3, status="retracted")]))
    response = client.get("/api/export")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/jsonl; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="incidentlib-cases.jsonl"'
    lines = lines_of(response)
    ids = [json.loads(line)["id"] for line in lines]
    assert ids == sorted(d["id"] for d in published_documents())  # the retracted one is left out
    call_command("export_cases", str(tmp_path / "out"), stdout=open("/dev/null", "w"))
    for line in lines:
        document = json.loads(line)
        written = (tmp_path / "out" / f"{document['id']}.json").read_text(encoding="utf-8")
        assert json.loads(written) == document
        assert list(json.loads(written)) == list(document)  # same key order too


def test_it_reads_the_store_a_batch_at_a_time(client, django_assert_max_num_queries, monkeypatch):
    from incidents import exporting

    monkeypatch.setattr(exporting, "EXPORT_BATCH_SIZE", 10)
    response = client.get("/api/export")
    total = len(published_documents())
    batches = -(-total // 10) + 1  # the last, empty batch ends the stream
    # 2 for the validators; each batch is 7 queries (cases + 6 prefetches).
    with django_assert_max_num_queries(batches * 7):
        assert len(lines_of(response)) == total


def test_under_asgi_the_stream_is_an_async_iterator_read_lazily():
    from asgiref.sync import async_to_sync
    from django.test import AsyncClient

    async def fetch():
        response: Any = await AsyncClient().get("/api/export")  # a StreamingHttpResponse
        assert response.status_code == 200
        assert response.is_async  # Django would otherwise read a sync iterator whole first
        return b"".join([chunk async for chunk in response.streaming_content])

    lines = async_to_sync(fetch)().decode("utf-8").splitlines()
    assert [json.loads(line)["id"] for line in lines] == sorted(d["id"] for d in published_documents())


def test_head_reads_no_case(client, django_assert_num_queries):
    # Only the 2 version queries for the validators.
    with django_assert_num_queries(2):
        response = client.head("/api/export")
        assert b"".join(response.streaming_content) == b""
    assert response["ETag"] == client.get("/api/export")["ETag"]
