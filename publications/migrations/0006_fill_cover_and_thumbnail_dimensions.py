"""Fill the width and height of stored covers and thumbnails from their images' headers."""

from django.db import migrations

from fruitcatalog.blobs.migration_data import (
    COVER_BATCH_SIZE,
    THUMBNAIL_BATCH_SIZE,
    fill_dimensions,
)


def fill(apps, schema_editor):
    fill_dimensions(
        apps.get_model("publications", "Publication"), "cover", batch_size=COVER_BATCH_SIZE
    )
    fill_dimensions(
        apps.get_model("publications", "PublicationFruitImage"),
        "thumbnail",
        batch_size=THUMBNAIL_BATCH_SIZE,
    )


class Migration(migrations.Migration):
    dependencies = [("publications", "0005_cover_and_thumbnail_dimensions")]

    # Backwards, the columns go in 0005; there is nothing to undo here.
    operations = [migrations.RunPython(fill, migrations.RunPython.noop, elidable=True)]
