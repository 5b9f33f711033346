"""Covers and publication fruit images' thumbnails keep their width and height."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("publications", "0004_store_images_uncompressed"),
    ]

    operations = [
        migrations.AddField(
            model_name="publication",
            name="cover_width",
            field=models.PositiveIntegerField(default=0, editable=False),
        ),
        migrations.AddField(
            model_name="publication",
            name="cover_height",
            field=models.PositiveIntegerField(default=0, editable=False),
        ),
        migrations.AddField(
            model_name="publicationfruitimage",
            name="thumbnail_width",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="publicationfruitimage",
            name="thumbnail_height",
            field=models.PositiveIntegerField(default=0),
        ),
    ]
