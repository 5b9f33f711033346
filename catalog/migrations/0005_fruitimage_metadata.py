from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("catalog", "0004_fruit_catalog_number")]

    operations = [
        migrations.AddField(
            model_name="fruitimage",
            name="content_type",
            field=models.CharField(blank=True, default="", max_length=100),
        ),
        migrations.AddField(
            model_name="fruitimage",
            name="size",
            field=models.PositiveBigIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="fruitimage",
            name="width",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="fruitimage",
            name="height",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="fruitimage",
            name="sha256",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
        migrations.AddField(
            model_name="fruitimage",
            name="thumbnail_sha256",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
    ]
