"""Recompute the fruit search column with its new part separator (U+001F instead of a newline)."""

from django.db import migrations

from catalog.migration_data import fill_fruit_search_text


def refill(apps, schema_editor):
    fill_fruit_search_text(apps.get_model("catalog", "Fruit"))


class Migration(migrations.Migration):
    dependencies = [("catalog", "0010_fruitsynonym_name_key")]

    operations = [migrations.RunPython(refill, migrations.RunPython.noop)]
