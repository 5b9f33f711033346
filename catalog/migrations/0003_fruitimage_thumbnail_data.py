from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("catalog", "0002_fruits_synonyms_images")]

    operations = [
        migrations.AddField(
            model_name="fruitimage",
            name="thumbnail_data",
            field=models.BinaryField(blank=True, null=True),
        ),
    ]
