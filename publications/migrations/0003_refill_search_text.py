"""Recompute the publication search column with its new part separator (U+001F)."""

from django.db import migrations

from fruitcatalog.search import search_document


def refill(apps, schema_editor):
    Publication = apps.get_model("publications", "Publication")
    batch = []
    for publication in Publication.objects.only("pk", "title", "authors").iterator():
        publication.search_text = search_document(publication.title, publication.authors)
        batch.append(publication)
    Publication.objects.bulk_update(batch, ["search_text"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [("publications", "0002_curators_publication_permissions")]

    operations = [migrations.RunPython(refill, migrations.RunPython.noop)]
