"""The admin's Imports: every applied import, the latest first, each with an "Undo" whose page
previews what undoing it would change (the fruits deleted, the fruits put back with each field
now → after the undo, the fruits changed since) before anything is written.

The catalog owns `ImportBatch` but cannot undo one (the history sits above it), so its admin is
registered here, from the history app's `ready()`. The list and the pages are for curators: the
list needs the batches' view permission, the undo the fruits' change permission, as the API's.
"""

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext, gettext_lazy

from catalog.models import ImportBatch
from history.display import VIA, Reader, action_label
from history.undo import AlreadyUndone, UndoConflict, import_undo, undo_plan

# Fruits the preview names in each of its sections: an import may have 10,000 rows; the undo
# itself takes them all.
PREVIEW_MAX = 200


@admin.register(ImportBatch)
class ImportBatchAdmin(admin.ModelAdmin):
    """Applied imports: when, who, which file, what they did, and whether they were undone."""

    list_display = ["id", "when", "who", "file", "new", "changed", "undone", "undo"]
    list_display_links = ["id", "when"]
    list_select_related = ["user"]
    list_per_page = 100
    empty_value_display = "—"
    fields = [
        "id",
        "created_at",
        "user",
        "file_name",
        "created_count",
        "changed_count",
        "undone_at",
    ]
    readonly_fields = fields
    change_list_template = "history/admin/importbatch_change_list.html"
    change_form_template = "history/admin/importbatch_change_form.html"

    def has_add_permission(self, request):
        return False  # an import is made by importing a file

    def has_change_permission(self, request, obj=None):
        return False  # a record of what happened: undone, never edited

    def has_delete_permission(self, request, obj=None):
        return False  # without its record an import could no longer be undone

    def can_undo(self, request) -> bool:
        """Who may undo an import: who may change and delete fruits (curators): an undo deletes
        the fruits the import created."""
        return self.has_view_permission(request) and request.user.has_perms(
            ["catalog.change_fruit", "catalog.delete_fruit"]
        )

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("<int:batch_id>/undo/", view(self.undo_view), name="catalog_importbatch_undo"),
            *super().get_urls(),
        ]

    def changelist_view(self, request, extra_context=None):
        return super().changelist_view(
            request, {"title": gettext("Imports"), **(extra_context or {})}
        )

    def change_view(self, request, object_id, form_url="", extra_context=None):
        context = {"can_undo": self.can_undo(request), **(extra_context or {})}
        return super().change_view(request, object_id, form_url, context)

    @admin.display(description=gettext_lazy("When"), ordering="created_at")
    def when(self, batch):
        return batch.created_at

    @admin.display(description=gettext_lazy("By"), ordering="user__username")
    def who(self, batch):
        return batch.user.get_username() if batch.user else gettext("no user")

    @admin.display(description=gettext_lazy("File"), ordering="file_name")
    def file(self, batch):
        return batch.file_name or None

    @admin.display(description=gettext_lazy("New fruits"), ordering="created_count")
    def new(self, batch):
        return batch.created_count

    @admin.display(description=gettext_lazy("Changed fruits"), ordering="changed_count")
    def changed(self, batch):
        return batch.changed_count

    @admin.display(description=gettext_lazy("Undone"), ordering="undone_at")
    def undone(self, batch):
        return batch.undone_at

    @admin.display(description=gettext_lazy("Undo"))
    def undo(self, batch):
        """A link to the undo's preview, for an import not undone yet."""
        if batch.undone_at is not None:
            return "—"
        url = reverse(f"{self.admin_site.name}:catalog_importbatch_undo", args=[batch.pk])
        return format_html(
            '<a class="button" href="{}" aria-label="{}">{}</a>',
            url,
            gettext("Undo import %(id)s…") % {"id": batch.pk},
            gettext("Undo…"),
        )

    def undo_view(self, request, batch_id):
        """What undoing the import would change (GET); the undo itself (POST)."""
        if not self.can_undo(request):
            raise PermissionDenied
        status, refusal = 200, ""
        if request.method == "POST":
            force = request.POST.get("force") == "on"
            try:
                report = import_undo(batch_id=batch_id, force=force)
            except ImportBatch.DoesNotExist:
                raise Http404 from None
            except AlreadyUndone:
                self.message_user(
                    request,
                    gettext("Import %(id)s was undone already.") % {"id": batch_id},
                    messages.ERROR,
                )
                return redirect(f"{self.admin_site.name}:catalog_importbatch_changelist")
            except UndoConflict as conflict:
                status = 409
                count = len(conflict.fruit_ids)
                refusal = gettext(
                    "Nothing was undone: %(count)d fruit(s) were changed since the import. Tick "
                    "the box below to undo the rest and leave those as they are."
                ) % {"count": count}
            else:
                self._report(request, batch_id, report)
                return redirect(f"{self.admin_site.name}:catalog_importbatch_changelist")
        try:
            plan = undo_plan(batch_id=batch_id)
        except ImportBatch.DoesNotExist:
            raise Http404 from None
        reverted = plan.reverted
        reader = Reader(
            {key: change[side] for key, change in item.changes.items()}
            for item in reverted[:PREVIEW_MAX]
            for side in ("from", "to")
        )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": gettext("Undo import %(id)s?") % {"id": plan.batch.pk},
            "subtitle": None,
            "batch": plan.batch,
            "refusal": refusal,
            "deleted": _section(plan.deleted),
            "reverted": _section(
                [
                    {"item": item, "differences": reader.differences(item.changes)}
                    for item in reverted[:PREVIEW_MAX]
                ],
                total=len(reverted),
            ),
            "conflicts": _section(
                [_conflict(item) for item in plan.conflicts[:PREVIEW_MAX]],
                total=len(plan.conflicts),
            ),
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, "history/admin/import_undo.html", context, status=status)

    def _report(self, request, batch_id: int, report) -> None:
        self.message_user(
            request,
            gettext(
                "Import %(id)s was undone: %(deleted)d fruit(s) it created deleted (they can be "
                "recovered from the deleted fruits), %(reverted)d put back as they were before it."
            )
            % {"id": batch_id, "deleted": len(report.deleted), "reverted": len(report.reverted)},
            messages.SUCCESS,
        )
        if report.left:
            ids = ", ".join(str(pk) for pk in report.left[:50]) + (
                "…" if len(report.left) > 50 else ""
            )
            self.message_user(
                request,
                gettext("Left as they are, changed since the import: %(count)d fruit(s) (%(ids)s).")
                % {"count": len(report.left), "ids": ids},
                messages.WARNING,
            )
        for text in report.not_restored[:50]:
            self.message_user(
                request,
                gettext("Not restored as it was: %(text)s.") % {"text": text},
                messages.WARNING,
            )


def _section(items: list, *, total: int | None = None) -> dict:
    """Up to `PREVIEW_MAX` items of a section, and how many it has in all."""
    total = len(items) if total is None else total
    return {"items": items[:PREVIEW_MAX], "total": total, "more": max(0, total - PREVIEW_MAX)}


# Why a fruit is left as it is when no later version says it (`FruitUndo.conflict`).
WHY = {
    "a publication cites it": gettext_lazy("A publication cites it: it cannot be deleted."),
    "its state before the import was never recorded": gettext_lazy(
        "Its state before the import was never recorded: its history starts with the import."
    ),
}


def _conflict(item) -> dict:
    """A fruit left as it is: why, and the version since that changed it (if one did)."""
    later = item.later
    return {
        "item": item,
        "why": WHY.get(item.conflict, item.conflict) if later is None else "",
        "later": later,
        "action": action_label(later.action) if later is not None else "",
        "via": VIA.get(later.via, later.via) if later is not None else "",
    }
