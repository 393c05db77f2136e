"""`/` (home) and `/match/` (paste a log, get the cases that look like it)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from api.throttling import HEAVY_SCOPE, count_request, rate_of
from incidents import limits, search, selectors
from incidents.search.log_lines import MAX_LOG_BYTES

from .common import render_page

# Written the way engineers type them (error tokens, symptoms, components), one per kind of
# failure, each chosen because its first hit is plainly the case it is about: an example that
# opens on a loose match teaches a new user that the search guesses.
# tests/web/test_example_queries_lead_to_their_cases.py pins each one's first hit.
EXAMPLE_QUERIES = (
    "vLLM hangs in NCCL all-reduce",
    "training hangs at first checkpoint save",
    "Xid 79",
    "ECC error crashed training",
    "loss spikes despite gradient clipping",
    "Kubernetes DNS",
    "Thai characters in answers on TPU",
)
LATEST_SHOWN = 5
LOG_HITS_SHOWN = limits.PAGE_LOG_HITS


def home(request: HttpRequest) -> HttpResponse:
    """`/`: search box with example queries, the log box, latest cases, topics, a stats summary.

    Data: `selectors.latest_cases`, `selectors.vocabulary("topic")`, `selectors.case_stats`.
    """
    stats = selectors.case_stats()
    topics = [t for t in selectors.vocabulary("topic") if t.case_count]
    topics.sort(key=lambda t: (-t.case_count, t.name))
    return render_page(
        request,
        "incidents/home.html",
        {
            "examples": [
                (q, f"{reverse('incidents:case-list')}?{urlencode({'q': q})}") for q in EXAMPLE_QUERIES
            ],
            "latest": selectors.latest_cases(limit=LATEST_SHOWN),
            "topics": topics,
            "stats": stats,
        },
        json_url=reverse("api:case-list"),
    )


# The form only reads (nothing is stored or changed), so a forged cross-site POST gains
# nothing; exempt it explicitly so enabling CsrfViewMiddleware later does not break it.
@csrf_exempt
# HEAD answers as GET does (Django drops the body), as on every other page.
@require_http_methods(["GET", "HEAD", "POST"])
def match(request: HttpRequest) -> HttpResponse:
    """`/match/`: GET shows the log form; POST (`text`: the log, up to 1 MB, as `POST
    /api/match` and MCP `match_log` name it; `log`, the form's former name, still read when
    `text` is not sent, for a page or script made before) ranks cases by the failure
    signatures found in the log, each with the lines that matched.

    Says how many lines were read, carried a signature or were ignored, lists the error
    codes the log shows (by their patterns, each linking its /codes/ page; cases carrying
    one rank higher), and shows each matched line once with its matches highlighted. A
    blank log re-shows the form with an error (status 400). Data: `search.read_log`.
    POST rather than GET because a pasted log is far longer than a URL may be.

    Each POST counts against the client address's `api-heavy` rate, the count `POST
    /api/match` and MCP `match_log` share (`api.throttling.count_request`); over it, 429
    with `Retry-After`, the form keeping the pasted log and saying when to try again.
    """
    context: dict = {
        "max_bytes": MAX_LOG_BYTES,
        "log": "",
        "hits": None,
        "reading": None,
        "error": None,
        "limited": False,
    }
    status = 200
    wait = None
    if request.method == "POST":
        # A NUL byte means nothing in a log and must not be echoed into the page: it becomes
        # U+FFFD, the replacement character, as undecodable bytes do.
        sent = request.POST.get("text") if "text" in request.POST else request.POST.get("log", "")
        log = (sent or "").replace("\x00", "\ufffd")
        context["log"] = log
        if (wait := count_request(request, HEAVY_SCOPE)) is not None:
            context["error"] = (
                f"Too many logs matched from your address (at most {rate_of(HEAVY_SCOPE)}, shared with "
                f"the API and MCP); try again in {wait} second{'s' if wait != 1 else ''}. Your log is "
                "still in the box."
            )
            context["limited"] = True
            status = 429
        elif not log.strip():
            context["error"] = "Paste some log lines first: the box was empty."
            status = 400
        elif len(log.encode("utf-8", "replace")) > MAX_LOG_BYTES:
            # Refuse rather than cut: a cut log would silently lose its last (failing) lines.
            # The paste stays in the box (as over the rate): emptied, it was lost, and the
            # person had to find and copy it again just to trim it.
            context["error"] = (
                f"The log is {len(log.encode('utf-8', 'replace')) / 1_000_000:.1f} MB; paste at most "
                f"{MAX_LOG_BYTES // 1_000_000} MB, the lines around the failure are enough. Your log is "
                "still in the box: remove its lines before the failure and match it again."
            )
            status = 400
        else:
            reading = search.read_log(log, limit=LOG_HITS_SHOWN)
            context["hits"] = reading.hits
            context["reading"] = reading
    # The JSON twin takes the log as a body: `POST /api/match`.
    response = render_page(
        request,
        "incidents/match.html",
        context,
        json_url=reverse("api:match"),
        json_method="POST",
        status=status,
    )
    if wait is not None:
        response["Retry-After"] = str(wait)
    return response
