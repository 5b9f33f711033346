"""Fill the thumbnail width and height of stored fruit images from the thumbnails' headers."""

from django.db import migrations

from fruitcatalog.blobs.migration_data import THUMBNAIL_BATCH_SIZE, fill_dimensions


def fill(apps, schema_editor):
    fill_dimensions(
        apps.get_model("catalog", "FruitImage"), "thumbnail", batch_size=THUMBNAIL_BATCH_SIZE
    )


class Migration(migrations.Migration):
    dependencies = [("catalog", "0014_fruitimage_thumbnail_dimensions")]

    # Backwards, the columns go in 0014; there is nothing to undo here.
    operations = [migrations.RunPython(fill, migrations.RunPython.noop, elidable=True)]
