"""Admin for curators: publications with covers, their linked fruits with PDFs, and images.

Images of a publication hang on a link (publication + fruit), and Django's inlines do not nest:
the publication page lists its linked fruits (PDF, image previews), and each link's own page
holds its images, so an image can only be of a fruit the publication links.
"""

from django.contrib import admin
from django.contrib.admin.views.main import ChangeList
from django.db.models import Count, OuterRef, Prefetch, Subquery
from django.db.models.functions import Coalesce
from django.template.defaultfilters import filesizeformat
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, gettext_lazy, pgettext_lazy

from blobs.admin import (
    IMAGE_DETAIL_FIELDS,
    IMAGE_RIGHTS_FIELDS,
    PREVIEW_SIDE,
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
from blobs.models import blob_fields
from core.db.search import contains_any, search_terms
from publications.forms import PublicationAdminForm, PublicationFruitForm, PublicationFruitImageForm
from publications.models import (
    CITATION_FIELDS,
    Publication,
    PublicationFruit,
    PublicationFruitImage,
)
from publications.services import (
    links_removed,
    publication_delete,
    publication_unlink_fruit,
    refresh_fruit_search,
    send_written,
)

LINK_IMAGE_SIDE = 40  # px; several previews side by side in one row of the links table


def without_related_buttons(formfield):
    """A fruit or publication picker without the edit/add/delete/view buttons beside it.

    In a links table they crowd every row, and adding a fruit from a publication is not what a
    link row is for.
    """
    widget = getattr(formfield, "widget", None)
    for flag in ("can_add_related", "can_change_related", "can_delete_related", "can_view_related"):
        if hasattr(widget, flag):
            setattr(widget, flag, False)
    return formfield


def pdf_link(link):
    """A download link to a link's PDF with its size, or the empty-value dash."""
    if not link.pk or not link.has_description:
        return "-"
    return format_html(
        '<a href="{}" target="_blank" rel="noopener">PDF</a> ({})',
        link.get_description_url(),
        filesizeformat(link.description_size),
    )


def links_without_blobs():
    """Links without their PDF, with fruit and publication joined but not their bulky columns."""
    return (
        PublicationFruit.objects.without_blobs()
        .select_related("publication", "fruit")
        .defer(*blob_fields(Publication, via="publication"), "fruit__search_text")
    )


class PublicationFruitInline(AdminAssetsMixin, admin.TabularInline):
    """The fruits a publication links, with their PDF and image previews."""

    model = PublicationFruit
    form = PublicationFruitForm
    fields = [
        "fruit",
        "pages",
        "plate",
        "name_in_source",
        "is_first_description",
        "description_upload",
        "remove_description",
        "description",
        "image_previews",
    ]
    readonly_fields = ["description", "image_previews"]
    autocomplete_fields = ["fruit"]
    extra = 1
    view_on_site = False
    classes = ["catalog-compact"]
    verbose_name = "linked fruit"
    verbose_name_plural = "linked fruits"

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        return without_related_buttons(super().formfield_for_dbfield(db_field, request, **kwargs))

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .without_blobs()
            .select_related("fruit")
            .defer("fruit__search_text")
            .prefetch_related(
                Prefetch("images", queryset=PublicationFruitImage.objects.without_blobs())
            )
        )

    @admin.display(description=gettext_lazy("PDF"))
    def description(self, link):
        """The stored PDF, to download."""
        return pdf_link(link)

    @admin.display(description=gettext_lazy("Images"))
    def image_previews(self, link):
        """Small previews of the link's images (from the prefetch) and a link to manage them.

        Images hang on the link and Django's inlines do not nest, so they are added and deleted
        on the link's own page.
        """
        if not link.pk:
            return "-"
        previews = format_html_join(
            " ",
            "{}",
            (
                (thumbnail_img(image.get_thumbnail_url(), LINK_IMAGE_SIDE),)
                for image in link.images.all()
            ),
        )
        url = reverse("admin:publications_publicationfruit_change", args=[link.pk])
        return format_html('{} <a href="{}">Manage images</a>', previews, url)


class PublicationChangeList(ChangeList):
    """The publication list with the number of linked fruits (a subquery per listed row)."""

    def get_queryset(self, request, *args, **kwargs):
        links = (
            PublicationFruit.objects.filter(publication=OuterRef("pk"))
            .values("publication")
            .annotate(n=Count("pk"))
            .values("n")
        )
        return (
            super()
            .get_queryset(request, *args, **kwargs)
            .defer("search_text", "description")
            .annotate(fruit_count=Coalesce(Subquery(links[:1]), 0))
        )


class HasCoverFilter(admin.SimpleListFilter):
    """Publications with or without a cover."""

    title = gettext_lazy("cover")
    parameter_name = "cover"

    def lookups(self, request, model_admin):
        return [("yes", gettext("With a cover")), ("no", gettext("Without a cover"))]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.exclude(cover_sha256="")
        if self.value() == "no":
            return queryset.filter(cover_sha256="")
        return queryset


@admin.register(Publication)
class PublicationAdmin(BlobSafeDeletionMixin, AdminAssetsMixin, admin.ModelAdmin):
    """Publications: list with covers and linked-fruit counts, change page with cover and links."""

    form = PublicationAdminForm
    list_display = ["cover", "title", "authors", "year", "fruit_count"]
    list_display_links = ["cover", "title"]
    list_filter = [HasCoverFilter]
    # Searching goes through `get_search_results` (the folded search column).
    search_fields = ["title"]
    search_help_text = gettext_lazy("Title or authors; case and accents are ignored.")
    list_per_page = 100
    show_full_result_count = False
    fieldsets = [
        (None, {"fields": ["title", "authors", "year", "description"]}),
        (
            gettext_lazy("Cover"),
            {
                "fields": [
                    "cover_preview",
                    "cover_upload",
                    "remove_cover",
                    "cover_content_type",
                    "cover_file_size",
                ]
            },
        ),
        (None, {"fields": ["created_at", "updated_at"]}),
    ]
    readonly_fields = [
        "cover_preview",
        "cover_content_type",
        "cover_file_size",
        "created_at",
        "updated_at",
    ]
    inlines = [PublicationFruitInline]

    def get_queryset(self, request):
        return super().get_queryset(request).without_blobs()

    def get_changelist(self, request, **kwargs):
        return PublicationChangeList

    def get_search_results(self, request, queryset, search_term):
        """Match the folded title and authors, as the API does."""
        return queryset.search(search_term), False

    def save_model(self, request, obj, form, change):
        """Save the publication, then a new cover (or its removal) as the API stores it."""
        super().save_model(request, obj, form, change)
        form.save_cover()
        send_written(obj.pk, created=not change)

    def save_formset(self, request, form, formset, change):
        """Save the linked fruits (the page's one inline); search forgets the names in source of
        links deleted here, and the fruits' values stop citing the publication."""
        named = [
            inline.instance.fruit_id
            for inline in formset.deleted_forms
            if inline.instance.pk and inline.instance.name_in_source
        ]
        unlinked = [
            inline.instance.fruit_id for inline in formset.deleted_forms if inline.instance.pk
        ]
        super().save_formset(request, form, formset, change)
        refresh_fruit_search(*named)
        links_removed(form.instance.pk, unlinked)
        cited = [
            *(link.fruit_id for link in formset.new_objects),
            *(
                link.fruit_id
                for link, fields in formset.changed_objects
                if set(fields) & set(CITATION_FIELDS)
            ),
            *unlinked,
        ]
        send_written(form.instance.pk, fruit_ids=cited)

    def delete_model(self, request, obj):
        """Delete through the API's service (search forgets the names its links gave)."""
        publication_delete(publication=obj)

    def delete_queryset(self, request, queryset):
        for publication in queryset:
            publication_delete(publication=publication)

    @admin.display(description=gettext_lazy("Cover"))
    def cover(self, publication):
        """The cover's thumbnail."""
        if not publication.has_cover:
            return no_thumbnail()
        return thumbnail_img(publication.get_cover_thumbnail_url())

    @admin.display(description=gettext_lazy("Cover"))
    def cover_preview(self, publication):
        """The stored cover's thumbnail, opening the cover itself."""
        if not publication.pk or not publication.has_cover:
            return "-"
        return format_html(
            '<a href="{}" target="_blank" rel="noopener">{}</a>',
            publication.get_cover_url(),
            thumbnail_img(publication.get_cover_thumbnail_url(), PREVIEW_SIDE),
        )

    @admin.display(description=gettext_lazy("Cover size"))
    def cover_file_size(self, publication):
        """The stored cover's size, human-readable."""
        return filesizeformat(publication.cover_size) if publication.has_cover else "-"

    @admin.display(description=gettext_lazy("Linked fruits"), ordering="fruit_count")
    def fruit_count(self, publication):
        """How many fruits the publication links (from the annotation)."""
        return getattr(publication, "fruit_count", None)


class PublicationFruitImageInline(ThumbnailedImageInline):
    """The images of one linked fruit."""

    model = PublicationFruitImage
    form = PublicationFruitImageForm

    def get_queryset(self, request):
        # The preview URLs name the publication: join the link (without its PDF) rather than
        # letting each row load it whole.
        return super().get_queryset(request).with_link()


def search_links(queryset, search_term: str, prefix: str = ""):
    """Links (or rows hanging on one) whose publication or fruit matches, folded like the API."""
    terms = search_terms(search_term)
    if not terms:
        return queryset
    return queryset.filter(
        contains_any(terms, f"{prefix}publication__search_text")
        | contains_any(terms, f"{prefix}fruit__search_text")
    )


@admin.register(PublicationFruit)
class PublicationFruitAdmin(BlobSafeDeletionMixin, AdminAssetsMixin, admin.ModelAdmin):
    """A fruit linked by a publication: its PDF and its images in that publication."""

    form = PublicationFruitForm
    list_display = ["publication", "fruit", "description", "image_count"]
    list_display_links = ["publication", "fruit"]
    list_select_related = ["publication", "fruit"]
    search_fields = ["fruit__name"]
    search_help_text = gettext_lazy(
        "Publication title or authors, fruit name or synonym; accents are ignored."
    )
    autocomplete_fields = ["publication", "fruit"]
    list_per_page = 100
    show_full_result_count = False
    fields = [
        "publication",
        "fruit",
        ("pages", "plate"),
        "name_in_source",
        "is_first_description",
        "description_upload",
        "remove_description",
        "description",
        "created_at",
    ]
    readonly_fields = ["description", "created_at"]
    inlines = [PublicationFruitImageInline]

    def get_queryset(self, request):
        images = PublicationFruitImage.objects.filter(link=OuterRef("pk"))
        return links_without_blobs().annotate(
            image_count=Coalesce(
                Subquery(images.values("link").annotate(n=Count("pk")).values("n")[:1]), 0
            )
        )

    def get_search_results(self, request, queryset, search_term):
        """Match the publication's or the fruit's folded search column."""
        return search_links(queryset, search_term), False

    def get_readonly_fields(self, request, obj=None):
        # A stored link keeps its publication and fruit: its PDF and images describe that pair.
        if obj is not None:
            return ["publication", "fruit", *self.readonly_fields]
        return self.readonly_fields

    def save_model(self, request, obj, form, change):
        """Save the link, then a new PDF (or its removal) as the API stores it. The page
        changes the publication (its images here too); a new or re-cited link, the fruit."""
        super().save_model(request, obj, form, change)
        form.save_description()
        cited = not change or set(form.changed_data) & set(CITATION_FIELDS)
        send_written(obj.publication_id, fruit_ids=[obj.fruit_id] if cited else [])

    def delete_model(self, request, obj):
        """Unlink through the API's service (search forgets the link's name in source)."""
        publication_unlink_fruit(publication=obj.publication, fruit_id=obj.fruit_id)

    def delete_queryset(self, request, queryset):
        for link in queryset:
            publication_unlink_fruit(publication=link.publication, fruit_id=link.fruit_id)

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        if obj is not None:
            # Both rows are loaded here (the admin's queryset joins them, without the cover).
            context["subtitle"] = f"{obj.publication} \N{EN DASH} {obj.fruit}"
        return super().render_change_form(request, context, add, change, form_url, obj)

    @admin.display(description=gettext_lazy("PDF"))
    def description(self, link):
        """The stored PDF, to download."""
        return pdf_link(link)

    @admin.display(description=gettext_lazy("Images"), ordering="image_count")
    def image_count(self, link):
        """How many images of the fruit the publication holds (from the annotation)."""
        return getattr(link, "image_count", None)


@admin.register(PublicationFruitImage)
class PublicationFruitImageAdmin(
    GenerateMissingThumbnailsMixin,
    ImageDeletionMixin,
    ImageMetadataMixin,
    admin.ModelAdmin,
):
    """All publication fruit images: previews, metadata and the thumbnail backfill action.

    New images are added on their link's page, where publication and fruit are known.
    """

    form = PublicationFruitImageForm
    list_display = [
        "preview",
        "publication",
        "fruit",
        "file_summary",
        "thumbnail_status",
        "created_at",
    ]
    list_display_links = ["preview"]
    list_filter = [MissingDetailsFilter, "license", "role", ThumbnailListFilter, "content_type"]
    search_fields = ["link__fruit__name"]
    search_help_text = gettext_lazy(
        "Publication title or authors, fruit name or synonym; accents are ignored."
    )
    list_per_page = 100
    show_full_result_count = False
    fields = ["link_page", "upload", *IMAGE_RIGHTS_FIELDS, *IMAGE_DETAIL_FIELDS]
    readonly_fields = ["link_page", *IMAGE_DETAIL_FIELDS]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .without_blobs()
            .select_related("link__publication", "link__fruit")
            .defer(
                "link__description_data",
                *blob_fields(Publication, via="link__publication"),
                "link__publication__search_text",
                "link__publication__description",
                "link__fruit__search_text",
            )
        )

    def has_add_permission(self, request):
        return False

    def get_search_results(self, request, queryset, search_term):
        """Match the publication's or the fruit's folded search column."""
        return search_links(queryset, search_term, prefix="link__"), False

    @admin.display(description=gettext_lazy("Publication"), ordering="link__publication__title")
    def publication(self, image):
        """The publication, linked to its change page."""
        url = reverse("admin:publications_publication_change", args=[image.link.publication_id])
        return format_html('<a href="{}">{}</a>', url, image.link.publication)

    @admin.display(description=pgettext_lazy("variety", "Fruit"), ordering="link__fruit__name")
    def fruit(self, image):
        """The fruit, linked to its change page."""
        url = reverse("admin:catalog_fruit_change", args=[image.link.fruit_id])
        return format_html('<a href="{}">{}</a>', url, image.link.fruit)

    @admin.display(description=gettext_lazy("Publication and fruit"))
    def link_page(self, image):
        """The link the image belongs to, where its sibling images are managed."""
        url = reverse("admin:publications_publicationfruit_change", args=[image.link_id])
        return format_html(
            '<a href="{}">{} &ndash; {}</a>', url, image.link.publication, image.link.fruit
        )
