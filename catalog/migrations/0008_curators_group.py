"""The "Curators" group with every catalog permission."""

from django.db import migrations

from fruitcatalog.curators import grant_curators_app_permissions, revoke_curators_app_permissions


def grant(apps, schema_editor):
    grant_curators_app_permissions(apps, "catalog")


def revoke(apps, schema_editor):
    revoke_curators_app_permissions(apps, "catalog")


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0007_fruit_search_text"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(grant, revoke)]
