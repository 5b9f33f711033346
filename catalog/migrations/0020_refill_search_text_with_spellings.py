"""Recompute the fruit search column: both spellings of umlauts, punctuation folded, own name first."""

import unicodedata

from django.db import migrations

from catalog.migration_data import fill_fruit_search_text


def refill(apps, schema_editor):
    fill_fruit_search_text(apps.get_model("catalog", "Fruit"))


def refill_as_before(apps, schema_editor):
    """Backwards: the column as the code before this migration searched it."""
    Fruit = apps.get_model("catalog", "Fruit")
    batch = []
    for fruit in Fruit.objects.prefetch_related("synonyms").iterator(chunk_size=1000):
        names = [s.name for s in sorted(fruit.synonyms.all(), key=lambda s: (s.position, s.pk))]
        fruit.search_text = _document_before(fruit.catalog_number, fruit.name, *names)
        batch.append(fruit)
    Fruit.objects.bulk_update(batch, ["search_text"], batch_size=1000)


def _fold_before(text: str) -> str:
    """The folding of the search column before this migration (case and accents only)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(char for char in decomposed if not unicodedata.combining(char)).casefold()


def _document_before(*parts) -> str:
    return "\x1f".join(
        _fold_before(str(part)).replace("\x1f", " ") for part in parts if part not in (None, "")
    )


class Migration(migrations.Migration):
    dependencies = [("catalog", "0019_typed_names")]

    operations = [migrations.RunPython(refill, refill_as_before)]
