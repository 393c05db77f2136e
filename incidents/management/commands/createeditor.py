"""`manage.py createeditor NAME [--reviewer | --no-reviewer]`: an account for the admin and
the write API. Run again on an existing account it keeps the account's reviewer role unless
told otherwise, so that updating an e-mail or a password never demotes a reviewer."""

from __future__ import annotations

import argparse
import getpass
import sys

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from rest_framework.authtoken.models import Token

from incidents.roles import ensure_roles
from incidents.workflow import EDITOR, REVIEWER


class Command(BaseCommand):
    help = (
        "Create (or update) an editor account: staff, in the `editor` group (and `reviewer` "
        "with --reviewer; an existing account keeps its reviewer role unless --no-reviewer), "
        "and print its API token. The password is asked for on a terminal; without one "
        "(--no-password, or no terminal) the account signs in by token only."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--email", default="")
        parser.add_argument(
            "--reviewer",
            action=argparse.BooleanOptionalAction,
            default=None,
            help="may also publish, retract and merge (--no-reviewer: an editor only; "
            "neither: a new account is an editor, an existing one keeps its role)",
        )
        parser.add_argument("--no-password", action="store_true", help="token only, no admin sign-in")

    def handle(self, *args, username: str, email: str, reviewer: bool | None, no_password: bool, **options):
        if not username.strip():
            raise CommandError("the username must not be empty")
        groups = ensure_roles()
        user, created = get_user_model().objects.get_or_create(username=username, defaults={"email": email})
        user.is_staff = True
        if email:
            user.email = email
        if not no_password and sys.stdin.isatty():
            password = getpass.getpass(f"Password for {username}: ")
            if password != getpass.getpass("Again: "):
                raise CommandError("the passwords differ")
            user.set_password(password)
        elif created:
            user.set_unusable_password()
        user.save()
        user.groups.add(groups[EDITOR])
        was_reviewer = user.groups.filter(pk=groups[REVIEWER].pk).exists()
        if reviewer:
            user.groups.add(groups[REVIEWER])
        elif reviewer is False:
            user.groups.remove(groups[REVIEWER])
        is_reviewer = was_reviewer if reviewer is None else reviewer
        token, _ = Token.objects.get_or_create(user=user)
        roles = "editor and reviewer" if is_reviewer else "editor"
        self.stdout.write(f"{'Created' if created else 'Updated'} {username} ({roles}).")
        if reviewer is None and was_reviewer:
            self.stdout.write(f"{username} stays a reviewer (--no-reviewer removes the role).")
        elif reviewer is False and was_reviewer:
            self.stdout.write(f"{username} is no longer a reviewer.")
        self.stdout.write(f"API token: {token.key}")
        if not user.has_usable_password():
            # Without a terminal no password was asked for: say so rather than leave the
            # editor to find out at the admin's sign-in page.
            self.stdout.write(
                f"{username} has no password, so cannot sign in to the admin (the API token "
                f"works): set one with `manage.py changepassword {username}` on a terminal."
            )
