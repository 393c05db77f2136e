"""The editorial roles as Django groups (see `workflow` for what each may do)."""

from __future__ import annotations

from django.contrib.auth.models import Group

from .workflow import ROLES


def ensure_roles() -> dict[str, Group]:
    """Create the `editor` and `reviewer` groups if missing; returns them by name."""
    return {name: Group.objects.get_or_create(name=name)[0] for name in ROLES}
