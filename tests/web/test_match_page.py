"""`/match/`: paste a log, get the cases with the same failure signatures."""

from __future__ import annotations

import re

import pytest
from django.conf import settings

from tests.conftest import ids_quoting

from .html import element, text_of

pytestmark = pytest.mark.django_db

# kubectl describe output from a cluster whose pods cannot pull their images (IL-0459).
PULL_LOG = """\
Events:
  Type     Reason     Age                From               Message
  ----     ------     ----               ----               -------
  Normal   Scheduled  12m                default-scheduler  Successfully assigned jobs/w7 to node-17
  Warning  Failed     11m (x4 over 12m)  kubelet            Failed to pull image "reg/train:v3": timeout
  Normal   BackOff    2m (x40 over 11m)  kubelet            Back-off pulling image "registry.local/train:v3"
  Warning  Failed     2m (x40 over 11m)  kubelet            Error: ImagePullBackOff
"""


def test_the_form_is_shown_on_get(client):
    html = client.get("/match/").content.decode()
    assert '<form method="post" action="/match/"' in html
    assert '<label for="log">Log text</label>' in html
    # The log's field is `text`, as POST /api/match and MCP match_log name it (it was `log`).
    assert '<textarea id="log" name="text"' in html


def test_a_form_made_before_still_posts_its_log_as_log(client):
    # A page (or a script) from before the rename posts `log`: read it as `text` was.
    by_old_name = client.post("/match/", {"log": PULL_LOG})
    assert by_old_name.status_code == 200
    hits = element(by_old_name.content.decode(), "section", class_="log-hits")
    assert re.findall(r'<span class="case-id">(IL-\d+)</span>', hits)[0] == "IL-0459"
    # `text` wins when both are sent; a blank `text` is a blank log, whatever `log` says.
    both = client.post("/match/", {"text": PULL_LOG, "log": "all good"}).content.decode()
    assert element(both, "section", class_="log-hits") == hits
    assert client.post("/match/", {"text": " ", "log": PULL_LOG}).status_code == 400


def test_head_answers_as_get_does(client):
    # It was a 405 (Allow: GET, POST) where every other page answers HEAD.
    get, head = client.get("/match/"), client.head("/match/")
    assert (
        (head.status_code, head["Content-Type"])
        == (get.status_code, get["Content-Type"])
        == (
            200,
            "text/html; charset=utf-8",
        )
    )
    assert head.content == b""
    assert client.put("/match/")["Allow"] == "GET, HEAD, POST"


def test_a_pasted_log_ranks_the_case_with_its_signature_first(client):
    response = client.post("/match/", {"text": PULL_LOG})
    assert response.status_code == 200
    html = response.content.decode()
    hits = element(html, "section", class_="log-hits")
    assert re.findall(r'<span class="case-id">(IL-\d+)</span>', hits)[0] == "IL-0459"
    lines = text_of(element(hits, "table"))
    assert "7 Warning Failed 2m (x40 over 11m) kubelet Error: ImagePullBackOff" in lines
    assert "ImagePullBackOff" in html.split("<textarea")[1]  # the log stays in the box


def test_an_empty_log_is_refused_with_a_message(client):
    response = client.post("/match/", {"text": "  \n "})
    assert response.status_code == 400
    html = response.content.decode()
    assert "Paste some log lines first" in html and 'aria-invalid="true"' in html


def test_a_log_without_known_signatures_says_so(client):
    html = client.post("/match/", {"text": "all good\nnothing to see"}).content.decode()
    assert "No known signature found" in html


def test_a_log_over_the_limit_is_refused_with_its_size_not_cut(client):
    # The failing line sits at the end, where a cut would have dropped it.
    log = "filler line\n" * 130_000 + "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\n"
    response = client.post("/match/", {"text": log})
    assert response.status_code == 400
    html = response.content.decode()
    assert "The log is 1.6 MB; paste at most 1 MB, the lines around the failure are enough." in html
    assert 'class="log-hits"' not in html


def test_a_log_over_the_limit_stays_in_the_box_to_be_trimmed(client):
    log = "filler line\n" * 100_000 + "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\n"
    response = client.post("/match/", {"text": log})
    assert response.status_code == 400
    assert response.context["log"] == log
    assert "Your log is still in the box: remove its lines before the failure" in response.content.decode()
    [box] = re.findall(r'<textarea id="log"[^>]*>(.*?)</textarea>', response.content.decode(), re.S)
    assert box.count("filler line") == 100_000 and box.endswith("fallen off the bus.\n")


def test_a_bare_net_ib_completion_error_finds_the_roce_case(client):
    line = "NET/IB : Got completion with error 12, opcode 0, len 0, vendor err 129"
    html = client.post("/match/", {"text": line}).content.decode()
    hits = element(html, "section", class_="log-hits")
    listed = re.findall(r'<span class="case-id">(IL-\d+)</span>', hits)
    # The cases quoting this completion error (IL-0450 over RoCE, IL-0485 on Azure IB VMs) come
    # before cases that only share the NCCL error tag.
    quoting = ids_quoting("with error 12")
    assert "IL-0450" in quoting
    assert set(listed[: len(quoting)]) == set(quoting)


def test_the_readme_names_the_page_as_the_page_names_itself(client):
    # The README called it "log match" (a new user's walkthrough); the page is "Match a log".
    name = text_of(element(client.get("/match/").content.decode(), "h1"))
    assert name == "Match a log"
    readme = (settings.BASE_DIR / "README.md").read_text()
    assert f"| {name.lower()} | [match-1280.png]" in readme
    assert f"http://127.0.0.1:8000/match/ — {name}: paste a log" in readme
    assert "log match |" not in readme
