from django.apps import AppConfig


class IncidentsConfig(AppConfig):
    name = "incidents"
    verbose_name = "Incident cases"
    default_auto_field = "django.db.models.BigAutoField"
