"""The "Curators" group gets the permissions of the catalog models that came after 0008 gave it
every catalog permission: relations (an inline of the fruit's admin page), spellings, the
deletion log and catalog number marks."""

from django.db import migrations

from fruitcatalog.curators import grant_curators_app_permissions, revoke_curators_app_permissions

NEWER_MODELS = ["fruitrelation", "fruitspelling", "deletion", "catalognumbermark"]


def grant(apps, schema_editor):
    grant_curators_app_permissions(apps, "catalog", NEWER_MODELS)


def revoke(apps, schema_editor):
    revoke_curators_app_permissions(apps, "catalog", NEWER_MODELS)


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0024_fruit_relations"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(grant, revoke)]
