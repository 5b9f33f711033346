"""The exports date every change: images get updated_at, deletions a log that triggers keep."""

from django.db import migrations, models

from fruitcatalog.db.triggers import install_deletion_log, remove_deletion_log

TABLES = ["catalog_fruit", "catalog_fruitimage"]


def install(apps, schema_editor):
    for table in TABLES:
        install_deletion_log(schema_editor, table)


def remove(apps, schema_editor):
    for table in TABLES:
        remove_deletion_log(schema_editor, table)
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP FUNCTION IF EXISTS catalog_deletion_log()")


class Migration(migrations.Migration):

    dependencies = [
        ('catalog', '0022_image_details_and_rights'),
    ]

    operations = [
        migrations.CreateModel(
            name='Deletion',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('deleted_at', models.DateTimeField(db_index=True)),
            ],
        ),
        migrations.AddField(
            model_name='fruitimage',
            name='updated_at',
            field=models.DateTimeField(auto_now=True),
        ),
        migrations.AddIndex(
            model_name='fruit',
            index=models.Index(fields=['updated_at'], name='catalog_fruit_updated_idx'),
        ),
        migrations.AddIndex(
            model_name='fruitimage',
            index=models.Index(fields=['updated_at'], name='catalog_fruitimage_updated_idx'),
        ),
        migrations.RunPython(install, remove),
    ]
