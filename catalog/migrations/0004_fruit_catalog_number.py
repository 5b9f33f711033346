import django.core.validators
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("catalog", "0003_fruitimage_thumbnail_data")]

    operations = [
        migrations.AddField(
            model_name="fruit",
            name="catalog_number",
            field=models.IntegerField(
                blank=True,
                help_text="Assigned as the current maximum + 1 when left empty.",
                null=True,
                unique=True,
                validators=[
                    django.core.validators.MinValueValidator(1),
                    django.core.validators.MaxValueValidator(2147483647),
                ],
            ),
        ),
        migrations.AlterModelOptions(
            name="fruit",
            options={"ordering": [models.OrderBy(models.F("catalog_number"), nulls_last=True), "pk"]},
        ),
        migrations.AddConstraint(
            model_name="fruit",
            constraint=models.CheckConstraint(
                condition=models.Q(catalog_number__gte=1) | models.Q(catalog_number__isnull=True),
                name="fruit_catalog_number_positive",
            ),
        ),
    ]
