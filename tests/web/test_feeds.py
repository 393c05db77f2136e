"""Atom feeds: all cases, per topic, per symptom tag."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html import unescape

import pytest

from incidents.models import Case
from incidents.views.feeds import FEED_LENGTH
from tests.api.fixture_facts import has_symptom, ids_where

pytestmark = pytest.mark.django_db
ATOM = "{http://www.w3.org/2005/Atom}"


def entries(client, url: str) -> tuple[ET.Element, list[ET.Element]]:
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    feed = ET.fromstring(response.content)
    return feed, feed.findall(f"{ATOM}entry")


def test_the_all_cases_feed_lists_published_cases_latest_added_first(client):
    feed, items = entries(client, "/feeds/cases.atom")
    assert feed.find(f"{ATOM}title").text == "incidentlib: new incident cases"
    newest = list(Case.objects.published().order_by("-added", "-id").values_list("id", flat=True)[:50])
    assert [e.find(f"{ATOM}title").text.split(":")[0] for e in items] == newest
    first = items[0]
    case = Case.objects.get(id=newest[0])
    assert first.find(f"{ATOM}link").get("href") == f"http://testserver/cases/{case.id}"
    assert first.find(f"{ATOM}published").text == case.added.isoformat()
    assert first.find(f"{ATOM}updated").text == case.modified.isoformat()
    assert first.find(f"{ATOM}author/{ATOM}name").text == case.organization
    assert first.find(f"{ATOM}summary").get("type") == "html"
    assert {c.get("term") for c in first.findall(f"{ATOM}category")} == {
        t.name for t in (*case.topics, *case.symptom_tags)
    }


def test_a_topic_feed_holds_only_that_topics_cases(client):
    feed, items = entries(client, "/feeds/topics/checkpoint-storage.atom")
    expected = (
        Case.objects.published().filter(term_links__term__slug="checkpoint-storage").order_by("-added", "-id")
    )
    assert [e.find(f"{ATOM}title").text.split(":")[0] for e in items] == [c.id for c in expected]
    assert feed.find(f"{ATOM}title").text == "incidentlib: cases about Checkpoint and storage failures"


def test_a_symptom_feed_holds_only_cases_with_that_symptom(client):
    _, items = entries(client, "/feeds/symptoms/inference-hang.atom")
    tagged = ids_where(has_symptom("Inference hang"))
    assert {"IL-0463", "IL-0464"} <= set(tagged) and len(tagged) <= FEED_LENGTH
    assert sorted(e.find(f"{ATOM}title").text.split(":")[0] for e in items) == tagged


@pytest.mark.parametrize(
    "url", ["/feeds/topics/nope.atom", "/feeds/symptoms/nope.atom", "/feeds/symptoms/training.atom"]
)
def test_unknown_feeds_are_404(client, url):
    assert client.get(url).status_code == 404


def notice_of(response) -> str:
    [notice] = re.findall(r'<p class="notice">(.*?)</p>', response.content.decode())
    return notice


def test_an_unknown_topic_feed_says_what_the_topic_page_says(client):
    # It gave the site's general 404, "Case ids look like IL-0428", which no topic feed is
    # about (a new user's walkthrough).
    feed, page = client.get("/feeds/topics/interconect.atom"), client.get("/topics/interconect")
    assert feed.status_code == page.status_code == 404
    said = "No topic called “interconect”. Did you mean Interconnect faults?"
    assert notice_of(feed) == notice_of(page) == said
    assert 'href="/topics/interconnect">Interconnect faults</a>' in feed.content.decode()
    assert "IL-0428" not in feed.content.decode()


def test_a_former_topic_s_feed_says_it_is_a_workload_now(client):
    response = client.get("/feeds/topics/training.atom")
    assert response.status_code == 404
    # Straight quotes, as MCP get_topic says it (TopicLookup.moved, one wording).
    assert unescape(notice_of(response)) == "'training' is a workload now, not a topic."
    assert 'href="/vocab/workload/training">Training</a>' in response.content.decode()


# A name with a space (`Interconnect%20faults`) was a bare "Nothing lives at" 404: the
# URL took only slug characters, so no lookup ran.
@pytest.mark.parametrize("slug", ["Interconnect", "networking", "Interconnect%20faults"])
def test_a_topic_feed_named_otherwise_redirects_to_the_slug_s(client, slug):
    response = client.get(f"/feeds/topics/{slug}.atom")
    assert (response.status_code, response["Location"]) == (301, "/feeds/topics/interconnect.atom")


@pytest.mark.parametrize(
    ("url", "said", "closest"),
    [
        (
            "/feeds/symptoms/trainig-hang.atom",
            "No symptom called “trainig-hang”. Did you mean Training hang?",
            'href="/vocab/symptom/training-hang">Training hang</a>',
        ),
        (
            "/feeds/codes/xid-97.atom",
            "No error code called “xid-97”. Did you mean Xid 79, Xid 94 or Xid 95?",
            'href="/codes/xid-79">Xid 79</a>',
        ),
        (
            "/feeds/codes/Xid%2097.atom",
            "No error code called “Xid 97”. Did you mean Xid 79, Xid 94 or Xid 95?",
            'href="/codes/xid-79">Xid 79</a>',
        ),
    ],
)
def test_an_unknown_symptom_or_code_feed_names_the_closest(client, url, said, closest):
    # It gave the site's general 404, "Case ids look like IL-0428", as the topic feeds did.
    response = client.get(url)
    assert response.status_code == 404
    assert notice_of(response) == said
    assert closest in response.content.decode()
    assert "IL-0428" not in response.content.decode()


@pytest.mark.parametrize(
    ("url", "feed"),
    [
        ("/feeds/symptoms/Training-Hang.atom", "/feeds/symptoms/training-hang.atom"),
        ("/feeds/codes/Xid-79.atom", "/feeds/codes/xid-79.atom"),
        ("/feeds/codes/Xid%2079.atom", "/feeds/codes/xid-79.atom"),
        ("/feeds/symptoms/NCCL%20timeout.atom", "/feeds/symptoms/nccl-timeout.atom"),
    ],
)
def test_a_symptom_or_code_feed_named_otherwise_redirects_to_the_slug_s(client, url, feed):
    response = client.get(url)
    assert (response.status_code, response["Location"]) == (301, feed)


def test_pages_announce_the_feed(client):
    html = client.get("/").content.decode()
    assert (
        '<link rel="alternate" type="application/atom+xml" title="All new cases" href="/feeds/cases.atom">'
    ) in html


def test_entry_ids_are_absolute_tag_uris(client):
    _feed, items = entries(client, "/feeds/cases.atom")
    ids = [entry.find(f"{ATOM}id").text for entry in items]
    assert len(ids) == len(set(ids)) > 30
    assert all(re.fullmatch(r"tag:incidentlib,2026:IL-\d{4}", i or "") for i in ids)
