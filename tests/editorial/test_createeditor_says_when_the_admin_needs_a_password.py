"""`createeditor` run without a terminal (a script, `docker exec` without -t) asks for no
password and said only "Created rita": the account then failed at the admin's sign-in page
with nothing saying why. It now says the account has no password and how to set one."""

from __future__ import annotations

import io
import sys

import pytest
from django.core.management import call_command
from django.test import Client

pytestmark = pytest.mark.django_db


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def create(monkeypatch, capsys, *arguments: str, stdin: io.StringIO) -> str:
    monkeypatch.setattr(sys, "stdin", stdin)
    call_command("createeditor", *arguments)
    return capsys.readouterr().out


def test_without_a_terminal_it_says_the_admin_sign_in_needs_a_password(monkeypatch, capsys):
    out = create(monkeypatch, capsys, "rita", "--reviewer", stdin=io.StringIO())
    assert out.splitlines()[0] == "Created rita (editor and reviewer)."
    assert out.splitlines()[2] == (
        "rita has no password, so cannot sign in to the admin (the API token works): "
        "set one with `manage.py changepassword rita` on a terminal."
    )
    assert not Client().login(username="rita", password="")


def test_no_password_asked_for_says_so_too(monkeypatch, capsys):
    out = create(monkeypatch, capsys, "bot", "--no-password", stdin=Terminal())
    assert "bot has no password, so cannot sign in to the admin" in out


def test_an_account_given_a_password_on_a_terminal_gets_no_such_note(monkeypatch, capsys):
    monkeypatch.setattr("getpass.getpass", lambda prompt="": "a long enough password")
    out = create(monkeypatch, capsys, "edna", stdin=Terminal())
    assert out.splitlines()[0] == "Created edna (editor)."
    assert "no password" not in out
    assert Client().login(username="edna", password="a long enough password")
    # Run again without a terminal: the password is kept, so still no note.
    assert "no password" not in create(monkeypatch, capsys, "edna", stdin=io.StringIO())
