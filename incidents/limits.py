"""How many cases each front door returns at most, in one place, and why they differ.

The three doors answer different readers, so their ceilings differ on purpose:

- The JSON API serves scripts, which page through everything (`page`, `cursor`) and pay
  nothing per byte: its ceilings only bound one request's work. A search page holds up to
  `API_PAGE_SIZE` cases; a log match is heavier (the log is read, and every hit carries the
  lines it matched; it counts against the `api-heavy` rate), so it stops at `API_MATCH`.
- MCP tools answer an AI assistant, whose context window every byte uses: each tool's
  answer is cut to its byte budget (`mcp_server.tools.BUDGETS`), so a tool takes no larger
  `limit` than about what its budget holds, rather than accept a number it would then cut.
  Measured on the 173 bundled cases (6 December): 25 `search_incidents` hits are 19-20 KB
  of its 24 KB; 20 `match_log` hits of a pasted log already pass its 16 KB (17 fit), so
  its ceiling is 20, not the API's 50; `list_incidents` summaries are shorter, 50 of them
  reach its 24 KB.
- The pages show a person a fixed number (`PAGE_CASES`, `PAGE_LOG_HITS`), with more pages.

The defaults are each door's own (the API's are larger: a script wants more per request, an
assistant the few best). Similar cases are `SIMILAR` at every door, both short lists.
tests/mcp/test_result_limits_come_from_one_place.py checks every door states these.
"""

from __future__ import annotations

API_PAGE_SIZE = 100  # GET /api/cases/ `page_size`
API_MATCH = 50  # POST /api/match `limit`
MCP_SEARCH = 25  # search_incidents `limit` (24 KB budget)
MCP_LIST = 50  # list_incidents `limit` (24 KB budget)
MCP_MATCH = 20  # match_log `limit` (16 KB budget)
SIMILAR = 20  # /api/cases/{id}/similar and similar_incidents `limit`
PAGE_CASES = 20  # /cases/ cases per page
PAGE_LOG_HITS = 10  # /match/ cases shown
PAGE_NUMBER = 100_000  # `page` of GET /api/cases/ and /cases/: a larger one is refused at both
