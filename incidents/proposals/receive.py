"""Taking in a proposal from either door (the form or the API): the per-client rate limit
and the hand-off to the services."""

from __future__ import annotations

from typing import Any

from api.throttling import count_request

from . import services
from .models import Proposal

SCOPE = "proposals"


class RateLimited(Exception):
    def __init__(self, wait: int):
        self.wait = wait
        super().__init__(f"try again in {wait} seconds")


def check_rate(request: Any) -> None:
    """Count one proposal for the client address; raise RateLimited past
    `DEFAULT_THROTTLE_RATES["proposals"]`. The API's own throttle does the counting, so the
    form and the API share one budget per client."""
    if (wait := count_request(request, SCOPE)) is not None:
        raise RateLimited(wait)


def receive(data: dict[str, Any]) -> Proposal:
    """A checked `ProposalForm.cleaned_data` into the review queue."""
    if data["kind"] == Proposal.Kind.CORRECTION:
        return services.propose_correction(
            case=data["case"],
            title=data["title"],
            text=data["text"],
            source_urls=data["source_urls"],
            contact=data.get("contact", ""),
        )
    return services.propose_case(
        services.NewCase(
            title=data["title"],
            organization=data["organization"],
            published=data["published"],
            summary=data["text"],
            topic=data["topic"],
            root_cause=data.get("root_cause"),
            source_urls=data["source_urls"],
            contact=data.get("contact", ""),
        )
    )
