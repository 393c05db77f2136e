from django.urls import path

from incidents import selectors
from incidents.models import Facet

from . import views
from .proposals.views import proposal_status, propose
from .views.affected import affected_page
from .views.codes import code_detail, code_index
from .views.conditional import conditional_page
from .views.feeds import AllCasesFeed, ErrorCodeFeed, SymptomFeed, TopicFeed
from .views.history import case_history_page
from .views.references import reference_page

app_name = "incidents"

# Pages that show only the store's content answer conditional GETs (ETag / Last-Modified).
store_page = conditional_page()

urlpatterns = [
    path("", store_page(views.home), name="home"),
    path("cases/", store_page(views.case_list), name="case-list"),
    path(
        "cases/<str:case_id>",
        conditional_page(exists=selectors.visible_case_exists)(views.case_detail),
        name="case-detail",
    ),
    path(
        "cases/<str:case_id>/history",
        conditional_page(exists=selectors.history_case_exists)(case_history_page),
        name="case-history",
    ),
    path("match/", views.match, name="match"),
    path("propose/", propose, name="propose"),
    path("proposals/<str:token>", proposal_status, name="proposal-status"),
    path("topics/", store_page(views.topic_list), name="topic-list"),
    # str, not slug, for topics, codes and feeds too: a term's name (`/topics/Interconnect
    # faults`, `/feeds/codes/Xid 79.atom`) redirects to its slug's URL through the lookup
    # every door uses (`selectors.find_topic`, `selectors.find_facet_term`).
    path(
        "topics/<str:slug>",
        conditional_page(exists=lambda slug: selectors.topic_exists(slug))(views.topic_detail),
        name="topic-detail",
    ),
    path("vocab/", store_page(views.vocab_index), name="vocab-index"),
    path(
        # str, not slug: a term's name (`/vocab/symptom/NCCL timeout`) redirects to its slug.
        "vocab/<slug:facet>/<str:slug>",
        conditional_page(
            exists=lambda facet, slug: (
                selectors.term_by_slug(selectors.FACETS_BY_SEGMENT.get(facet, ""), slug) is not None
            )
        )(views.vocab_term),
        name="vocab-term",
    ),
    path("stats", store_page(views.stats), name="stats"),
    path("refs/", store_page(reference_page), name="reference"),
    path("codes/", store_page(code_index), name="code-index"),
    path("affected/", store_page(affected_page), name="affected"),
    path(
        "codes/<str:slug>",
        conditional_page(exists=lambda slug: selectors.term_by_slug(Facet.ERROR_CODE, slug) is not None)(
            code_detail
        ),
        name="code-detail",
    ),
    path("feeds/cases.atom", store_page(AllCasesFeed()), name="feed-all"),
    path(
        "feeds/topics/<str:slug>.atom",
        conditional_page(exists=lambda slug: selectors.topic_exists(slug))(TopicFeed()),
        name="feed-topic",
    ),
    path(
        "feeds/symptoms/<str:slug>.atom",
        conditional_page(exists=lambda slug: selectors.term_by_slug(Facet.SYMPTOM, slug) is not None)(
            SymptomFeed()
        ),
        name="feed-symptom",
    ),
    path(
        "feeds/codes/<str:slug>.atom",
        conditional_page(exists=lambda slug: selectors.term_by_slug(Facet.ERROR_CODE, slug) is not None)(
            ErrorCodeFeed()
        ),
        name="feed-code",
    ),
]
