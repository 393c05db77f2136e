"""A history row's reason is text: simple-history's default column held 100 characters and
`history.record` cut every reason there, so an editor's reason for an admin change, a
retraction's or a merge's, lost its end in the history. Widening keeps every stored row.
"""
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('incidents', '0025_case_added'),
    ]

    operations = [
        migrations.AlterField(
            model_name='historicalcase',
            name='history_change_reason',
            field=models.TextField(null=True),
        ),
    ]
