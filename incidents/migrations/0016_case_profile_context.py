"""Similar cases read the whole case text, not only its account.

Profiles stored before this migration have no `context_counts` (null); after it the
neighbour lists are recomputed once from fresh profiles (`IncidentsConfig.ready` ->
`_refresh_old_profiles` on post_migrate), since their scores used the old weights.
"""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('incidents', '0015_case_status_id_index'),
    ]

    operations = [
        migrations.AddField(
            model_name='caseprofile',
            name='context_counts',
            field=models.JSONField(null=True),
        ),
    ]
