"""The "Curators" group gets every identification permission (characteristics, values)."""

from django.db import migrations

from fruitcatalog.curators import grant_curators_app_permissions, revoke_curators_app_permissions


def grant(apps, schema_editor):
    grant_curators_app_permissions(apps, "identification")


def revoke(apps, schema_editor):
    revoke_curators_app_permissions(apps, "identification")


class Migration(migrations.Migration):
    dependencies = [
        ("identification", "0002_standard_characteristics"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(grant, revoke)]
