"""`/affected/`: "am I affected?", the form of `POST /api/affected`."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from incidents import selectors

from .common import render_page


def affected_page(request: HttpRequest) -> HttpResponse:
    """`/affected/?versions=NCCL 2.19.3%0Atorch==2.1.0`: one component and version a line
    (`selectors.read_version_lines`: `NCCL 2.19.3`, `torch==2.1.0`, `NCCL=2.18.1`,
    `NVIDIA driver: 535.104.05`); the cases whose affected ranges include them (with why,
    the fixed version and the workaround) and those that cannot be compared. Unknown
    components, versions with no order and lines with no component or no version are
    listed on the form (400). Data: `selectors.check_versions`, `selectors.affected_cases`
    (3 queries)."""
    text = request.GET.get("versions", "")
    context: dict = {"text": text, "answer": None, "problems": []}
    status = 200
    if text.strip():
        pairs, problems = selectors.read_version_lines(text)
        # Every line unreadable: those lines say why, not "give at least one component" too.
        resolved, unresolved = selectors.check_versions(pairs) if pairs or not problems else ({}, [])
        problems = [*problems, *unresolved]
        if problems:
            context["problems"] = problems
            status = 400
        else:
            context["answer"] = selectors.affected_cases(resolved)
    # The JSON twin is `POST /api/affected` (a body, not a URL to link).
    return render_page(request, "incidents/affected.html", context, json_url=None, status=status)
