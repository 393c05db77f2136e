"""A proposal from a reader: a new case (which lands as a draft case) or a correction."""

from __future__ import annotations

import secrets

from django.db import models
from django.urls import reverse


def new_token() -> str:
    return secrets.token_urlsafe(24)


class Proposal(models.Model):
    """One proposal in the review queue. `token` is the proposer's private status link."""

    class Kind(models.TextChoices):
        NEW = "new", "New case"
        CORRECTION = "correction", "Correction"

    class Status(models.TextChoices):
        RECEIVED = "received"
        IN_REVIEW = "in_review", "In review"
        ACCEPTED = "accepted"
        DECLINED = "declined"

    token = models.CharField(max_length=64, unique=True, default=new_token, editable=False)
    kind = models.CharField(max_length=12, choices=Kind.choices)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.RECEIVED, db_index=True)
    # A new case: the draft made from the proposal. A correction: the case it corrects.
    case = models.ForeignKey(
        "incidents.Case", on_delete=models.PROTECT, null=True, blank=True, related_name="proposals"
    )
    title = models.CharField(max_length=300)
    text = models.TextField(help_text="What happened (new case) or what is wrong (correction).")
    source_urls = models.JSONField(default=list)
    contact = models.CharField(max_length=200, blank=True)
    # A new case naming an organization the vocabulary lacks: the name as sent (kept), and the
    # term a reviewer maps it to before accepting (`services.accept` refuses until one is
    # known); the draft names `services.UNNAMED_ORGANIZATION` meanwhile.
    organization_named = models.CharField(
        "Organization as proposed",
        max_length=200,
        blank=True,
        help_text="The organization the proposer named, not in the vocabulary when sent.",
    )
    organization_term = models.ForeignKey(
        "incidents.Term",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        limit_choices_to={"facet": "organization"},
        verbose_name="Organization it is",
        help_text=(
            "For an organization as proposed: the vocabulary's organization it is. Choose it, or "
            "add it with +, save, then accept (accepting names it in the case)."
        ),
    )
    decline_reason = models.TextField(blank=True)
    lookalikes = models.JSONField(default=list, help_text="Existing cases it looked like when sent.")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.title}"

    def get_absolute_url(self) -> str:
        return reverse("incidents:proposal-status", args=[self.token])
