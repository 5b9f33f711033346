"""Fill type, size, dimensions and hashes of images stored before the metadata columns existed."""

from django.db import migrations

from catalog.migration_data import fill_image_metadata


def fill(apps, schema_editor):
    fill_image_metadata(apps.get_model("catalog", "FruitImage"))


class Migration(migrations.Migration):
    dependencies = [("catalog", "0005_fruitimage_metadata")]

    operations = [migrations.RunPython(fill, migrations.RunPython.noop, elidable=True)]
