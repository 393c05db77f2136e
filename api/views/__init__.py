"""JSON API views. They parse input, call `incidents.selectors` / `incidents.search` /
`incidents.feeds`, and shape the output with `api.shapes`; no query logic here.
"""

from .affected import AffectedView
from .bulk import ChangesView, ExportView, ExportVocabularyView
from .cases import CaseDetailView, CaseListView, CaseSimilarView
from .catalog import StatsView, TopicDetailView, TopicListView, VocabularyFacetView, VocabularyView
from .codes import CodeDetailView, CodeListView
from .docs import SchemaView
from .lookup import LookupView
from .match import MatchView
from .triage import TriageView

__all__ = [
    "AffectedView",
    "CaseDetailView",
    "CaseListView",
    "CaseSimilarView",
    "ChangesView",
    "CodeDetailView",
    "CodeListView",
    "ExportView",
    "ExportVocabularyView",
    "LookupView",
    "MatchView",
    "SchemaView",
    "StatsView",
    "TopicDetailView",
    "TopicListView",
    "TriageView",
    "VocabularyFacetView",
    "VocabularyView",
]
