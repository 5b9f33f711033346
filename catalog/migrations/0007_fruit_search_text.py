"""A folded search column on fruits, filled for existing rows, trigram-indexed on PostgreSQL."""

from django.db import migrations, models

from catalog.migration_data import fill_fruit_search_text

TRIGRAM_INDEX = "catalog_fruit_search_text_trgm"


def fill(apps, schema_editor):
    fill_fruit_search_text(apps.get_model("catalog", "Fruit"))


def create_trigram_index(apps, schema_editor):
    # `LIKE '%…%'` can use a trigram GIN index; SQLite scans, which stays fast at 100,000 rows.
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    schema_editor.execute(
        f"CREATE INDEX IF NOT EXISTS {TRIGRAM_INDEX} ON catalog_fruit "
        "USING gin (search_text gin_trgm_ops)"
    )


def drop_trigram_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {TRIGRAM_INDEX}")


class Migration(migrations.Migration):
    dependencies = [("catalog", "0006_fill_fruitimage_metadata")]

    operations = [
        migrations.AddField(
            model_name="fruit",
            name="search_text",
            field=models.TextField(blank=True, default="", editable=False),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
        migrations.RunPython(create_trigram_index, drop_trigram_index),
    ]
