"""Fruit images and thumbnails are stored without PostgreSQL's compression attempt."""

from django.db import migrations

from fruitcatalog.blobs.storage import store_uncompressed


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0012_fruit_catalog_order_index"),
    ]

    operations = [
        store_uncompressed("catalog", "FruitImage", "data", "thumbnail_data"),
    ]
