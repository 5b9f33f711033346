"""The exports date every change: links and images get updated_at, deletions a trigger's stamp."""

from django.db import migrations, models

from fruitcatalog.db.triggers import install_deletion_stamp, remove_deletion_stamp

TABLES = [
    "publications_publication",
    "publications_publicationfruit",
    "publications_publicationfruitimage",
]


def install(apps, schema_editor):
    for table in TABLES:
        install_deletion_stamp(schema_editor, table)


def remove(apps, schema_editor):
    for table in TABLES:
        remove_deletion_stamp(schema_editor, table)


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
