from django.contrib import admin
from django.contrib.sitemaps.views import sitemap
from django.urls import include, path

from incidentlib.health import healthz
from incidents.views import robots_txt
from incidents.views.site import SITEMAPS

urlpatterns = [
    path("api/", include("api.urls")),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("robots.txt", robots_txt, name="robots"),
    path("sitemap.xml", sitemap, {"sitemaps": SITEMAPS}, name="sitemap"),
    path("", include("incidents.urls")),
]

handler400 = "incidentlib.errors.bad_request"
handler403 = "incidentlib.errors.permission_denied"
handler404 = "incidentlib.errors.not_found"
handler500 = "incidentlib.errors.server_error"
