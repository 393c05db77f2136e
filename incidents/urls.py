from django.urls import path

from . import views

app_name = "incidents"

urlpatterns = [
    path("", views.case_list, name="home"),
    path("cases/", views.case_list, name="case-list"),
    path("cases/<str:case_id>", views.case_detail, name="case-detail"),
]
