"""Taking in a proposal from either door (the form or the API): the per-client rate limits
and the hand-off to the services.

Each door checks `check_refusals` first, then validates the proposal: a refused one is
counted by `note_refused` (its own, generous rate), a valid one goes to `receive`, which
counts it against the proposal rate only once it is in the queue. So the rate limits the
proposals received, not the attempts at filling in the form."""

from __future__ import annotations

from typing import Any

from api.throttling import count_request, rate_of

from .models import Proposal

# Proposals taken into the queue, per client address: the abuse limit that matters.
SCOPE = "proposals"
# Proposals refused as invalid (a short title, an unknown topic, a bad date...), counted
# apart with a generous rate: a newcomer fixing the form's errors one by one does not use
# up the proposals, and a client posting nothing but invalid proposals is still stopped
# before its posts are read.
REFUSED_SCOPE = "proposals-refused"


class RateLimited(Exception):
    """Over a proposal rate: `wait` whole seconds until the client may try again; `what`
    says which rate ("Too many proposals from here (at most 10/hour)"), `message` also when
    to try again."""

    def __init__(self, wait: int, what: str, scope: str):
        self.wait = wait
        self.scope = scope
        self.what = f"{what} (at most {rate_of(scope)})"
        self.message = f"{self.what}; try again in {wait} seconds."
        super().__init__(self.message)


def check_refusals(request: Any) -> None:
    """Before a proposal is read: raise RateLimited when the client has had
    `DEFAULT_THROTTLE_RATES["proposals-refused"]` proposals refused within the period.
    Counts nothing (`note_refused` does)."""
    if (wait := count_request(request, REFUSED_SCOPE, record=False)) is not None:
        raise RateLimited(wait, "Too many refused proposals from here", REFUSED_SCOPE)


def note_refused(request: Any) -> None:
    """Count one refused (invalid) proposal of the client against `REFUSED_SCOPE`."""
    count_request(request, REFUSED_SCOPE)


def check_rate(request: Any) -> None:
    """Raise RateLimited when the client has had `DEFAULT_THROTTLE_RATES["proposals"]`
    proposals received within the period. Counts nothing: `receive` counts a proposal once
    it is in the queue, in the API throttle's count (`count_request`), so the form and the
    API share one budget per client."""
    if (wait := count_request(request, SCOPE, record=False)) is not None:
        raise RateLimited(wait, "Too many proposals from here", SCOPE)


def receive(request: Any, data: dict[str, Any]) -> Proposal:
    """A checked `ProposalForm.cleaned_data` into the review queue, counted against the
    client's proposal rate (`SCOPE`): only a proposal received counts. Raises RateLimited
    over that rate (nothing is written), CaseImportError from the services."""
    check_rate(request)
    proposal = _queue(data)
    count_request(request, SCOPE)
    return proposal


def _queue(data: dict[str, Any]) -> Proposal:
    # Imported when a proposal is queued: the services bring the search modules (numpy,
    # scipy), and this module is read with the URLs by every process at start-up.
    from . import services

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
            organization_term=data.get("organization_term"),
            published=data["published"],
            summary=data["text"],
            topic=data["topic"],
            root_cause=data.get("root_cause"),
            source_urls=data["source_urls"],
            contact=data.get("contact", ""),
        )
    )
