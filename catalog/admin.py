"""Admin for curators: fruits with their synonyms and images, and the images with thumbnails.

Lists stay fast on large tables: the fruit changelist takes its image column from the card
annotations of `with_list_data()` and its synonyms from the same query, images are listed without
their byte columns, and previews are `<img>` tags pointing at the API's thumbnail endpoints with
the content's version, so a replaced image never shows its old thumbnail.
"""

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from catalog.forms import (
    FruitAdminForm,
    FruitImageAdminForm,
    FruitImageFormSet,
    FruitImageInlineForm,
    SynonymForm,
    SynonymFormSet,
)
from catalog.models import Fruit, FruitImage, FruitSpelling, FruitSynonym
from catalog.services import fruit_delete, fruit_save, fruit_set_card_image
from catalog.validators import SYNONYMS_MAX
from fruitcatalog.blobs.admin import (
    IMAGE_DETAIL_FIELDS,
    IMAGE_RIGHTS_FIELDS,
    AdminAssetsMixin,
    BlobSafeDeletionMixin,
    GenerateMissingThumbnailsMixin,
    ImageMetadataMixin,
    MissingDetailsFilter,
    ThumbnailedImageInline,
    ThumbnailListFilter,
    no_thumbnail,
    thumbnail_img,
)
from fruitcatalog.db.search import contains_any, search_terms
from fruitcatalog.rest.pagination import ScalablePaginator
from fruitcatalog.site.changelists import FastRowsAdminMixin, FastRowsChangeList


class FruitSynonymInline(admin.TabularInline):
    """The fruit's other names with their kind, language and note, in their order; validated
    and saved as one list."""

    model = FruitSynonym
    form = SynonymForm
    formset = SynonymFormSet
    fields = ["name", "kind", "language", "note", "position"]
    verbose_name = "other name"
    verbose_name_plural = "other names (synonyms, trade names, translations, historic names)"
    extra = 1
    max_num = SYNONYMS_MAX
    classes = ["catalog-compact"]


class FruitImageInline(ThumbnailedImageInline):
    """The fruit's images, one of which may be ticked as the card image."""

    model = FruitImage
    form = FruitImageInlineForm
    formset = FruitImageFormSet
    fields = ["preview_large", "card_image", *ThumbnailedImageInline.fields[1:]]


class FruitChangeList(FastRowsChangeList):
    """The fruit list with the API's list annotations (image count, card image, synonyms).

    Only the changelist gets them: the change page loads one fruit and has its own inlines.
    """

    def get_queryset(self, request, exclude_parameters=None):
        queryset = super().get_queryset(request, exclude_parameters)
        return queryset.defer("search_text").with_list_data()


@admin.register(Fruit)
class FruitAdmin(FastRowsAdminMixin, BlobSafeDeletionMixin, AdminAssetsMixin, admin.ModelAdmin):
    """Fruits: list with thumbnails and synonyms, change page with synonym and image inlines."""

    form = FruitAdminForm
    deletion_hides = (FruitSpelling,)  # search rows, derived from the names
    list_display = ["thumbnail", "catalog_number", "name", "type", "synonym_list", "image_count"]
    list_display_links = ["thumbnail", "catalog_number", "name"]
    list_filter = ["type"]
    # Searching goes through `get_search_results` (the folded search column); the admin needs a
    # non-empty `search_fields` to show the search box and to serve autocomplete widgets.
    search_fields = ["name"]
    search_help_text = "Name, synonym or catalog number; case and accents are ignored."
    list_per_page = 100
    # The unfiltered total is a second COUNT(*) over the whole table on every filtered page.
    show_full_result_count = False
    # Bounded count and id-first pages, as the API's list: deep pages stay as fast as page 1.
    paginator = ScalablePaginator
    fields = ["catalog_number", "name", "type", "created_at", "updated_at"]
    readonly_fields = ["created_at", "updated_at"]
    inlines = [FruitSynonymInline, FruitImageInline]

    def get_changelist(self, request, **kwargs):
        return FruitChangeList

    def get_search_results(self, request, queryset, search_term):
        """Match the folded search column, as the API does: one `LIKE`, no join, no duplicates."""
        return queryset.search(search_term), False

    @admin.display(description="Image")
    def thumbnail(self, fruit):
        """The thumbnail of the fruit's card image (chosen, else the oldest), versioned."""
        card = fruit.card_thumbnail
        return no_thumbnail() if card is None else thumbnail_img(card.url)

    @admin.display(description="Synonyms")
    def synonym_list(self, fruit):
        """The synonyms in their order (from the list query)."""
        return ", ".join(fruit.synonym_names)

    @admin.display(description="Images")
    def image_count(self, fruit):
        """How many images the fruit has (from the annotation)."""
        return getattr(fruit, "image_count", None)

    def save_model(self, request, obj, form, change):
        """Store through the API's service: an empty catalog number gets the next free one."""
        fruit_save(fruit=obj)

    def delete_model(self, request, obj):
        """Delete through the API's service (the fruit is locked against concurrent writes)."""
        fruit_delete(fruit=obj)

    def save_related(self, request, form, formsets, change):
        """Save the inlines, store the ticked card image, refresh the search column."""
        super().save_related(request, form, formsets, change)
        for formset in formsets:
            if isinstance(formset, FruitImageFormSet):
                fruit_set_card_image(fruit=form.instance, image_id=formset.chosen_card_image_id())
        form.instance.refresh_search_text()


@admin.register(FruitImage)
class FruitImageAdmin(
    FastRowsAdminMixin,
    BlobSafeDeletionMixin,
    GenerateMissingThumbnailsMixin,
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
    search_help_text = "Name, synonym or catalog number of the fruit; case and accents are ignored."
    autocomplete_fields = ["fruit"]
    list_per_page = 100
    show_full_result_count = False
    fields = ["fruit", "upload", *IMAGE_RIGHTS_FIELDS, *IMAGE_DETAIL_FIELDS]
    readonly_fields = IMAGE_DETAIL_FIELDS

    def get_queryset(self, request):
        return super().get_queryset(request).without_blobs()

    @admin.display(description="Fruit", ordering="fruit")
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
