from django.urls import path

from . import views
from .views.feeds import AllCasesFeed, SymptomFeed, TopicFeed

app_name = "incidents"

urlpatterns = [
    path("", views.home, name="home"),
    path("cases/", views.case_list, name="case-list"),
    path("cases/<str:case_id>", views.case_detail, name="case-detail"),
    path("match/", views.match, name="match"),
    path("topics/", views.topic_list, name="topic-list"),
    path("topics/<slug:slug>", views.topic_detail, name="topic-detail"),
    path("vocab/", views.vocab_index, name="vocab-index"),
    path("vocab/<slug:facet>/<slug:slug>", views.vocab_term, name="vocab-term"),
    path("stats", views.stats, name="stats"),
    path("feeds/cases.atom", AllCasesFeed(), name="feed-all"),
    path("feeds/topics/<slug:slug>.atom", TopicFeed(), name="feed-topic"),
    path("feeds/symptoms/<slug:slug>.atom", SymptomFeed(), name="feed-symptom"),
]
