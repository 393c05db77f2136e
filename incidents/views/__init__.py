"""HTML pages. Each view parses input, calls `incidents.selectors` (the read layer) or
`incidents.search`, and renders a template; none builds queries of its own.
"""

from .cases import case_detail, case_list
from .home import home, match
from .site import robots_txt
from .stats import stats
from .topics import topic_detail, topic_list
from .vocab import vocab_index, vocab_term

__all__ = [
    "case_detail",
    "case_list",
    "home",
    "match",
    "robots_txt",
    "stats",
    "topic_detail",
    "topic_list",
    "vocab_index",
    "vocab_term",
]
