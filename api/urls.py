from django.urls import path

from . import views

app_name = "api"

urlpatterns = [
    path("cases/", views.CaseListView.as_view(), name="case-list"),
    path("cases/<str:case_id>", views.CaseDetailView.as_view(), name="case-detail"),
]
