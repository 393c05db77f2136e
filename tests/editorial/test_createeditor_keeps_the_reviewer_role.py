"""`createeditor NAME` run again on a reviewer (to set a password or an e-mail) said
"Updated rita (editor)." as though the role had gone: it keeps the role and says so, and
only `--no-reviewer` removes it."""

from __future__ import annotations

import io
import sys

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def create(monkeypatch, capsys, *arguments: str) -> list[str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO())  # no terminal: no password asked
    call_command("createeditor", *arguments)
    return capsys.readouterr().out.splitlines()


def groups(username: str) -> list[str]:
    user = get_user_model().objects.get(username=username)
    return sorted(user.groups.values_list("name", flat=True))


def test_run_again_without_a_role_option_keeps_a_reviewer_a_reviewer(monkeypatch, capsys):
    create(monkeypatch, capsys, "rita", "--reviewer")
    out = create(monkeypatch, capsys, "rita", "--email", "rita@example.org")
    assert out[:2] == [
        "Updated rita (editor and reviewer).",
        "rita stays a reviewer (--no-reviewer removes the role).",
    ]
    assert groups("rita") == ["editor", "reviewer"]


def test_no_reviewer_removes_the_role_and_says_so(monkeypatch, capsys):
    create(monkeypatch, capsys, "rita", "--reviewer")
    out = create(monkeypatch, capsys, "rita", "--no-reviewer")
    assert out[:2] == ["Updated rita (editor).", "rita is no longer a reviewer."]
    assert groups("rita") == ["editor"]


def test_a_new_account_without_a_role_option_is_an_editor(monkeypatch, capsys):
    out = create(monkeypatch, capsys, "edna")
    assert out[0] == "Created edna (editor)."
    assert groups("edna") == ["editor"]
