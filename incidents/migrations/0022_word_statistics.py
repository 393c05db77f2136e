"""Word statistics for increments into a large library (incidents/search/word_statistics.py),
counted here from the profiles already stored."""

import json
from collections import Counter

from django.db import migrations, models

BATCH = 2000


def count_stored_profiles(apps, schema_editor):
    """Each published case's stored profile counted (as `word_statistics.recount` does)."""
    profile_model = apps.get_model("incidents", "CaseProfile")
    statistic_model = apps.get_model("incidents", "WordStatistic")
    published = profile_model.objects.filter(case__status="published")
    accounts: Counter = Counter()
    texts: Counter = Counter()
    ids = sorted(published.values_list("case_id", flat=True))
    for start in range(0, len(ids), BATCH):
        rows = profile_model.objects.filter(case_id__in=ids[start : start + BATCH])
        for counts, context in rows.values_list("counts", "context_counts"):
            counts = json.loads(counts) if isinstance(counts, str) else counts
            context = json.loads(context) if isinstance(context, str) else context or {}
            account = set(counts)
            accounts.update(account)
            texts.update(account.union(context))
    accounts[""] = texts[""] = len(ids)
    statistic_model.objects.bulk_create(
        [statistic_model(word=w, accounts=accounts[w], texts=n) for w, n in texts.items()], batch_size=5000
    )
    published.update(counted=True)


class Migration(migrations.Migration):
    dependencies = [
        ("incidents", "0021_caseterm_term_statistics"),
    ]

    operations = [
        migrations.CreateModel(
            name="WordStatistic",
            fields=[
                ("word", models.TextField(primary_key=True, serialize=False)),
                ("accounts", models.PositiveIntegerField(default=0)),
                ("texts", models.PositiveIntegerField(default=0)),
            ],
        ),
        migrations.AddField(
            model_name="caseprofile",
            name="counted",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(count_stored_profiles, migrations.RunPython.noop),
    ]
