from csp.decorators import csp_update
from django.urls import path
from drf_spectacular.views import SpectacularSwaggerSplitView

from incidents.proposals.api import LookalikesView, ProposalCreateView, ProposalStatusView

from . import views
from .views.history import CaseHistoryView
from .views.index import ApiIndexView
from .views.writes import CaseMergeView, CaseStatusView

app_name = "api"

# Swagger UI's page carries one small <style> block; its start-up script is a file (the split
# view), so the Content-Security-Policy still allows no inline script.
swagger_styles = csp_update({"style-src": ["'unsafe-inline'"]})

urlpatterns = [
    path("", ApiIndexView.as_view(), name="index"),
    path("cases/", views.CaseListView.as_view(), name="case-list"),
    path("cases/<str:case_id>", views.CaseDetailView.as_view(), name="case-detail"),
    path("cases/<str:case_id>/similar", views.CaseSimilarView.as_view(), name="case-similar"),
    path("cases/<str:case_id>/history", CaseHistoryView.as_view(), name="case-history"),
    path("cases/<str:case_id>/status", CaseStatusView.as_view(), name="case-status"),
    path("cases/<str:case_id>/merge", CaseMergeView.as_view(), name="case-merge"),
    path("proposals/", ProposalCreateView.as_view(), name="proposal-create"),
    path("proposals/lookalikes", LookalikesView.as_view(), name="proposal-lookalikes"),
    path("proposals/<str:token>", ProposalStatusView.as_view(), name="proposal-status"),
    path("topics/", views.TopicListView.as_view(), name="topic-list"),
    path("topics/<str:slug>", views.TopicDetailView.as_view(), name="topic-detail"),
    path("vocab/", views.VocabularyView.as_view(), name="vocab"),
    path("vocab/<str:facet>", views.VocabularyFacetView.as_view(), name="vocab-facet"),
    path("stats", views.StatsView.as_view(), name="stats"),
    path("lookup", views.LookupView.as_view(), name="lookup"),
    path("affected", views.AffectedView.as_view(), name="affected"),
    path("codes/", views.CodeListView.as_view(), name="code-list"),
    path("codes/<str:slug>", views.CodeDetailView.as_view(), name="code-detail"),
    path("match", views.MatchView.as_view(), name="match"),
    path("triage", views.TriageView.as_view(), name="triage"),
    path("export", views.ExportView.as_view(), name="export"),
    path("export/vocab", views.ExportVocabularyView.as_view(), name="export-vocab"),
    path("changes", views.ChangesView.as_view(), name="changes"),
    path("schema/", views.SchemaView.as_view(), name="schema"),
    path(
        "docs/",
        swagger_styles(SpectacularSwaggerSplitView.as_view(url_name="api:schema")),
        name="docs",
    ),
]
