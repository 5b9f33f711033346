"""The German name and labels of characteristics and their states are recorded too."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("history", "0003_baseline_versions"),
    ]

    operations = [
        migrations.AddField(
            model_name="historicalcharacteristic",
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
            model_name="historicalcharacteristicstate",
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
