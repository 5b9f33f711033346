"""Fruit images keep their thumbnail's width and height (pages size their `<img>` from them)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0013_store_images_uncompressed"),
    ]

    operations = [
        migrations.AddField(
            model_name="fruitimage",
            name="thumbnail_width",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="fruitimage",
            name="thumbnail_height",
            field=models.PositiveIntegerField(default=0),
        ),
    ]
