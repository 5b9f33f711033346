"""The dictionary of the catalog's words ("did you mean"), filled from the existing spellings and
indexed for trigram nearest-neighbour lookups on PostgreSQL."""

from django.db import migrations, models

TRIGRAM_INDEX = "catalog_searchword_trgm"
BATCH = 5_000


def fill(apps, schema_editor):
    # The words rule as it is written now (three characters or more, no digit), frozen here.
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            "INSERT INTO catalog_searchword (word) "
            "SELECT DISTINCT word FROM catalog_fruitspelling, "
            "regexp_split_to_table(spelling, ' ') AS word "
            "WHERE length(word) >= 3 AND word !~ '[[:digit:]]' "
            "ON CONFLICT DO NOTHING"
        )
        return
    FruitSpelling = apps.get_model("catalog", "FruitSpelling")
    SearchWord = apps.get_model("catalog", "SearchWord")
    words = set()
    for spelling in FruitSpelling.objects.values_list("spelling", flat=True).iterator(BATCH):
        words.update(
            word
            for word in spelling.split()
            if len(word) >= 3 and not any(char.isdigit() for char in word)
        )
    SearchWord.objects.bulk_create(
        (SearchWord(word=word) for word in sorted(words)), batch_size=BATCH, ignore_conflicts=True
    )


def create_trigram_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {TRIGRAM_INDEX} ON catalog_searchword "
            "USING gist (word gist_trgm_ops)"
        )


def drop_trigram_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {TRIGRAM_INDEX}")


class Migration(migrations.Migration):
    dependencies = [("catalog", "0027_fruitrelation_name_key")]

    operations = [
        migrations.CreateModel(
            name="SearchWord",
            fields=[("word", models.TextField(primary_key=True, serialize=False))],
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
        migrations.RunPython(create_trigram_index, drop_trigram_index),
    ]
