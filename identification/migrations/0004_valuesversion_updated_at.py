"""ValuesVersion dates its last bump (`updated_at`, set by `bump_versions`): the exports' date
follows characteristics and values, removals included."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("identification", "0003_curators_permissions"),
    ]

    operations = [
        migrations.AddField(
            model_name="valuesversion",
            name="updated_at",
            field=models.DateTimeField(auto_now=True),
        ),
    ]
