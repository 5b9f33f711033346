"""The exports date every change: links and images get updated_at, deletions logged by triggers."""

from django.db import migrations, models

from fruitcatalog.db.triggers import install_deletion_log, remove_deletion_log

TABLES = [
    "publications_publication",
    "publications_publicationfruit",
    "publications_publicationfruitimage",
]


def install(apps, schema_editor):
    for table in TABLES:
        install_deletion_log(schema_editor, table)


def remove(apps, schema_editor):
    for table in TABLES:
        remove_deletion_log(schema_editor, table)


class Migration(migrations.Migration):

    dependencies = [
        ('catalog', '0023_exports_change_tracking'),
        ('publications', '0010_image_details_and_rights'),
    ]

    operations = [
        migrations.AddField(
            model_name='publicationfruit',
            name='updated_at',
            field=models.DateTimeField(auto_now=True),
        ),
        migrations.AddField(
            model_name='publicationfruitimage',
            name='updated_at',
            field=models.DateTimeField(auto_now=True),
        ),
        migrations.AddIndex(
            model_name='publicationfruit',
            index=models.Index(fields=['updated_at'], name='publications_link_updated_idx'),
        ),
        migrations.RunPython(install, remove),
    ]
