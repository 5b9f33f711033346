"""A characteristic's name and a state's label in German beside the English ones (empty: the
English one is shown)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("identification", "0004_valuesversion_updated_at"),
    ]

    operations = [
        migrations.AddField(
            model_name="characteristic",
            name="name_de",
            field=models.CharField(
                blank=True,
                default="",
                help_text="Shown on the German pages and answers; empty: the name is shown.",
                max_length=200,
                verbose_name="name in German",
            ),
        ),
        migrations.AddField(
            model_name="characteristicstate",
            name="label_de",
            field=models.CharField(
                blank=True,
                default="",
                help_text="Shown on the German pages and answers; empty: the label is shown.",
                max_length=100,
                verbose_name="label in German",
            ),
        ),
    ]
