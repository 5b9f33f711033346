"""Curators choose a fruit's card image: at most one per fruit, found by one index probe."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0015_fill_fruitimage_thumbnail_dimensions"),
    ]

    operations = [
        migrations.AddField(
            model_name="fruitimage",
            name="is_card_image",
            field=models.BooleanField(default=False, editable=False),
        ),
        migrations.AddIndex(
            model_name="fruitimage",
            index=models.Index(
                fields=["fruit", "-is_card_image", "id"], name="catalog_fruitimage_card_idx"
            ),
        ),
        migrations.AddConstraint(
            model_name="fruitimage",
            constraint=models.UniqueConstraint(
                condition=models.Q(("is_card_image", True)),
                fields=("fruit",),
                name="fruitimage_one_card_image_per_fruit",
            ),
        ),
    ]
