"""Triage names the chip asked about when a case ran on another vendor's (walk #11).

`{"symptoms": "NCCL watchdog timeout after node replacement", "accelerator": "TPU v4"}` said
of IL-0610 "the case ran on NVIDIA H100, not Google": the vendor alone, read as a place.
"""

from __future__ import annotations

import json

import pytest

from tests.mcp.conftest import InMemoryMcp

pytestmark = pytest.mark.django_db

ASKED = {"symptoms": "NCCL watchdog timeout after node replacement", "accelerator": "TPU v4"}


def test_another_vendor_s_chip_is_named_with_its_vendor(client):
    body = client.post("/api/triage", json.dumps(ASKED), content_type="application/json").json()
    context = {case["id"]: case["why"]["context"] for case in body["cases"]}
    assert context["IL-0610"] == ["the case ran on NVIDIA H100, not Google TPU v4"]
    tool = InMemoryMcp().ok("triage", **ASKED)
    assert {case["id"]: case["why"]["context"] for case in tool["cases"]}["IL-0610"] == context["IL-0610"]
