"""Every door gives a log hit's `why` as the engine words it (`LogHit.why`), as search hits'
`why` is given: `POST /api/match`, MCP `match_log` and the /match/ page. Log hits carried
none (a new user's walkthrough)."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest

from incidents.search import read_log

pytestmark = pytest.mark.django_db

IB_LOG = (Path(__file__).parents[1] / "search" / "logs" / "torchrun-ib-completion-status-12.log").read_text(
    encoding="utf-8"
)


def test_the_api_mcp_and_page_say_the_engines_why(client, mcp):
    expected = {hit.case.id: hit.why for hit in read_log(IB_LOG, limit=5).hits}
    assert expected["IL-0450"].startswith("Shares: error 12, NCCL error, NET/IB completion error (line 10)")
    body = client.post(
        "/api/match", json.dumps({"text": IB_LOG, "limit": 5}), content_type="application/json"
    ).json()
    assert {hit["id"]: hit["why"] for hit in body["results"]} == expected
    tool = mcp.ok("match_log", text=IB_LOG, limit=5)
    assert {hit["id"]: hit["why"] for hit in tool["hits"]} == expected
    html = client.post("/match/", {"log": IB_LOG}).content.decode()
    shown = re.findall(r'<p class="why">(.*?)</p>', html)
    # As the engine words it; the page links the first hit's id in "Similar to IL-0450, ...".
    assert [unescape(re.sub(r"<[^>]+>", "", why)) for why in shown[:5]] == list(expected.values())
    assert sum(
        'Similar to <a href="/cases/IL-0450">IL-0450</a>, the first hit.' in why for why in shown[:5]
    ) == sum(why.endswith("Similar to IL-0450, the first hit.") for why in expected.values())
