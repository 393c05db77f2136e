"""`/affected/` shows each case's first remediation step as the case writes it: a fix is
not labelled a workaround, and a step that says "Workaround:" itself is not labelled twice."""

from __future__ import annotations

import re

import pytest

from tests.conftest import load_fixture

from .html import text_of

pytestmark = pytest.mark.django_db


def remediation_of(client, versions: str, case_id: str) -> str:
    html = client.get("/affected/", {"versions": versions}).content.decode()
    [card] = [
        c for c in re.findall(r'<article class="case-card">(.*?)</article>', html, re.S) if case_id in c
    ]
    [prose] = re.findall(r'<div class="prose">(.*?)</div>', card, re.S)
    return text_of(prose)


def test_a_step_naming_itself_a_workaround_is_labelled_once(client):
    step = load_fixture("IL-0463")["remediation"][0]
    assert step.startswith("Workaround: run with `enforce_eager=True`")
    shown = remediation_of(client, "vllm 0.3.0", "IL-0463")
    assert shown.startswith("First remediation step of the case: Workaround: run with enforce_eager=True")
    assert shown.count("Workaround") == 1


def test_a_fix_is_not_called_a_workaround(client):
    assert (
        load_fixture("IL-0497")["remediation"][0]
        == "Upgrade NCCL to 2.29.3 or later (the team moved to 2.30.7)."
    )
    shown = remediation_of(client, "NCCL 2.28.9", "IL-0497")
    assert (
        shown
        == "First remediation step of the case: Upgrade NCCL to 2.29.3 or later (the team moved to 2.30.7)."
    )
