"""Give the "Curators" group every publications permission."""

from django.db import migrations

from fruitcatalog.curators import grant_curators_app_permissions, revoke_curators_app_permissions


def grant(apps, schema_editor):
    grant_curators_app_permissions(apps, "publications")


def revoke(apps, schema_editor):
    revoke_curators_app_permissions(apps, "publications")


class Migration(migrations.Migration):
    dependencies = [
        ("publications", "0001_initial"),
        ("catalog", "0008_curators_group"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(grant, revoke)]
