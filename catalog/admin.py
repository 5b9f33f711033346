"""Admin for curators: fruits with their other names and images, and the images with thumbnails.

Lists stay fast on large tables: the fruit changelist takes its image column from the card
annotations of `with_list_data()` and its other names from the same query, images are listed
without their byte columns, and previews are `<img>` tags pointing at the API's thumbnail
endpoints with the content's version, so a replaced image never shows its old thumbnail.
"""

import secrets
from functools import update_wrapper

from django.contrib import admin, messages
from django.contrib.admin.views.main import ChangeList
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.http import StreamingHttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext, gettext_lazy, pgettext_lazy

from blobs.admin import (
    IMAGE_DETAIL_FIELDS,
    IMAGE_RIGHTS_FIELDS,
    AdminAssetsMixin,
    BlobSafeDeletionMixin,
    GenerateMissingThumbnailsMixin,
    ImageDeletionMixin,
    ImageMetadataMixin,
    MissingDetailsFilter,
    ThumbnailedImageInline,
    ThumbnailListFilter,
    no_thumbnail,
    thumbnail_img,
)
from catalog import exports
from catalog.forms import (
    FruitAdminForm,
    FruitImageAdminForm,
    FruitImageFormSet,
    FruitImageInlineForm,
    ImportForm,
    NameForm,
    NameFormSet,
    RelationForm,
    RelationFormSet,
)
from catalog.imports import import_fruits
from catalog.models import Fruit, FruitImage, FruitName, FruitRelation, FruitSpelling
from catalog.services import (
    fruit_delete,
    fruit_save,
    fruit_set_card_image,
    relations_link_by_name,
)
from catalog.validators import NAMES_MAX
from core.db.search import contains_any, search_terms
from core.rest.pagination import ScalablePaginator


class FruitNameInline(admin.TabularInline):
    """The fruit's other names with their kind, language and note, in their order; validated
    and saved as one list."""

    model = FruitName
    form = NameForm
    formset = NameFormSet
    fields = ["name", "kind", "language", "note", "position"]
    verbose_name = "other name"
    verbose_name_plural = "other names (synonyms, trade names, translations, historic names)"
    extra = 1
    max_num = NAMES_MAX
    classes = ["catalog-compact"]


class FruitRelationInline(admin.TabularInline):
    """What the fruit is to other varieties (mother, father, sport of...), checked as a whole."""

    model = FruitRelation
    fk_name = "fruit"
    form = RelationForm
    formset = RelationFormSet
    fields = ["kind", "other", "name", "note", "position"]
    autocomplete_fields = ["other"]
    verbose_name = "relation"
    verbose_name_plural = "relations (parentage, sports, seedlings, confusions)"
    extra = 1
    classes = ["catalog-compact"]

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        formfield = super().formfield_for_dbfield(db_field, request, **kwargs)
        if db_field.name == "other":
            formfield.widget.can_add_related = False
            formfield.widget.can_change_related = False
            formfield.widget.can_delete_related = False
            formfield.widget.can_view_related = False
        return formfield


class FruitImageInline(ThumbnailedImageInline):
    """The fruit's images, one of which may be ticked as the card image."""

    model = FruitImage
    form = FruitImageInlineForm
    formset = FruitImageFormSet
    fields = ["image_summary", "card_image", *ThumbnailedImageInline.fields[1:]]


class FruitChangeList(ChangeList):
    """The fruit list with the API's list annotations (image count, card image, other names).

    Only the changelist gets them: the change page loads one fruit and has its own inlines.
    """

    def get_queryset(self, request, *args, **kwargs):
        return super().get_queryset(request, *args, **kwargs).defer("search_text").with_list_data()


IMPORT_CACHE_KEY = "catalog:fruit-import:{token}"
IMPORT_CACHE_SECONDS = 30 * 60


def preview_context(report, token: str) -> dict:
    """What the import page shows of a checked file: counts, every row, the file's errors."""
    in_rows = {id(error) for row in report.rows for error in row.errors}
    return {
        "report": report,
        "token": token,
        # The file's own errors, and a row's that storing found (a race): not in the table.
        "file_errors": [error for error in report.errors if id(error) not in in_rows],
    }


@admin.register(Fruit)
class FruitAdmin(BlobSafeDeletionMixin, AdminAssetsMixin, admin.ModelAdmin):
    """Fruits: list with thumbnails and other names, change page with name, relation and image
    inlines."""

    form = FruitAdminForm
    deletion_hides = (FruitSpelling,)  # search rows, derived from the names
    list_display = ["thumbnail", "catalog_number", "name", "type", "name_list", "image_count"]
    list_display_links = ["thumbnail", "catalog_number", "name"]
    list_filter = ["type"]
    # Searching goes through `get_search_results` (the folded search column); the admin needs a
    # non-empty `search_fields` to show the search box and to serve autocomplete widgets.
    search_fields = ["name"]
    search_help_text = gettext_lazy(
        "Name, synonym or catalog number; case and accents are ignored."
    )
    list_per_page = 100
    # The unfiltered total is a second COUNT(*) over the whole table on every filtered page.
    show_full_result_count = False
    # Bounded count and id-first pages, as the API's list: deep pages stay as fast as page 1.
    paginator = ScalablePaginator
    fields = ["catalog_number", "name", "type", "more_images", "created_at", "updated_at"]
    readonly_fields = ["created_at", "updated_at"]
    inlines = [FruitNameInline, FruitRelationInline, FruitImageInline]
    change_list_template = "admin/catalog/fruit/change_list.html"
    actions = ["export_csv", "link_relations_by_name"]

    def get_changelist(self, request, **kwargs):
        return FruitChangeList

    def get_urls(self):
        def wrap(view):
            def wrapper(*args, **kwargs):
                return self.admin_site.admin_view(view)(*args, **kwargs)

            wrapper.model_admin = self  # an admin page: the request guard's upload allowance
            return update_wrapper(wrapper, view)

        return [
            path("import/", wrap(self.import_view), name="catalog_fruit_import"),
            *super().get_urls(),
        ]

    def changelist_view(self, request, extra_context=None):
        can_import = self.has_add_permission(request) and self.has_change_permission(request)
        return super().changelist_view(request, {**(extra_context or {}), "can_import": can_import})

    def import_view(self, request):
        """Upload a spreadsheet, see every row as new / changed / unchanged / error, confirm.

        The same importer as the API and `import_fruits`. Between the two steps the file waits
        in the cache (Redis in production, so any app server can take the confirmation).
        """
        if not (self.has_add_permission(request) and self.has_change_permission(request)):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": gettext("Import fruits"),
            "form": ImportForm(),
            "report": None,
        }
        if request.method == "POST" and "_confirm" in request.POST:
            token = request.POST.get("token", "")
            data = cache.get(IMPORT_CACHE_KEY.format(token=token)) if token.isalnum() else None
            if data is None:
                self.message_user(
                    request,
                    gettext("The checked file is no longer kept: choose it again."),
                    messages.ERROR,
                )
                return redirect("admin:catalog_fruit_import")
            name = cache.get(IMPORT_CACHE_KEY.format(token=token) + ":name", "")
            report = import_fruits(data, dry_run=False, file_name=name)
            if report.ok:
                cache.delete(IMPORT_CACHE_KEY.format(token=token))
                self.message_user(
                    request,
                    gettext("Imported: %(summary)s.") % {"summary": report.summary()},
                    messages.SUCCESS,
                )
                return redirect("admin:catalog_fruit_changelist")
            context |= preview_context(report, token)
        elif request.method == "POST":
            form = ImportForm(request.POST, request.FILES)
            if form.is_valid():
                data = form.cleaned_data["file"]
                token = secrets.token_hex(16)
                report = import_fruits(data, dry_run=True)
                if report.ok:
                    key = IMPORT_CACHE_KEY.format(token=token)
                    cache.set(key, data, IMPORT_CACHE_SECONDS)
                    cache.set(key + ":name", request.FILES["file"].name, IMPORT_CACHE_SECONDS)
                context |= preview_context(report, token)
            else:
                context["form"] = form
        return TemplateResponse(request, "admin/catalog/fruit/import.html", context)

    @admin.action(
        description=gettext_lazy("Export the selected fruits as CSV"), permissions=["view"]
    )
    def export_csv(self, request, queryset):
        """The selection as the API's CSV export writes it (imports back unchanged)."""
        selected = Fruit.objects.filter(pk__in=queryset.values("pk"))
        response = StreamingHttpResponse(
            exports.csv_bytes(selected, request), content_type=exports.CSV_MEDIA_TYPE
        )
        response["Content-Disposition"] = 'attachment; filename="fruits.csv"'
        return response

    @admin.action(
        description=gettext_lazy("Link relations given by name to fruits of the catalog"),
        permissions=["change"],
    )
    def link_relations_by_name(self, request, queryset):
        """Link the selected fruits' relations given by name (parents named before their
        variety was catalogued) to the fruit holding that name, and say what stayed a name."""
        report = relations_link_by_name(fruits=Fruit.objects.filter(pk__in=queryset.values("pk")))
        self.message_user(
            request,
            gettext("Linked %(count)d relation(s) given by name to fruits of the catalog.")
            % {"count": report.linked},
            messages.SUCCESS if report.linked else messages.INFO,
        )
        if report.ambiguous:
            names = ", ".join(sorted(report.ambiguous)[:20])
            more = "…" if len(report.ambiguous) > 20 else ""
            self.message_user(
                request,
                gettext(
                    "Left by name, as several fruits hold the name (link them by hand): %(names)s."
                )
                % {"names": names + more},
                messages.WARNING,
            )
        if report.loops:
            loops = "; ".join(report.loops[:20])
            more = "…" if len(report.loops) > 20 else ""
            self.message_user(
                request,
                gettext("Left by name, as linking would make a fruit its own ancestor: %(loops)s.")
                % {"loops": loops + more},
                messages.WARNING,
            )
        if report.duplicates or report.unknown:
            self.message_user(
                request,
                gettext(
                    "Also left by name: %(unknown)d whose name no other fruit holds, "
                    "%(duplicates)d whose fruit already has that relation to the named fruit."
                )
                % {"unknown": report.unknown, "duplicates": report.duplicates},
                messages.INFO,
            )

    def get_search_results(self, request, queryset, search_term):
        """Match the folded search column, as the API does: one `LIKE`, no join, no duplicates."""
        return queryset.search(search_term), False

    @admin.display(description=gettext_lazy("Image"))
    def thumbnail(self, fruit):
        """The thumbnail of the fruit's card image (chosen, else the oldest), versioned."""
        card = fruit.card_thumbnail
        return no_thumbnail() if card is None else thumbnail_img(card.url)

    @admin.display(description=gettext_lazy("Synonyms"))
    def name_list(self, fruit):
        """The other names' texts in their order (from the list query)."""
        return ", ".join(name["name"] for name in fruit.name_list)

    @admin.display(description=gettext_lazy("Images"))
    def image_count(self, fruit):
        """How many images the fruit has (from the annotation)."""
        return getattr(fruit, "image_count", None)

    def save_model(self, request, obj, form, change):
        """Nothing yet: `save_related` stores the fruit with its names, once their formset is
        known, in one write."""

    def delete_model(self, request, obj):
        """Delete through the API's service (the fruit is locked against concurrent writes)."""
        fruit_delete(fruit=obj)

    def delete_queryset(self, request, queryset):
        """Delete the selection through the service, one fruit at a time (what others say of
        each stays, by its name)."""
        for fruit in queryset:
            fruit_delete(fruit=fruit)

    def save_related(self, request, form, formsets, change):
        """Store the fruit with its names through the API's service (an empty catalog number
        gets the next free one; the search column is computed once), then the other inlines,
        the ticked card image and the images added in one go."""
        names = next((f.changed_name_list() for f in formsets if isinstance(f, NameFormSet)), None)
        fruit_save(fruit=form.instance, names=names)
        # The names formset's save only records what changed, for the history message.
        super().save_related(request, form, formsets, change)
        for formset in formsets:
            if isinstance(formset, FruitImageFormSet):
                fruit_set_card_image(fruit=form.instance, image_id=formset.chosen_card_image_id())
        skipped = form.save_more_images()
        if skipped:
            self.message_user(
                request,
                gettext("Skipped %(count)d file(s) the fruit already had: %(names)s.")
                % {"count": len(skipped), "names": ", ".join(skipped)},
                messages.WARNING,
            )


@admin.register(FruitImage)
class FruitImageAdmin(
    GenerateMissingThumbnailsMixin,
    ImageDeletionMixin,
    ImageMetadataMixin,
    admin.ModelAdmin,
):
    """All fruit images: previews and metadata, uploads, and the thumbnail backfill action."""

    form = FruitImageAdminForm
    list_display = ["preview", "fruit_link", "file_summary", "thumbnail_status", "created_at"]
    list_display_links = ["preview"]
    list_select_related = ["fruit"]
    list_filter = [MissingDetailsFilter, "license", "role", ThumbnailListFilter, "content_type"]
    search_fields = ["fruit__name"]
    search_help_text = gettext_lazy(
        "Name, synonym or catalog number of the fruit; case and accents are ignored."
    )
    autocomplete_fields = ["fruit"]
    list_per_page = 100
    show_full_result_count = False
    fields = ["fruit", "upload", *IMAGE_RIGHTS_FIELDS, *IMAGE_DETAIL_FIELDS]
    readonly_fields = IMAGE_DETAIL_FIELDS

    def get_queryset(self, request):
        return super().get_queryset(request).without_blobs()

    @admin.display(description=pgettext_lazy("variety", "Fruit"), ordering="fruit")
    def fruit_link(self, image):
        """The image's fruit, linked to its change page."""
        url = reverse("admin:catalog_fruit_change", args=[image.fruit_id])
        return format_html('<a href="{}">{}</a>', url, image.fruit)

    def get_search_results(self, request, queryset, search_term):
        """Match the fruit's folded search column, as the fruit list does."""
        terms = search_terms(search_term)
        if not terms:
            return queryset, False
        return queryset.filter(contains_any(terms, "fruit__search_text")), False
