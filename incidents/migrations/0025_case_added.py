"""`Case.added`: when a case was first published in this library, the order of the Atom
feeds (which listed cases by their source's date, so a case added today about an incident
of 2023 never reached them).

Filled from the history: the time of each case's first history row as published (every
write that publishes a case records one). A case never published stays NULL.
"""

from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def added_from_history(apps, schema_editor):
    Case = apps.get_model("incidents", "Case")
    History = apps.get_model("incidents", "HistoricalCase")
    first = History.objects.filter(id=OuterRef("id"), status="published").order_by("history_date", "history_id")
    Case.objects.update(added=Subquery(first.values("history_date")[:1]))


class Migration(migrations.Migration):
    dependencies = [("incidents", "0024_similar_lists_shared_words")]

    operations = [
        migrations.AddField(
            model_name="case",
            name="added",
            field=models.DateTimeField(
                blank=True, db_index=True, editable=False, null=True, verbose_name="added to the library"
            ),
        ),
        migrations.RunPython(added_from_history, migrations.RunPython.noop),
    ]
