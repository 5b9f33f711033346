"""Covers and publication fruit images are stored without PostgreSQL's compression attempt."""

from django.db import migrations

from fruitcatalog.blobs.storage import store_uncompressed


class Migration(migrations.Migration):
    dependencies = [
        ("publications", "0003_refill_search_text"),
    ]

    operations = [
        store_uncompressed("publications", "Publication", "cover_data"),
        store_uncompressed("publications", "PublicationFruitImage", "data", "thumbnail_data"),
    ]
