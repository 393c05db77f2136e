"""Serializers that build the API's answers and parse its request bodies; the OpenAPI
schema is generated from them, so it describes what runs.

A view gathers an answer's values (`api.shapes` turns read-layer results into plain values)
and hands them to the `ResponseSerializer` its schema names: the answer holds exactly the
declared fields, in declaration order, each formatted by its field. The request
serializers (`MatchRequestSerializer`, `TriageRequestSerializer`,
`AffectedRequestSerializer`) validate the bodies.

One module per resource (`cases`, `search`, `match`, `triage`, `codes`, `vocabulary`,
`stats`, `changes`, `lookup`, `affected`), on `base` (the answer builder, the problem
details) and `fields` (the strict request-body fields); every public name is importable
from here.
"""

from __future__ import annotations

from .affected import (
    AffectedMatchSerializer,
    AffectedRangeSerializer,
    AffectedRequestSerializer,
    AffectedResponseSerializer,
)
from .base import ParameterErrorSerializer, ProblemSerializer, ResponseSerializer
from .cases import (
    CaseDetailSerializer,
    CaseSummarySerializer,
    RelatedCaseSerializer,
    SimilarCaseSerializer,
    SimilarListSerializer,
)
from .changes import ChangeSerializer, ChangesPageSerializer
from .codes import (
    CaseCheckSerializer,
    CauseCountSerializer,
    ErrorCodeDetailSerializer,
    ErrorCodeListSerializer,
    ErrorCodeSerializer,
    FoundErrorCodeSerializer,
)
from .fields import (
    NamedChoiceField,
    SearchTextField,
    StrictCharField,
    StrictIntegerField,
    StrictIntegerSchema,
    shown_json,
)
from .lookup import CitingCaseSerializer, ReferenceSerializer, UpstreamLookupSerializer
from .match import (
    MAX_LOG_CHARS,
    MAX_MATCH_LIMIT,
    LogHitSerializer,
    LogLineSerializer,
    LogReadingSerializer,
    MatchedLineSerializer,
    MatchRequestSerializer,
    MatchResponseSerializer,
)
from .search import CaseListSerializer, FacetCountSerializer, SearchHitSerializer
from .stats import (
    AcceleratorCountSerializer,
    DistributionSerializer,
    ResolveBucketSerializer,
    ResolveDistributionSerializer,
    ScaleBandCountSerializer,
    StatsSerializer,
    YearCountSerializer,
)
from .triage import (
    TriageCaseSerializer,
    TriageLogLineSerializer,
    TriageRequestSerializer,
    TriageResponseSerializer,
    TriageRootCauseSerializer,
    TriageWhySerializer,
)
from .vocabulary import (
    TermCountSerializer,
    TermListSerializer,
    TermSerializer,
    TopicListSerializer,
    TopicOverviewSerializer,
    TopicSerializer,
    VocabularySerializer,
)

__all__ = [
    "AcceleratorCountSerializer",
    "AffectedMatchSerializer",
    "AffectedRangeSerializer",
    "AffectedRequestSerializer",
    "AffectedResponseSerializer",
    "CaseCheckSerializer",
    "CaseDetailSerializer",
    "CaseListSerializer",
    "CaseSummarySerializer",
    "CauseCountSerializer",
    "ChangeSerializer",
    "ChangesPageSerializer",
    "CitingCaseSerializer",
    "DistributionSerializer",
    "ErrorCodeDetailSerializer",
    "ErrorCodeListSerializer",
    "ErrorCodeSerializer",
    "FacetCountSerializer",
    "FoundErrorCodeSerializer",
    "LogHitSerializer",
    "LogLineSerializer",
    "LogReadingSerializer",
    "MAX_LOG_CHARS",
    "MAX_MATCH_LIMIT",
    "MatchRequestSerializer",
    "MatchResponseSerializer",
    "MatchedLineSerializer",
    "NamedChoiceField",
    "ParameterErrorSerializer",
    "ProblemSerializer",
    "ReferenceSerializer",
    "ResolveBucketSerializer",
    "ResolveDistributionSerializer",
    "ResponseSerializer",
    "ScaleBandCountSerializer",
    "SearchHitSerializer",
    "SearchTextField",
    "RelatedCaseSerializer",
    "SimilarCaseSerializer",
    "SimilarListSerializer",
    "StatsSerializer",
    "StrictCharField",
    "StrictIntegerField",
    "StrictIntegerSchema",
    "TermCountSerializer",
    "TermListSerializer",
    "TermSerializer",
    "TopicListSerializer",
    "TopicOverviewSerializer",
    "TopicSerializer",
    "TriageCaseSerializer",
    "TriageLogLineSerializer",
    "TriageRequestSerializer",
    "TriageResponseSerializer",
    "TriageRootCauseSerializer",
    "TriageWhySerializer",
    "UpstreamLookupSerializer",
    "VocabularySerializer",
    "YearCountSerializer",
    "shown_json",
]
