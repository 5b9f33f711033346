"""The admin's History pages read from the recorded versions; a fruit's "Revert to this version"
with a preview; "Recover deleted fruits".

The catalog and the publications know nothing of history, which sits above them. So this module
registers the fruit's and the publication's admins again, each as a subclass of the admin
registered now with these pages mixed in (`register_with`: `AdminSite.get_model_admin`,
`unregister` and `register`, the admin's public API). The admin's autodiscovery imports it after
the apps below (`INSTALLED_APPS` lists history after them), so it extends their admins as
identification extends the catalog's. Every page is for users who may change the model
(curators), as the API's history is: a version names its user.
"""

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.contrib.admin.views.main import PAGE_VAR
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.text import capfirst
from django.utils.translation import gettext, gettext_lazy

from catalog.models import Fruit, ImportBatch
from history.display import LABELS, VIA, Reader, action_label
from history.services import (
    REVERTED,
    CatalogNumberHeld,
    VersionNotFound,
    fruit_restore,
    fruit_revert,
    fruit_revert_preview,
)
from history.versions import Version, deleted_fruits, fruit_versions, publication_versions
from publications.models import Publication

VERSIONS_PER_PAGE = 50
DELETED_PER_PAGE = 50


def _sides(changes: dict) -> tuple[dict, dict]:
    """A version's changes as its two states: the parts before and after."""
    return (
        {key: change["from"] for key, change in changes.items()},
        {key: change["to"] for key, change in changes.items()},
    )


class VersionsAdminMixin:
    """A ModelAdmin whose History page lists the object's versions, newest first, each with
    when, who, door, import, action and what it changed (old → new)."""

    versions_template = "history/admin/versions.html"

    def versions(self, pk: int) -> list[Version]:
        raise NotImplementedError

    def revert_url(self, pk: int, version: Version) -> str | None:
        """Where the version's "Revert to this version" leads, if it can be reverted to."""
        return None

    def recover_url(self, pk: int) -> str | None:
        """Where a deleted object is recovered, if it can be."""
        return None

    def name_in(self, state: dict) -> str:
        """What a deleted object was called, from its last state."""
        return state.get("name") or ""

    def _context(self, request, title: str, **context) -> dict:
        return {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "module_name": str(capfirst(self.opts.verbose_name_plural)),
            "title": title,
            "subtitle": None,
            **context,
        }

    def _pk(self, object_id) -> int:
        try:
            return int(unquote(object_id))
        except ValueError:
            raise Http404 from None

    def history_view(self, request, object_id, extra_context=None):
        """The object's versions (a deleted object's too), paginated."""
        if not self.has_change_permission(request):
            raise PermissionDenied
        pk = self._pk(object_id)
        obj = self.get_object(request, str(pk))
        versions = self.versions(pk)
        if obj is None and not versions:
            raise Http404
        if obj is not None and not self.has_change_permission(request, obj):
            raise PermissionDenied
        newest_first = list(reversed(versions))
        paginator = Paginator(newest_first, VERSIONS_PER_PAGE)
        page = paginator.get_page(request.GET.get(PAGE_VAR))
        reader = Reader(side for version in page for side in _sides(version.changes))
        batches = ImportBatch.objects.in_bulk({v.batch for v in page if v.batch is not None})
        name = str(obj) if obj is not None else self.name_in(versions[-1].state)
        context = self._context(
            request,
            (
                gettext("History: %(name)s") % {"name": name}
                if obj is not None
                else gettext("History: %(name)s (deleted)") % {"name": name}
            ),
            object=obj,
            object_name=name,
            rows=[
                {
                    "version": version,
                    "via": VIA.get(version.via, version.via),
                    "action": action_label(version.action),
                    "batch": batches.get(version.batch),
                    "batch_url": self._batch_url(version.batch),
                    "differences": reader.differences(version.changes),
                    "revert_url": (
                        self.revert_url(pk, version)
                        if obj is not None and version is not versions[-1]
                        else None
                    ),
                }
                for version in page
            ],
            recover_url=self.recover_url(pk) if obj is None else None,
            page=page,
            page_range=paginator.get_elided_page_range(page.number),
            page_var=PAGE_VAR,
            **(extra_context or {}),
        )
        request.current_app = self.admin_site.name
        return TemplateResponse(request, self.versions_template, context)

    def _batch_url(self, batch: int | None) -> str | None:
        """The import's admin page, if imports have one."""
        if batch is None or not self.admin_site.is_registered(ImportBatch):
            return None
        opts = ImportBatch._meta
        return reverse(
            f"{self.admin_site.name}:{opts.app_label}_{opts.model_name}_change", args=[batch]
        )


class FruitVersionsMixin(VersionsAdminMixin):
    """Fruits, with their versions, a revert to any of them and the recovery of deleted ones."""

    change_list_template = "history/admin/fruit_change_list.html"

    def versions(self, pk):
        return fruit_versions(pk)

    def revert_url(self, pk, version):
        if version.action == "deleted":
            return None
        return reverse(f"{self.admin_site.name}:catalog_fruit_revert", args=[pk, version.id])

    def recover_url(self, pk):
        if not deleted_fruits().filter(id=pk).exists():
            return None  # purged
        return reverse(f"{self.admin_site.name}:catalog_fruit_recover", args=[pk])

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("deleted/", view(self.deleted_view), name="catalog_fruit_deleted"),
            path(
                "deleted/<int:fruit_id>/recover/",
                view(self.recover_view),
                name="catalog_fruit_recover",
            ),
            path(
                "<int:fruit_id>/history/<uuid:version_id>/revert/",
                view(self.revert_view),
                name="catalog_fruit_revert",
            ),
            *super().get_urls(),
        ]

    def changelist_view(self, request, extra_context=None):
        context = {
            "can_recover": self.has_change_permission(request),
            # The list this one adds its link to: the one the admin below would show.
            "history_base_template": super().change_list_template or "admin/change_list.html",
        }
        return super().changelist_view(request, {**(extra_context or {}), **context})

    def revert_view(self, request, fruit_id, version_id):
        """What reverting the fruit to the version changes (GET); the revert itself (POST)."""
        if not self.has_change_permission(request):
            raise PermissionDenied
        version_id = str(version_id)
        status, refused = 200, False
        if request.method == "POST":
            try:
                fruit, missing = fruit_revert(fruit_id=fruit_id, version_id=version_id)
            except (Fruit.DoesNotExist, VersionNotFound):
                raise Http404 from None
            except ValidationError as refusal:  # a number held, a loop the relations would make
                self.message_user(request, _refusal(refusal), messages.ERROR)
                status, refused = 409, True
            else:
                self.message_user(
                    request,
                    gettext("“%(fruit)s” was reverted to the chosen version.") % {"fruit": fruit},
                    messages.SUCCESS,
                )
                _not_restored(self, request, missing)
                return redirect(f"{self.admin_site.name}:catalog_fruit_change", fruit_id)
        try:
            preview = fruit_revert_preview(fruit_id=fruit_id, version_id=version_id)
        except (Fruit.DoesNotExist, VersionNotFound):
            raise Http404 from None
        fruit = Fruit.objects.get(pk=fruit_id)
        reader = Reader(_sides(preview.changes))
        context = self._context(
            request,
            gettext("Revert “%(fruit)s” to this version?") % {"fruit": fruit},
            object=fruit,
            preview=preview,
            action=action_label(preview.version.action),
            refusal=(
                _refusal(preview.refused, gettext("This revert would be refused"))
                if preview.refused and not refused
                else ""
            ),
            differences=reader.differences(preview.changes),
            reverted_parts=[LABELS[key] for key in REVERTED],
        )
        request.current_app = self.admin_site.name
        return TemplateResponse(request, "history/admin/revert.html", context, status=status)

    def deleted_view(self, request):
        """The fruits deleted and not restored, the latest deletion first, each recoverable."""
        if not self.has_change_permission(request):
            raise PermissionDenied
        paginator = Paginator(deleted_fruits(), DELETED_PER_PAGE)
        page = paginator.get_page(request.GET.get(PAGE_VAR))
        context = self._context(
            request,
            gettext("Recover deleted fruits"),
            rows=[
                {
                    "row": row,
                    "user": row.history_user.get_username() if row.history_user else None,
                    "via": VIA.get(row.via, row.via),
                }
                for row in page
            ],
            page=page,
            page_range=paginator.get_elided_page_range(page.number),
            page_var=PAGE_VAR,
        )
        request.current_app = self.admin_site.name
        return TemplateResponse(request, "history/admin/deleted_fruits.html", context)

    def recover_view(self, request, fruit_id):
        """The deleted fruit as it was (GET); its restore under its id and number (POST)."""
        if not self.has_change_permission(request):
            raise PermissionDenied
        status = 200
        if request.method == "POST":
            try:
                fruit, missing = fruit_restore(fruit_id=fruit_id)
            except VersionNotFound:
                self.message_user(
                    request,
                    gettext("Fruit %(id)s is not a deleted fruit (or was recovered already).")
                    % {"id": fruit_id},
                    messages.ERROR,
                )
                return redirect(f"{self.admin_site.name}:catalog_fruit_deleted")
            except ValidationError as refusal:
                self.message_user(request, _refusal(refusal), messages.ERROR)
                status = 409
            else:
                self.message_user(
                    request,
                    gettext("“%(fruit)s” was recovered.") % {"fruit": fruit},
                    messages.SUCCESS,
                )
                _not_restored(self, request, missing)
                return redirect(f"{self.admin_site.name}:catalog_fruit_change", fruit.pk)
        if not deleted_fruits().filter(id=fruit_id).exists():
            raise Http404  # never deleted, recovered already or purged
        deletion = fruit_versions(fruit_id)[-1]
        state = deletion.state
        context = self._context(
            request,
            gettext("Recover “%(name)s”?") % {"name": state.get("name")},
            deletion=deletion,
            via=VIA.get(deletion.via, deletion.via),
            parts=Reader([state]).parts(state),
            fruit_id=fruit_id,
        )
        request.current_app = self.admin_site.name
        return TemplateResponse(request, "history/admin/recover.html", context, status=status)


class PublicationVersionsMixin(VersionsAdminMixin):
    """Publications, with their versions."""

    def versions(self, pk):
        return publication_versions(pk)

    def name_in(self, state):
        return state.get("title") or ""


def _not_restored(model_admin, request, missing) -> None:
    """A warning for each part a revert or recovery could not restore as it was."""
    for text in missing:
        model_admin.message_user(
            request, gettext("Not restored as it was: %(text)s.") % {"text": text}, messages.WARNING
        )


def _refusal(
    refusal: ValidationError, outcome: str = gettext_lazy("Refused, nothing changed")
) -> str:
    if isinstance(refusal, CatalogNumberHeld):
        return gettext(
            "%(outcome)s: catalog number %(number)s is fruit %(holder)s's now. "
            "Give that fruit another number first."
        ) % {"outcome": outcome, "number": refusal.catalog_number, "holder": refusal.holder_id}
    return gettext("%(outcome)s: %(why)s") % {"outcome": outcome, "why": " ".join(refusal.messages)}


def register_with(model, mixin) -> None:
    """Register `model`'s admin again as the one registered now with `mixin` over it (an app
    below may have extended the model's own already, as identification does the catalog's)."""
    base = type(admin.site.get_model_admin(model))
    admin.site.unregister(model)
    name = mixin.__name__.removesuffix("Mixin") + "Admin"
    admin.site.register(model, type(name, (mixin, base), {"__module__": __name__}))


register_with(Fruit, FruitVersionsMixin)
register_with(Publication, PublicationVersionsMixin)
