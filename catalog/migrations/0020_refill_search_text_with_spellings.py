"""Recompute the fruit search column: both spellings of umlauts, punctuation folded, own name first."""

from django.db import migrations

from catalog.migration_data import fill_fruit_search_text


def refill(apps, schema_editor):
    fill_fruit_search_text(apps.get_model("catalog", "Fruit"))


class Migration(migrations.Migration):
    dependencies = [("catalog", "0019_typed_names")]

    # Backwards nothing is needed: the older substring search finds its terms in this form too.
    operations = [migrations.RunPython(refill, migrations.RunPython.noop)]
