"""Similar cases correct the semantic part for hubness (`search/hubness.py`): each published
profile keeps its nearest cases by embedding and their mean cosine, and every stored list
waits for a rebuild, since the lists stored before were scored without the correction.

As in 0027: the old lists stay readable until `rebuild_search --neighbours` (or the next
`import_cases`, which runs it when lists are pending) stores the new ones and every
profile's hubness; an increment meanwhile leaves its cases pending too, so no list mixes
the two.
"""

from django.db import migrations, models


def mark_every_list_pending(apps, schema_editor):
    apps.get_model("incidents", "CaseProfile").objects.update(neighbours_pending=True)


class Migration(migrations.Migration):
    dependencies = [("incidents", "0027_similar_lists_facet_weights")]

    operations = [
        migrations.AddField(
            model_name="caseprofile",
            name="hub_nearest",
            field=models.JSONField(null=True),
        ),
        migrations.AddField(
            model_name="caseprofile",
            name="hubness",
            field=models.FloatField(null=True),
        ),
        migrations.AddIndex(
            model_name="caseprofile",
            index=models.Index(
                condition=models.Q(("hubness__isnull", False)),
                fields=["hubness"],
                name="caseprofile_hubness",
            ),
        ),
        migrations.RunPython(mark_every_list_pending, migrations.RunPython.noop),
    ]
