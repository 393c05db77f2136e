"""Hostile input everywhere a user can type or send it: query strings, every filter of the
facet registry on pages and API, page numbers, ids, JSON bodies (match, triage, affected,
proposals), pasted logs, proposal forms, upstream-record lookups (`/api/lookup`, `/refs/`),
error codes (`/codes/`, `/api/codes/`, their feed) and "am I affected?" (`/api/affected`,
`/affected/`). Each gets a 4xx with a clear message or a harmless result, never
a 500 or a stack trace, and the database is unchanged. Runs on the backend under test
(SQLite or PostgreSQL)."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from incidents.models import Term
from incidents.proposals.models import Proposal
from incidents.selectors.facets import FACETS
from incidents.selectors.params import DATE_PARAMS
from incidents.selectors.scale import BOUND_PARAMS
from tests.factories import NEW_PROPOSAL as PROPOSAL
from tests.reliability.hostile import (
    HOSTILE_BODIES,
    HOSTILE_TEXT,
    RAW_QUERY_VALUES,
    published_state,
    store_state,
)

# Hundreds of requests from one address: with the limits on, most would be 429s that test
# nothing (tests/api/test_throttling.py and the load test cover the limits).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_rate_limits")]

# Every filter a case list reads, from the registry itself: a facet added later is covered.
FILTER_PARAMS = [
    *(spec.name for spec in FACETS),
    *(spec.exclude_param for spec in FACETS),
    *DATE_PARAMS,
    *BOUND_PARAMS,
]
# Where a value can be placed; `{}` is replaced by the percent-encoded value. The API takes
# each filter alone, so each reaches the database on its own; the page (the same parser, a
# costlier answer) takes them all at once, and must name every refused one.
EVERY_FILTER = "&".join(f"{param}={{}}" for param in FILTER_PARAMS)
GET_TARGETS = [
    *(f"/api/cases/?{param}={{}}" for param in FILTER_PARAMS),
    f"/cases/?{EVERY_FILTER}",
    "/cases/?symptom={}",
    "/cases/?min_nodes={}",
    "/cases/?q={}",
    "/cases/?exclude_component={}&topic=training",
    "/cases/?year={}&page={}&sort={}",
    "/cases/{}",
    "/cases/{}/history",
    "/topics/{}",
    "/vocab/symptom/{}",
    "/feeds/topics/{}.atom",
    "/proposals/{}",
    "/api/cases/?q={}",
    "/api/cases/?page={}&page_size={}&ordering={}",
    "/api/cases/{}",
    "/api/cases/{}/history",
    "/api/cases/IL-0428/similar?limit={}",
    "/api/topics/{}",
    "/api/vocab/{}",
    "/api/changes?since={}&limit={}",
    "/api/changes?cursor={}",
    "/api/export?since={}",
    "/api/export?{}=1",
    "/api/proposals/{}",
    "/api/proposals/lookalikes?title={}",
    "/api/proposals/lookalikes?text={}&url={}",
    # Upstream records, error codes and "am I affected?" (issue 15).
    "/api/lookup?ref={}",
    "/api/lookup?url={}",
    "/api/lookup?ref=NVIDIA/nccl%231116&{}=1",
    "/refs/?ref={}",
    "/refs/?url={}",
    "/codes/{}",
    "/codes/ibv-wc-retry-exc-err?page={}",
    "/api/codes/{}",
    "/api/codes/xid-79?{}=1",
    "/feeds/codes/{}.atom",
    "/affected/?versions={}",
    "/affected/?versions=NCCL%20{}",
    "/affected/?versions={}%202.19.3%0APyTorch%20{}",
]
ALL_VALUES = [
    (kind, quote(value, safe="", errors="surrogatepass")) for kind, value in HOSTILE_TEXT
] + RAW_QUERY_VALUES

# `PROPOSAL` is accepted as it is; each test puts the hostile value into some of these fields.
PROPOSAL_FIELDS = [("title", "text"), ("organization",), ("published",), ("source_urls",), ("topic",)]


def assert_clean(response, where: str) -> None:
    status = response.status_code
    assert status < 500, f"{where}: {status}"
    assert status != 429, f"{where}: throttled, so nothing was tested"
    body = response.content.decode("utf-8", "replace") if not response.streaming else ""
    assert "Traceback" not in body and 'File "/' not in body, where
    if response.get("Content-Type", "").startswith("text/html"):
        assert "<script>alert(1)</script>" not in body, where
    if where.startswith(("GET /api/", "POST /api/")) and status >= 400:
        assert response["Content-Type"] == "application/problem+json", where
        assert response.json()["detail"], where


@pytest.mark.parametrize(
    "target", GET_TARGETS, ids=[t if len(t) < 80 else "/cases/?every filter" for t in GET_TARGETS]
)
def test_every_hostile_value_in_every_parameter_is_answered_cleanly(client, target):
    before = store_state()
    for kind, encoded in ALL_VALUES:
        if len(encoded) > 100_000 and "{}" in target.split("?")[0]:
            continue  # a megabyte path segment is refused by any server before Django
        url = target.replace("{}", encoded)
        response = client.get(url)
        assert_clean(response, f"GET {target} [{kind}]")
    assert store_state() == before


def test_the_generated_targets_cover_every_facet_and_bound():
    # Guards the lists above: the registry really fed them (both twins, every bound).
    expected = {"symptom", "exclude_symptom", "scale", "exclude_scale", "published_after", "published_before"}
    expected |= {"min_accelerators", "max_accelerators", "min_nodes", "max_nodes"}
    api = {t.split("?")[1].split("=")[0] for t in GET_TARGETS if t.startswith("/api/cases/?")}
    page = {pair.split("=")[0] for pair in EVERY_FILTER.split("&")}
    assert expected <= api and expected <= page
    assert api >= page == set(FILTER_PARAMS) and len(FILTER_PARAMS) == 2 * len(FACETS) + 6


def test_the_page_names_every_refused_filter(client):
    # The page's single target is only as good as its answer: each refusal is named.
    response = client.get("/cases/?" + EVERY_FILTER.replace("{}", "bogus"))
    assert response.status_code == 200
    body = response.content.decode()
    assert "Some of the parameters could not be used and were left out" in body
    # One message per filter, each quoting the value it could not use.
    assert body.count("“bogus”") == len(FILTER_PARAMS)


@pytest.mark.parametrize("path", ["/api/match", "/api/triage", "/api/affected"])
@pytest.mark.parametrize("kind,body,content_type", HOSTILE_BODIES, ids=[b[0] for b in HOSTILE_BODIES])
def test_hostile_json_bodies_are_4xx_or_harmless(client, path, kind, body, content_type):
    before = store_state()
    response = client.generic("POST", path, body, content_type=content_type)
    assert_clean(response, f"POST {path} [{kind}]")
    assert store_state() == before


@pytest.mark.parametrize("kind,value", HOSTILE_TEXT, ids=[k for k, _ in HOSTILE_TEXT])
def test_hostile_pasted_logs_are_answered_cleanly(client, kind, value):
    before = store_state()
    api = client.post("/api/match", {"text": value}, content_type="application/json")
    assert_clean(api, f"POST /api/match [{kind}]")
    # As a browser form sends it; a lone surrogate goes out as the bytes it would be in UTF-8.
    form = "log=" + quote(value, safe="", errors="surrogatepass")
    page = client.generic("POST", "/match/", form, content_type="application/x-www-form-urlencoded")
    assert_clean(page, f"POST /match/ [{kind}]")
    body = page.content.decode()
    if value.strip():
        # The log was read: the answer section, not the empty-box error.
        assert page.status_code == 200, (kind, page.status_code)
        assert "the box was empty" not in body and 'class="log-hits"' in body, kind
    else:
        assert page.status_code == 400 and "the box was empty" in body, kind
    assert store_state() == before


@pytest.mark.parametrize("kind,value", HOSTILE_TEXT, ids=[k for k, _ in HOSTILE_TEXT])
def test_hostile_triage_fields_are_answered_cleanly(client, kind, value):
    before = store_state()
    for field in ("symptoms", "text"):
        response = client.post("/api/triage", {field: value}, content_type="application/json")
        assert_clean(response, f"POST /api/triage {field} [{kind}]")
        if response.status_code == 200:
            assert isinstance(response.json()["known"], bool), kind
    assert store_state() == before


@pytest.mark.parametrize("kind,value", HOSTILE_TEXT, ids=[k for k, _ in HOSTILE_TEXT])
def test_hostile_component_versions_are_answered_cleanly(client, kind, value):
    """`POST /api/affected` with the value as a version, as a component, as both and in
    the `versions` envelope; the `/affected/` form with it on a line (as a browser sends
    the form, and posted, which the form does not do)."""
    before = store_state()
    bodies = [
        {"NCCL": value},
        {value: "2.19.3"},
        {value: value, "NCCL": "2.19.3"},
        {"versions": {"PyTorch": value}},
        {"versions": value},
    ]
    for body in bodies:
        response = client.generic(
            "POST", "/api/affected", json.dumps(body).encode(), content_type="application/json"
        )
        assert_clean(response, f"POST /api/affected {body!r:.60} [{kind}]")
        assert response.status_code in (200, 400), (kind, body, response.status_code)
    encoded = quote(f"NCCL {value}\n{value} 2.19.3", safe="", errors="surrogatepass")
    for method in ("GET", "POST"):
        if method == "GET":
            page = client.get(f"/affected/?versions={encoded}")
        else:
            page = client.generic(
                "POST", "/affected/", f"versions={encoded}", content_type="application/x-www-form-urlencoded"
            )
        assert_clean(page, f"{method} /affected/ [{kind}]")
    assert store_state() == before


def post_proposals(client, fields: tuple[str, ...], value: str) -> list:
    """The proposal with `value` in `fields`, to the API (JSON) and to the form (as a browser
    sends it: the topic as its term's key, a lone surrogate as its UTF-8 bytes)."""
    api_body = {**PROPOSAL, **dict.fromkeys(fields, value)}
    api = client.generic(
        "POST", "/api/proposals/", json.dumps(api_body).encode(), content_type="application/json"
    )
    topic = str(Term.objects.get(facet="topic", slug=PROPOSAL["topic"]).pk)
    form_body = {**PROPOSAL, "topic": topic, **dict.fromkeys(fields, value)}
    encoded = "&".join(f"{k}={quote(v, safe='', errors='surrogatepass')}" for k, v in form_body.items())
    form = client.generic("POST", "/propose/", encoded, content_type="application/x-www-form-urlencoded")
    return [("POST /api/proposals/", api), ("POST /propose/", form)]


@pytest.mark.parametrize("fields", PROPOSAL_FIELDS, ids=["+".join(f) for f in PROPOSAL_FIELDS])
def test_hostile_proposals_are_refused_or_queued_as_drafts(client, fields):
    """A proposal may be accepted (it then waits, as a draft, for review): the published
    cases and the vocabulary never change, and each proposal stored is one a 201 or a
    redirect announced."""
    before, proposals, accepted = published_state(), Proposal.objects.count(), 0
    for kind, value in HOSTILE_TEXT:
        for where, response in post_proposals(client, fields, value):
            assert_clean(response, f"{where} {fields} [{kind}]")
            if response.status_code in (201, 302):
                accepted += 1
            else:
                # 413: the 1 MB value is past the form body limit (the site says so).
                assert response.status_code in (400, 413), (where, kind, response.status_code)
    assert published_state() == before
    assert Proposal.objects.count() == proposals + accepted
    if fields == ("title", "text"):
        assert accepted > 0  # plain words ("zero", "1.5") are a fine title: queued, not refused
