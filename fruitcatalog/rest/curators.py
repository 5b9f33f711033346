"""The "Curators" group, given every model permission of the catalog and publications apps.

Data migrations of each app call these with their historical `apps`: keep the signatures stable.
"""

CURATORS_GROUP = "Curators"


def grant_curators_app_permissions(apps, app_label):
    """Give the Curators group every model permission of `app_label`, creating both as needed."""
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
    group.permissions.add(*Permission.objects.filter(content_type__app_label=app_label))


def revoke_curators_app_permissions(apps, app_label):
    """Take the permissions of `app_label` away from the Curators group; drop it when empty."""
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.filter(name=CURATORS_GROUP).first()
    if group is None:
        return
    group.permissions.remove(*Permission.objects.filter(content_type__app_label=app_label))
    if not group.permissions.exists():
        group.delete()
