"""Who may do what: public reads, model permissions for writes."""

from rest_framework import permissions


class ModelPermissionsOrReadOnly(permissions.DjangoModelPermissionsOrAnonReadOnly):
    """Anyone reads; writes need the `add_`/`change_`/`delete_` permission of the view's model."""


class IsStaffOrReadOnly(permissions.BasePermission):
    """Anyone may ask (OPTIONS); only staff may act: operations such as the thumbnail backfill.

    A view may also name `required_permissions`, which the staff user must hold too (the
    backfill needs what the admin's action needs: `change_` on every image model).
    """

    def has_permission(self, request, view):
        if request.method in permissions.SAFE_METHODS:
            return True
        user = request.user
        if not (user and user.is_staff):
            return False
        return user.has_perms(getattr(view, "required_permissions", lambda: [])())


class ParentChangePermission(permissions.BasePermission):
    """Anyone reads a sub-resource; writing it needs what the admin asks for the same change.

    That is `change_` on the parent (the view's `parent_model`) and the sub-resource's own
    permission when the view names a `child_model`: `add_` to create, `change_` to replace,
    `delete_` to remove — or the action `child_actions` maps the method to.
    """

    default_child_actions = {"POST": "add", "PUT": "change", "PATCH": "change", "DELETE": "delete"}

    def has_permission(self, request, view):
        if request.method in permissions.SAFE_METHODS:
            return True
        if not (request.user and request.user.is_authenticated):
            return False
        opts = view.parent_model._meta
        needed = [f"{opts.app_label}.change_{opts.model_name}"]
        child = getattr(view, "child_model", None)
        actions = {**self.default_child_actions, **getattr(view, "child_actions", {})}
        action = actions.get(request.method)  # none for methods the view answers with 405
        if child is not None and action is not None:
            child_opts = child._meta
            needed.append(f"{child_opts.app_label}.{action}_{child_opts.model_name}")
        return request.user.has_perms(needed)
