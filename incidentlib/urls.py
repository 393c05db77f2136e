from django.urls import include, path

urlpatterns = [
    path("api/", include("api.urls")),
    path("", include("incidents.urls")),
]

handler400 = "incidentlib.errors.bad_request"
handler403 = "incidentlib.errors.permission_denied"
handler404 = "incidentlib.errors.not_found"
handler500 = "incidentlib.errors.server_error"
