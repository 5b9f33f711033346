"""The "Curators" group, given every model permission of the catalog, publications and
identification apps.

Data migrations of each app call these with their historical `apps`: keep the signatures stable.
"""

CURATORS_GROUP = "Curators"


def grant_curators_app_permissions(apps, app_label, models=None):
    """Give the Curators group every model permission of `app_label` (of its `models` only, when
    given: model names in lower case), creating both as needed."""
    from django.contrib.auth.management import create_permissions

    # Django creates permissions only after the whole `migrate` run; a data migration on a fresh
    # database has to create them itself. Historical app configs have no models module, which
    # `create_permissions` takes as "nothing to do": mark it for the duration of the call.
    app_config = apps.get_app_config(app_label)
    app_config.models_module = True
    try:
        create_permissions(app_config, apps=apps, verbosity=0)
    finally:
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name=CURATORS_GROUP)
    group.permissions.add(*_permissions(Permission, app_label, models))


def revoke_curators_app_permissions(apps, app_label, models=None):
    """Take the permissions of `app_label` (of its `models` only, when given) away from the
    Curators group; drop it when empty."""
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.filter(name=CURATORS_GROUP).first()
    if group is None:
        return
    group.permissions.remove(*_permissions(Permission, app_label, models))
    if not group.permissions.exists():
        group.delete()


def _permissions(Permission, app_label, models):
    permissions = Permission.objects.filter(content_type__app_label=app_label)
    return permissions if models is None else permissions.filter(content_type__model__in=models)
