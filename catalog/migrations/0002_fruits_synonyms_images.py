import django.db.models.deletion
import django.db.models.functions.text
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("catalog", "0001_initial")]

    operations = [
        migrations.CreateModel(
            name="Fruit",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=200)),
                (
                    "type",
                    models.CharField(
                        choices=[
                            ("apple", "Apple"), ("pear", "Pear"), ("quince", "Quince"), ("cherry", "Cherry"),
                            ("plum", "Plum"), ("apricot", "Apricot"), ("peach", "Peach"), ("grape", "Grape"),
                            ("berry", "Berry"), ("citrus", "Citrus"), ("nut", "Nut"), ("other", "Other"),
                        ],
                        max_length=16,
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
            options={"ordering": ["pk"]},
        ),
        migrations.AddConstraint(
            model_name="fruit",
            constraint=models.CheckConstraint(condition=~models.Q(name=""), name="fruit_name_not_empty"),
        ),
        migrations.AddConstraint(
            model_name="fruit",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    type__in=["apple", "pear", "quince", "cherry", "plum", "apricot", "peach", "grape",
                              "berry", "citrus", "nut", "other"]
                ),
                name="fruit_type_valid",
            ),
        ),
        migrations.CreateModel(
            name="FruitSynonym",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=200)),
                ("position", models.PositiveIntegerField(default=0)),
                (
                    "fruit",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="synonyms", to="catalog.fruit"
                    ),
                ),
            ],
            options={"ordering": ["position", "pk"]},
        ),
        migrations.AddConstraint(
            model_name="fruitsynonym",
            constraint=models.UniqueConstraint(
                models.F("fruit"), django.db.models.functions.text.Lower("name"),
                name="fruitsynonym_unique_name_per_fruit",
            ),
        ),
        migrations.AddConstraint(
            model_name="fruitsynonym",
            constraint=models.CheckConstraint(condition=~models.Q(name=""), name="fruitsynonym_name_not_empty"),
        ),
        migrations.CreateModel(
            name="FruitImage",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("data", models.BinaryField()),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "fruit",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="images", to="catalog.fruit"
                    ),
                ),
            ],
            options={"ordering": ["pk"]},
        ),
    ]
