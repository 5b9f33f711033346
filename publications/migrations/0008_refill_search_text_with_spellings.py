"""Recompute the publication search column: both spellings of umlauts, punctuation folded."""

import unicodedata

from django.db import migrations

from fruitcatalog.db.search import search_document


def refill(apps, schema_editor, document=search_document):
    Publication = apps.get_model("publications", "Publication")
    batch = []
    for publication in Publication.objects.only("pk", "title", "authors").iterator():
        publication.search_text = document(publication.title, publication.authors)
        batch.append(publication)
    Publication.objects.bulk_update(batch, ["search_text"], batch_size=1000)


def refill_as_before(apps, schema_editor):
    """Backwards: the column as the code before this migration searched it."""
    refill(apps, schema_editor, document=_document_before)


def _fold_before(text: str) -> str:
    """The folding of the search column before this migration (case and accents only)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(char for char in decomposed if not unicodedata.combining(char)).casefold()


def _document_before(*parts) -> str:
    return "\x1f".join(
        _fold_before(str(part)).replace("\x1f", " ") for part in parts if part not in (None, "")
    )


class Migration(migrations.Migration):
    dependencies = [("publications", "0007_publication_cover_thumbnail")]

    operations = [migrations.RunPython(refill, refill_as_before)]
