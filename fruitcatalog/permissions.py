"""Who may do what: public reads, model permissions for writes."""

from rest_framework import permissions


class ModelPermissionsOrReadOnly(permissions.DjangoModelPermissionsOrAnonReadOnly):
    """Anyone reads; writes need the `add_`/`change_`/`delete_` permission of the view's model."""


class IsStaffOrReadOnly(permissions.BasePermission):
    """Anyone may ask (OPTIONS); only staff may act: operations such as the thumbnail backfill."""

    def has_permission(self, request, view):
        if request.method in permissions.SAFE_METHODS:
            return True
        return bool(request.user and request.user.is_staff)


class ParentChangePermission(permissions.BasePermission):
    """Anyone reads a sub-resource; writing it needs `change_` on the parent model.

    The view names the parent with a `parent_model` attribute.
    """

    def has_permission(self, request, view):
        if request.method in permissions.SAFE_METHODS:
            return True
        if not (request.user and request.user.is_authenticated):
            return False
        opts = view.parent_model._meta
        return request.user.has_perm(f"{opts.app_label}.change_{opts.model_name}")
