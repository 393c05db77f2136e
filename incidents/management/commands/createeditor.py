"""`manage.py createeditor NAME [--reviewer]`: an account for the admin and the write API."""

from __future__ import annotations

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
        "with --reviewer), and print its API token. The password is asked for on a terminal; "
        "without one (--no-password, or no terminal) the account signs in by token only."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--email", default="")
        parser.add_argument("--reviewer", action="store_true", help="may also publish, retract and merge")
        parser.add_argument("--no-password", action="store_true", help="token only, no admin sign-in")

    def handle(self, *args, username: str, email: str, reviewer: bool, no_password: bool, **options):
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
        if reviewer:
            user.groups.add(groups[REVIEWER])
        token, _ = Token.objects.get_or_create(user=user)
        roles = "editor and reviewer" if reviewer else "editor"
        self.stdout.write(f"{'Created' if created else 'Updated'} {username} ({roles}).")
        self.stdout.write(f"API token: {token.key}")
        if not user.has_usable_password():
            # Without a terminal no password was asked for: say so rather than leave the
            # editor to find out at the admin's sign-in page.
            self.stdout.write(
                f"{username} has no password, so cannot sign in to the admin (the API token "
                f"works): set one with `manage.py changepassword {username}` on a terminal."
            )
