"""Recompute the publication search column: both spellings of umlauts, punctuation folded."""

from django.db import migrations

from fruitcatalog.db.search import search_document


def refill(apps, schema_editor):
    Publication = apps.get_model("publications", "Publication")
    batch = []
    for publication in Publication.objects.only("pk", "title", "authors").iterator():
        publication.search_text = search_document(publication.title, publication.authors)
        batch.append(publication)
    Publication.objects.bulk_update(batch, ["search_text"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [("publications", "0007_publication_cover_thumbnail")]

    # Backwards nothing is needed: the older substring search finds its terms in this form too.
    operations = [migrations.RunPython(refill, migrations.RunPython.noop)]
