"""`/affected/`: "am I affected?", the form of `POST /api/affected`."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import reverse

from incidents import selectors

from .common import render_page


def affected_page(request: HttpRequest) -> HttpResponse:
    """`/affected/?versions=NCCL 2.19.3%0Atorch==2.1.0`: one component and version a line
    (`selectors.read_version_lines`: `NCCL 2.19.3`, `torch==2.1.0`, `NCCL=2.18.1`,
    `NVIDIA driver: 535.104.05`; pip's names too, `nvidia-nccl-cu12==2.18.1`); the cases
    whose affected ranges include them (with why, the fixed version and the workaround)
    and those that cannot be compared. A pasted `pip freeze` answers for the components it
    holds and lists the lines it skipped (unknown components with the nearest names, text
    past the limit) above the answer. Versions with no order, a component named twice,
    lines with no component or no version, or no known component at all are listed on the
    form instead (400). Data: `selectors.check_versions`, `selectors.affected_cases` (3
    queries)."""
    text = request.GET.get("versions", "")
    context: dict = {"text": text, "answer": None, "problems": [], "skipped": []}
    status = 200
    if text.strip():
        pairs, problems = selectors.read_version_lines(text)
        # Every line unreadable: those lines say why, not "give at least one component" too.
        resolved, unresolved = selectors.check_versions(pairs) if pairs or not problems else ({}, [])
        problems = [*problems, *unresolved]
        if selectors.refusing(problems) or not resolved:
            context["problems"] = problems
            status = 400
        else:
            context["answer"] = selectors.affected_cases(resolved)
            context["skipped"] = problems
    # The JSON twin takes the versions as a body: `POST /api/affected`.
    return render_page(
        request,
        "incidents/affected.html",
        context,
        json_url=reverse("api:affected"),
        json_method="POST",
        status=status,
    )
