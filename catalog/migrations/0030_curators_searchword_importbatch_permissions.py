"""The "Curators" group gets the permissions of the catalog's newer models: the dictionary of
search words and the import batches (whose undo is a curator's)."""

from django.db import migrations

from core.rest.curators import grant_curators_app_permissions, revoke_curators_app_permissions

NEWER_MODELS = ["searchword", "importbatch"]


def grant(apps, schema_editor):
    grant_curators_app_permissions(apps, "catalog", NEWER_MODELS)


def revoke(apps, schema_editor):
    revoke_curators_app_permissions(apps, "catalog", NEWER_MODELS)


class Migration(migrations.Migration):
    dependencies = [("catalog", "0029_importbatch")]

    operations = [migrations.RunPython(grant, revoke)]
