"""HTML pages and feeds carry ETag / Last-Modified tied to the store version and answer
conditional GETs with 304 (issue 14 point 8)."""

from __future__ import annotations

import pytest
from django.utils.http import http_date, parse_http_date

from incidents.models import Case, Term
from incidents.services import import_case_files
from tests.factories import synthetic_case, write_cases

pytestmark = pytest.mark.django_db

PAGES = [
    "/",
    "/cases/",
    "/cases/?q=nccl&topic=training",
    "/cases/IL-0428",
    "/topics/",
    "/topics/interconnect",
    "/vocab/",
    "/vocab/symptom/nccl-timeout",
    "/stats",
    "/feeds/cases.atom",
    "/feeds/topics/interconnect.atom",
    "/feeds/symptoms/nccl-timeout.atom",
]


@pytest.mark.parametrize("url", PAGES)
def test_a_page_answers_its_own_etag_and_last_modified_with_304(client, url):
    first = client.get(url)
    assert first.status_code == 200
    etag, last_modified = first["ETag"], first["Last-Modified"]
    assert etag.startswith('"') and etag.endswith('"')
    newest = Case.objects.order_by("-modified").values_list("modified", flat=True).first()
    # The store's newest change, unless the site's own files changed later.
    assert parse_http_date(last_modified) >= int(newest.timestamp())
    assert first["Cache-Control"] == "no-cache"

    by_etag = client.get(url, headers={"If-None-Match": etag})
    assert (by_etag.status_code, by_etag.content, by_etag["ETag"]) == (304, b"", etag)
    by_date = client.get(url, headers={"If-Modified-Since": last_modified})
    assert (by_date.status_code, by_date.content) == (304, b"")

    earlier = http_date(parse_http_date(last_modified) - 60)
    assert client.get(url, headers={"If-Modified-Since": earlier}).status_code == 200
    assert client.get(url, headers={"If-None-Match": '"another"'}).status_code == 200


def test_an_import_changes_the_validators_of_every_page(client, tmp_path):
    before = {url: client.get(url)["ETag"] for url in PAGES}
    import_case_files(paths=write_cases(tmp_path, [synthetic_case(7)]))
    for url, etag in before.items():
        response = client.get(url, headers={"If-None-Match": etag})
        assert response.status_code == 200, url
        assert response["ETag"] != etag


def test_a_vocabulary_edit_alone_changes_the_term_page(client):
    url = "/vocab/symptom/nccl-timeout"
    etag = client.get(url)["ETag"]
    Term.objects.filter(slug="nccl-timeout").update(description="Changed for the test.")
    response = client.get(url, headers={"If-None-Match": etag})
    assert response.status_code == 200
    assert "Changed for the test." in response.content.decode()


def test_etags_differ_by_query_string(client):
    assert client.get("/cases/?sort=oldest")["ETag"] != client.get("/cases/")["ETag"]


def test_a_304_runs_only_the_store_version_queries(client, django_assert_num_queries):
    etag = client.get("/cases/IL-0428")["ETag"]
    # The case still exists (1), newest case modification and count (1), vocabulary digest (1).
    with django_assert_num_queries(3):
        assert client.get("/cases/IL-0428", headers={"If-None-Match": etag}).status_code == 304
    etag = client.get("/stats")["ETag"]
    with django_assert_num_queries(2):
        assert client.get("/stats", headers={"If-None-Match": etag}).status_code == 304


@pytest.mark.parametrize(
    "url",
    [
        "/cases/IL-9999",
        "/topics/no-such-topic",
        "/vocab/symptom/no-such-term",
        "/feeds/topics/no-such-topic.atom",
        "/feeds/symptoms/no-such-term.atom",
    ],
)
def test_a_missing_page_is_a_404_whatever_the_conditions(client, url):
    etag = client.get("/stats")["ETag"]
    future = "Tue, 24 Jun 2200 18:39:08 GMT"
    for headers in ({}, {"If-Modified-Since": future}, {"If-None-Match": etag}, {"If-None-Match": "*"}):
        response = client.get(url, headers=headers)
        assert response.status_code == 404
        assert not response.has_header("ETag") and not response.has_header("Last-Modified")


def test_redirects_carry_no_validators(client):
    response = client.get("/cases/il-0428")
    assert response.status_code == 301
    assert not response.has_header("ETag") and not response.has_header("Last-Modified")


def test_the_match_form_post_is_never_a_304(client):
    etag = client.get("/match/").get("ETag")
    response = client.post("/match/", {"log": "NCCL WARN Timeout"}, headers={"If-None-Match": etag or "*"})
    assert response.status_code == 200
