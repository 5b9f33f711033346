"""Every folded spelling of a fruit's names and number as a row: exact and starts-with search by index."""

import django.db.models.deletion
from django.db import migrations, models

from catalog.migration_data import fill_fruit_spellings


def fill(apps, schema_editor):
    fill_fruit_spellings(
        apps.get_model("catalog", "Fruit"), apps.get_model("catalog", "FruitSpelling")
    )


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0020_refill_search_text_with_spellings"),
    ]

    operations = [
        migrations.CreateModel(
            name="FruitSpelling",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("spelling", models.TextField()),
                ("is_own_name", models.BooleanField(default=False)),
                ("catalog_number", models.IntegerField(null=True)),
                (
                    "fruit",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="spellings",
                        to="catalog.fruit",
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(
                        fields=["spelling"],
                        include=("catalog_number", "fruit", "is_own_name"),
                        name="catalog_fruitspelling_idx",
                        opclasses=["text_pattern_ops"],
                    ),
                    models.Index(
                        fields=["catalog_number", "fruit"],
                        include=("spelling", "is_own_name"),
                        name="catalog_spelling_order_idx",
                    ),
                ],
            },
        ),
        # Backwards, dropping the table removes the rows.
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
