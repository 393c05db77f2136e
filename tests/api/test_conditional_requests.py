"""ETag / Last-Modified on every GET, 304 on a matching conditional request, Cache-Control."""

from __future__ import annotations

import pytest
from django.utils.http import http_date, parse_http_date

from incidents.models import Case, Term
from incidents.services import import_case_files
from tests.factories import synthetic_case, write_cases

pytestmark = pytest.mark.django_db

URLS = [
    "/api/cases/",
    "/api/cases/?q=NCCL&symptom=nccl-timeout",
    "/api/cases/IL-0428",
    "/api/cases/IL-0428/similar",
    "/api/topics/",
    "/api/topics/interconnect",
    "/api/vocab/",
    "/api/vocab/symptom",
    "/api/stats",
    "/api/export",
    "/api/changes",
]


@pytest.mark.parametrize("url", URLS)
def test_a_matching_etag_gets_304_with_the_same_headers(client, url, settings):
    first = client.get(url)
    assert first.status_code == 200
    etag = first["ETag"]
    assert etag.startswith('"') and etag.endswith('"')
    newest = Case.objects.order_by("-modified").values_list("modified", flat=True).first()
    assert first["Last-Modified"] == http_date(newest.timestamp())
    assert first["Cache-Control"] == f"public, max-age={settings.API_CACHE_MAX_AGE}"
    again = client.get(url, headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.content == b""
    assert (again["ETag"], again["Cache-Control"]) == (etag, first["Cache-Control"])
    assert client.get(url, headers={"If-None-Match": '"something-else"'}).status_code == 200


@pytest.mark.parametrize("url", ["/api/cases/", "/api/cases/IL-0428", "/api/export"])
def test_if_modified_since_gets_304_until_a_case_changes(client, url, tmp_path):
    last_modified = client.get(url)["Last-Modified"]
    assert client.get(url, headers={"If-Modified-Since": last_modified}).status_code == 304
    earlier = http_date(parse_http_date(last_modified) - 60)
    assert client.get(url, headers={"If-Modified-Since": earlier}).status_code == 200


def test_an_import_changes_every_etag(client, tmp_path):
    before = {url: client.get(url)["ETag"] for url in ["/api/cases/", "/api/cases/IL-0428"]}
    import_case_files(paths=write_cases(tmp_path, [synthetic_case(5)]))
    for url, etag in before.items():
        response = client.get(url, headers={"If-None-Match": etag})
        assert response.status_code == 200
        assert response["ETag"] != etag


def test_a_vocabulary_edit_alone_changes_the_etag(client):
    etag = client.get("/api/vocab/symptom")["ETag"]
    Term.objects.filter(slug="nccl-timeout").update(description="Changed.")
    response = client.get("/api/vocab/symptom", headers={"If-None-Match": etag})
    assert response.status_code == 200
    assert "Changed." in response.content.decode()


def test_etags_differ_by_query(client):
    assert client.get("/api/cases/?page_size=5")["ETag"] != client.get("/api/cases/")["ETag"]


def test_a_304_runs_only_the_version_queries(client, django_assert_num_queries):
    etag = client.get("/api/cases/?q=NCCL")["ETag"]
    # Newest case modification and count; the vocabulary digest.
    with django_assert_num_queries(2):
        assert client.get("/api/cases/?q=NCCL", headers={"If-None-Match": etag}).status_code == 304


def test_head_answers_like_get_without_a_body(client):
    get = client.get("/api/stats")
    head = client.head("/api/stats")
    assert (head.status_code, head.content, head["ETag"]) == (200, b"", get["ETag"])


def test_errors_and_posts_carry_no_validators_and_are_not_stored(client):
    for response in [
        client.get("/api/cases/IL-9999"),
        client.get("/api/cases/?x=1"),
        client.post("/api/match", data={"text": "x"}, content_type="application/json"),
    ]:
        assert not response.has_header("ETag") and not response.has_header("Last-Modified")
        assert response["Cache-Control"] == "no-store"


@pytest.mark.parametrize(
    "url",
    [
        "/api/cases/IL-9999",
        "/api/cases/IL-9999/similar",
        "/api/topics/no-such-topic",
        "/api/cases/?topic=nope",
        "/api/cases/?page_size=1000",
        "/api/stats?x=1",
    ],
)
def test_a_conditional_request_never_turns_an_error_into_a_304(client, url):
    future = "Tue, 24 Jun 2200 18:39:08 GMT"
    etag = client.get("/api/stats")["ETag"]
    for headers in ({"If-Modified-Since": future}, {"If-None-Match": etag}, {"If-None-Match": "*"}):
        assert client.get(url, headers=headers).status_code in (400, 404)
