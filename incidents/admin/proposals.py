"""The review queue of public proposals and its actions (start review, accept, decline)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.html import format_html, format_html_join

from .. import workflow
from ..models import Facet, Term
from ..proposals.checks import accept_checks
from ..proposals.models import Proposal
from ..proposals.organizations import organization_for
from ..proposals.reading import case_html, lookalike_links, source_links
from ..selectors.spelling import nearest_terms
from .common import FORM_FIELDS


@admin.register(Proposal)
class ProposalAdmin(admin.ModelAdmin):
    """The review queue of public proposals. Accepting (reviewers) publishes a new case's
    draft; a correction is accepted on the case's own page, by the save that makes it
    (`CaseAdminForm.accepts_correction`); declining needs the reason written on the proposal
    first."""

    formfield_overrides = FORM_FIELDS
    list_display = ("title", "kind", "status", "case", "created")
    list_filter = ("status", "kind")
    search_fields = ("title", "text", "case__id", "source_urls")
    ordering = ("-created",)
    readonly_fields = (
        "kind",
        "status",
        "case",
        "title",
        "text",
        "sources",
        "contact",
        "organization_as_proposed",
        "looked_like",
        "checks_before_accepting",
        "created",
        "proposed_case",
        "case_now",
    )
    actions = ("start_review", "accept", "decline")

    class Media:
        css = {"all": ("css/admin-proposal.css",)}

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        # A new case's proposal is read as the draft it made; a correction beside the case
        # as it stands. Either as a case, not as the JSON of its document.
        shown = "case_now" if obj is not None and obj.kind == Proposal.Kind.CORRECTION else "proposed_case"
        kept = [name for name in self.readonly_fields if name not in ("proposed_case", "case_now")]
        if obj is None or obj.kind != Proposal.Kind.NEW:
            kept.remove("checks_before_accepting")
        if obj is None or not obj.organization_named:
            kept.remove("organization_as_proposed")
            return (*kept, shown, "decline_reason")
        return (*kept, "organization_term", shown, "decline_reason")

    @admin.display(description="Organization as proposed")
    def organization_as_proposed(self, obj: Proposal) -> str:
        """The name the proposer wrote, which the vocabulary lacked, and what accepting does
        with it (`services.accept` names the organization it is in the case)."""
        term = organization_for(obj)
        if term is not None:
            return f"{obj.organization_named}: not in the vocabulary when sent; accepting names {term.name}."
        near = nearest_terms(
            obj.organization_named, list(Term.objects.of(Facet.ORGANIZATION).only("slug", "name", "synonyms"))
        )
        closest = f" Closest: {', '.join(t.name for t in near)}." if near else ""
        return (
            f"{obj.organization_named}: not in the vocabulary.{closest} Choose the organization it is "
            "below (or add it with +) and save before accepting."
        )

    @admin.display(description="Proposed case (its draft)")
    def proposed_case(self, obj: Proposal) -> str:
        return case_html(obj.case_id)

    @admin.display(description="The case now")
    def case_now(self, obj: Proposal) -> str:
        return case_html(obj.case_id)

    @admin.display(description="Checks before accepting")
    def checks_before_accepting(self, obj: Proposal) -> str:
        """What accepting would meet now, as the page the reviewer accepts from says it before
        the click: first every problem that refuses it (`services.acceptance_problems`, each
        `Blocks accepting: ...`; the page said "Nothing to check." while accepting was refused
        for each in turn), then what it would warn of (`checks.accept_checks`). One item as
        text, several as a list; "Nothing to check." when none."""
        from ..proposals import services as proposal_services

        found = [f"Blocks accepting: {problem}." for problem in proposal_services.acceptance_problems(obj)]
        found += accept_checks(obj)
        if not found:
            return "Nothing to check."
        if len(found) == 1:
            return found[0]
        return format_html("<ul>{}</ul>", format_html_join("", "<li>{}</li>", ((item,) for item in found)))

    @admin.display(description="Source URLs")
    def sources(self, obj: Proposal) -> str:
        return source_links(obj.source_urls)

    @admin.display(description="Looked like, when sent")
    def looked_like(self, obj: Proposal) -> str:
        return lookalike_links(obj.lookalikes)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return workflow.is_editor(request.user)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return workflow.is_editor(request.user)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return workflow.is_editor(request.user)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # proposals come from the public form and API

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_actions(self, request: HttpRequest) -> Any:
        # Accepting publishes: a reviewer's step, not offered to editors.
        actions = super().get_actions(request)
        if not workflow.is_reviewer(request.user):
            actions.pop("accept", None)
        return actions

    def render_change_form(
        self, request: HttpRequest, context: dict[str, Any], *args: Any, **kwargs: Any
    ) -> Any:
        # The Accept button is a reviewer's (as the Accept action is).
        context["is_reviewer"] = workflow.is_reviewer(request.user)
        return super().render_change_form(request, context, *args, **kwargs)

    def response_change(self, request: HttpRequest, obj: Proposal) -> HttpResponse:
        """The proposal page's Decline and Accept buttons: the form is saved first (so the
        "Decline reason" or "Organization it is" just written counts), then the step runs as
        the list's action runs it; back to the proposal page, which says its new status."""
        if "_decline" in request.POST:
            self.decline(request, Proposal.objects.filter(pk=obj.pk))
        elif "_accept" in request.POST and workflow.is_reviewer(request.user):
            self.accept(request, Proposal.objects.filter(pk=obj.pk))
        else:
            return super().response_change(request, obj)
        return HttpResponseRedirect(request.path)

    def _review(self, request: HttpRequest, queryset: Any, step: Any, done: Any, then: Any = None) -> None:
        """Apply `step` to each selected proposal; `done`: the success message's end, or a
        function of the proposal giving it; `then`: called with each proposal after it."""
        from ..proposals import services as proposal_services

        for proposal in queryset:
            try:
                step(proposal)
            except (proposal_services.ReviewError, workflow.WorkflowError, workflow.NotAllowed) as error:
                self.message_user(request, f"{proposal.title}: {error}", messages.ERROR)
            else:
                said = done(proposal) if callable(done) else done
                self.message_user(request, f"{proposal.title}: {said}.", messages.SUCCESS)
                if then is not None:
                    then(proposal)

    @admin.action(description="Start reviewing")
    def start_review(self, request: HttpRequest, queryset: Any) -> None:
        from ..proposals import services as proposal_services

        self._review(
            request, queryset, lambda p: proposal_services.start_review(p, user=request.user), "in review"
        )

    @admin.action(
        description=(
            "Accept (reviewers): publish a new case (a correction is accepted by saving it in its case)"
        )
    )
    def accept(self, request: HttpRequest, queryset: Any) -> None:
        from ..proposals import services as proposal_services

        warnings: dict[int, list[str]] = {}

        def step(proposal: Proposal) -> Proposal:
            # Read before accepting: `accept_checks` looks at waiting proposals only.
            warnings[proposal.pk] = accept_checks(proposal)
            return proposal_services.accept(proposal, user=request.user)

        def warn_of_lookalikes(proposal: Proposal) -> None:
            # As a save of the case in the admin warns: said, never a refusal.
            for warning in warnings.get(proposal.pk, []):
                self.message_user(request, warning, messages.WARNING)
            for duplicate in proposal_services.lookalikes(proposal):
                self.message_user(
                    request,
                    f"Possible duplicate: {proposal.case_id} looks like {duplicate}",
                    messages.WARNING,
                )

        self._review(
            request,
            queryset,
            step,
            accepted_message,
            then=warn_of_lookalikes,
        )

    @admin.action(description="Decline (with the reason written on each proposal)")
    def decline(self, request: HttpRequest, queryset: Any) -> None:
        from ..proposals import services as proposal_services

        self._review(
            request,
            queryset,
            lambda p: proposal_services.decline(p, user=request.user, reason=p.decline_reason),
            "declined",
        )


def accepted_message(proposal: Proposal) -> str:
    """What accepting a new case's proposal did."""
    return f"accepted; {proposal.case_id} is published"
