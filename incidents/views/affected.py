"""`/affected/`: "am I affected?", the form of `POST /api/affected`."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from incidents import selectors

from .common import render_page

MAX_FORM_CHARS = 4000


def read_lines(text: str) -> list[tuple[str, str]]:
    """`NCCL 2.19.3` / `NVIDIA driver: 535.104.05` lines -> [(component, version)]: the
    version is the last word of a line, the component what comes before it. Pairs, not a
    dict: a component given twice is `check_versions`' to refuse, not ours to merge."""
    versions: list[tuple[str, str]] = []
    for line in text[:MAX_FORM_CHARS].splitlines():
        component, _, version = line.strip().rstrip(",").rpartition(" ")
        component = component.strip().rstrip(":=").strip()
        if component and version:
            versions.append((component, version))
    return versions


def affected_page(request: HttpRequest) -> HttpResponse:
    """`/affected/?versions=NCCL 2.19.3%0APyTorch 2.1.0`: one `component version` a line;
    the cases whose affected ranges include them (with why, the fixed version and the
    workaround) and those that cannot be compared. Unknown components and versions with
    no order are listed on the form (400). Data: `selectors.check_versions`,
    `selectors.affected_cases` (3 queries)."""
    text = request.GET.get("versions", "")
    context: dict = {"text": text, "answer": None, "problems": []}
    status = 200
    if text.strip():
        resolved, problems = selectors.check_versions(read_lines(text))
        if problems:
            context["problems"] = problems
            status = 400
        else:
            context["answer"] = selectors.affected_cases(resolved)
    # The JSON twin is `POST /api/affected` (a body, not a URL to link).
    return render_page(request, "incidents/affected.html", context, json_url=None, status=status)
