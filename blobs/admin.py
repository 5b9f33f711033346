"""Admin building blocks for stored bytes: previews, image metadata, safe deletion, backfill.

Previews are `<img>` tags pointing at the byte endpoints; every column is computed from the
metadata, so lists and change pages never read image, cover or PDF bytes.
"""

from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.utils import NestedObjects, quote
from django.db import router, transaction
from django.template.defaultfilters import filesizeformat
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html
from django.utils.text import Truncator, capfirst
from django.utils.translation import gettext, gettext_lazy

from blobs.backfill import backfill_thumbnails, remaining_count
from blobs.models import blob_fields
from blobs.rights import ATTRIBUTION_LICENSES, DETAIL_FIELDS
from blobs.views import image_delete

LIST_THUMBNAIL_SIDE = 56  # px; a row stays compact while the fruit is still recognisable
PREVIEW_SIDE = 120  # px; on change pages, where there is room to look at the crop


def thumbnail_img(url: str, side: int = LIST_THUMBNAIL_SIDE):
    """An `<img>` of a thumbnail endpoint, loaded lazily, scaled by CSS within `side` pixels."""
    return format_html(
        '<img src="{}" alt="" width="{}" height="{}" loading="lazy" class="catalog-thumb">',
        url,
        side,
        side,
    )


def no_thumbnail(side: int = LIST_THUMBNAIL_SIDE):
    """A placeholder the size of a thumbnail, so rows without an image keep their height."""
    return format_html(
        '<span class="catalog-thumb catalog-thumb--empty" style="width:{}px;height:{}px"'
        ' title="{}"></span>',
        side,
        side,
        gettext("No image"),
    )


class BlobDeferringCollector(NestedObjects):
    """The admin's collector of what a deletion takes along, without reading byte columns.

    Django's own joins each related row's parent in and then loads every column, so confirming
    the deletion of a fruit would read all its images' bytes (and a publication's, its PDFs').
    Rows of the `hidden` models (derived data, such as search rows) are deleted but not listed.
    """

    def __init__(self, *args, hidden=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.hidden = tuple(hidden)

    def related_objects(self, related_model, related_fields, objs):
        queryset = super().related_objects(related_model, related_fields, objs)
        if issubclass(related_model, self.hidden):
            return queryset.none()
        deferred = blob_fields(related_model)
        for field in related_fields:
            deferred += [f"{field.name}__{name}" for name in blob_fields(field.related_model)]
        return queryset.defer(*deferred) if deferred else queryset


class BlobSafeDeletionMixin:
    """Delete confirmation pages and the "delete selected" action without reading bytes, for
    rows whose deletion takes rows with bytes along (a fruit its images, a publication its
    links' PDFs).

    Image admins need none of it: their rows come without bytes from their `get_queryset`, and
    nothing is deleted with an image, so Django's own listing reads no bytes for them.

    `deletion_hides`: models whose rows the pages do not list (derived data a curator never
    edits); they are deleted all the same.
    """

    deletion_hides = ()

    def get_deleted_objects(self, objs, request):
        """What deleting `objs` takes along, as Django lists it, collected without the bytes.

        Deferring the byte columns of `objs` and calling `super()` is not enough: Django's
        listing builds its collector itself, and that collector loads the related rows, and the
        row each hangs on, whole, from their models' base managers; no setting or hook hands it
        another. So this runs `BlobDeferringCollector` and labels its rows as Django labels
        them (the admin tests compare both listings of the same deletion).
        """
        objs = list(objs)
        if not objs:
            return [], {}, set(), []
        collector = BlobDeferringCollector(
            using=router.db_for_write(objs[0]._meta.model),
            origin=objs,
            hidden=self.deletion_hides,
        )
        collector.collect(objs)
        perms_needed = set()

        def format_callback(obj):
            opts = obj._meta
            no_edit_link = f"{capfirst(opts.verbose_name)}: {obj}"
            if not self.admin_site.is_registered(obj.__class__):
                return no_edit_link
            model_admin = self.admin_site.get_model_admin(obj.__class__)
            if not model_admin.has_delete_permission(request, obj):
                perms_needed.add(opts.verbose_name)
            try:
                url = reverse(
                    f"{self.admin_site.name}:{opts.app_label}_{opts.model_name}_change",
                    args=[quote(obj.pk)],
                )
            except NoReverseMatch:
                return no_edit_link
            return format_html('{}: <a href="{}">{}</a>', capfirst(opts.verbose_name), url, obj)

        to_delete = collector.nested(format_callback)
        protected = [format_callback(obj) for obj in collector.protected]
        model_count = {
            model._meta.verbose_name_plural: len(rows)
            for model, rows in collector.model_objs.items()
        }
        return to_delete, model_count, perms_needed, protected


class AdminAssetsMixin:
    """The admin's small stylesheet for thumbnails and compact inlines."""

    class Media:
        css = {"all": ["blobs/admin.css"]}


# What curators write about an image on its change page: its details and rights.
IMAGE_RIGHTS_FIELDS = DETAIL_FIELDS
# The read-only part of an image's change page, shared by fruit and publication fruit images.
IMAGE_DETAIL_FIELDS = [
    "preview_large",
    "original_link",
    "content_type",
    "file_size",
    "dimensions",
    "thumbnail_status",
    "sha256",
    "created_at",
]


class ImageMetadataMixin(AdminAssetsMixin):
    """Read-only columns of a thumbnailed image, computed from its metadata, never its bytes.

    The images say where their thumbnail and bytes are served, with the content's version
    (`get_thumbnail_url`, `get_data_url`), so fruit and publication fruit images share this as
    it is, and a replaced image never shows a cached old picture.
    """

    @admin.display(description=gettext_lazy("Preview"))
    def preview(self, image):
        """The thumbnail, as the API serves it, list-sized."""
        if image.pk is None:
            return self.get_empty_value_display()
        return thumbnail_img(image.get_thumbnail_url())

    @admin.display(description=gettext_lazy("Preview"))
    def preview_large(self, image):
        """The thumbnail, as the API serves it, sized for a change page."""
        if image.pk is None:
            return self.get_empty_value_display()
        return thumbnail_img(image.get_thumbnail_url(), PREVIEW_SIDE)

    @admin.display(description=gettext_lazy("Original"))
    def original_link(self, image):
        """A link to the stored bytes, in a new tab."""
        if image.pk is None:
            return self.get_empty_value_display()
        return format_html(
            '<a href="{}" target="_blank" rel="noopener">{}</a>',
            image.get_data_url(),
            gettext("Open"),
        )

    @admin.display(description=gettext_lazy("Size"), ordering="size")
    def file_size(self, image):
        """The stored file size, human-readable."""
        return filesizeformat(image.size) if image.pk else self.get_empty_value_display()

    @admin.display(description=gettext_lazy("Dimensions"), ordering="width")
    def dimensions(self, image):
        """Width by height as displayed (after EXIF orientation)."""
        if image.pk is None:
            return self.get_empty_value_display()
        return f"{image.width} \N{MULTIPLICATION SIGN} {image.height}"

    @admin.display(description=gettext_lazy("File"), ordering="size")
    def file_summary(self, image):
        """Type, size and dimensions in one narrow column, so a changelist fits a laptop."""
        return format_html(
            "{}<br>{}<br>{}", image.content_type, self.file_size(image), self.dimensions(image)
        )

    @admin.display(description=gettext_lazy("Thumbnail"), boolean=True, ordering="thumbnail_sha256")
    def thumbnail_status(self, image):
        """Whether a thumbnail is stored (unknown on a row not uploaded yet)."""
        return image.has_thumbnail if image.pk else None


class ImageDeletionMixin:
    """An image admin whose deletions go through `blobs.views.image_delete`, as the API's
    do, so the apps above hear of each image deleted (Django's own "delete selected" deletes
    them in one statement, unannounced)."""

    def delete_model(self, request, obj):
        image_delete(obj)

    def delete_queryset(self, request, queryset):
        with transaction.atomic():  # one change of each parent, however many of its images
            for image in queryset.without_blobs():
                image_delete(image)


class GenerateMissingThumbnailsMixin:
    """The "Generate missing thumbnails" action, through the same backfill as the command."""

    actions = ["generate_missing_thumbnails"]

    @admin.action(
        description=gettext_lazy("Generate missing thumbnails (all images without one)"),
        permissions=["change"],
    )
    def generate_missing_thumbnails(self, request, queryset):
        """Run the backfill for this model and report how many thumbnails were made or failed.

        The backfill's contract is "every image without a thumbnail", so the selection only
        starts the action; the message says what was actually done.
        """
        result = backfill_thumbnails(
            models=[self.model], seconds=settings.FRUITCATALOG_BACKFILL_SECONDS
        )[self.model.backfill_key]
        remaining = remaining_count(self.model, result)
        if remaining:
            self.message_user(
                request,
                gettext(
                    "%(remaining)d image(s) still need a thumbnail: run the action again (each "
                    "run works for %(seconds)s s), or run `manage.py backfill_thumbnails`."
                )
                % {"remaining": remaining, "seconds": settings.FRUITCATALOG_BACKFILL_SECONDS},
                messages.WARNING,
            )
        if result.failed:
            ids = ", ".join(str(pk) for pk in result.failed_ids[:20])
            more = "…" if len(result.failed_ids) > 20 else ""
            self.message_user(
                request,
                gettext(
                    "Generated %(generated)d missing thumbnail(s); %(failed)d image(s) could not "
                    "be decoded and were left as they are (ids %(ids)s)."
                )
                % {"generated": result.generated, "failed": result.failed, "ids": ids + more},
                messages.WARNING,
            )
        elif result.generated:
            self.message_user(
                request,
                gettext("Generated %(generated)d missing thumbnail(s); 0 failed.")
                % {"generated": result.generated},
                messages.SUCCESS,
            )
        else:
            self.message_user(request, gettext("No image was missing a thumbnail."), messages.INFO)


class MissingDetailsFilter(admin.SimpleListFilter):
    """Images whose alt text, licence or creator curators have still to write.

    "creator" lists the images under a licence that requires attribution without a creator to
    credit: stored before the rule (`blobs.rights.validate_attribution`), they keep their details
    until a curator names one.
    """

    title = gettext_lazy("details")
    parameter_name = "missing"

    def lookups(self, request, model_admin):
        return [
            ("alt_text", gettext("Without alt text")),
            ("license", gettext("Without a licence")),
            ("creator", gettext("Without the creator their licence requires")),
        ]

    def queryset(self, request, queryset):
        if self.value() in ("alt_text", "license"):
            return queryset.filter(**{self.value(): ""})
        if self.value() == "creator":
            return queryset.filter(license__in=ATTRIBUTION_LICENSES, creator="")
        return queryset


class ThumbnailListFilter(admin.SimpleListFilter):
    """Images with or without a stored thumbnail."""

    title = "thumbnail"
    parameter_name = "thumbnail"

    def lookups(self, request, model_admin):
        return [("missing", "Missing"), ("present", "Present")]

    def queryset(self, request, queryset):
        if self.value() == "missing":
            return queryset.missing_thumbnail()
        if self.value() == "present":
            return queryset.exclude(pk__in=queryset.missing_thumbnail().values("pk"))
        return queryset


class ThumbnailedImageInline(ImageMetadataMixin, admin.TabularInline):
    """Images as an inline: each row's image (preview, file, links), upload, alt text, creator
    and licence, and delete box, without the bytes.

    The creator stands beside the licence, so one can be named with an upload whose licence
    requires attribution, and a missing one shows. Role and source are edited on each image's
    own page, which the row links (its source shown): a row with every field would not fit a
    laptop.
    """

    fields = ["image_summary", "upload", "alt_text", "creator", "license"]
    readonly_fields = ["image_summary"]
    extra = 1
    view_on_site = False  # the image cell links the bytes, in a new tab
    classes = ["catalog-compact"]

    def get_queryset(self, request):
        return super().get_queryset(request).without_blobs()

    @admin.display(description=gettext_lazy("Image"))
    def image_summary(self, image):
        """The preview, the file's type, size and dimensions, links to the bytes and to the
        image's page (role, source), the source, and a warning when the licence requires a
        creator the image lacks."""
        if image.pk is None:
            return self.get_empty_value_display()
        opts = self.opts
        details_url = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[image.pk])
        source = (
            format_html("<br>{} {}", gettext("Source:"), Truncator(image.source).chars(60))
            if image.source
            else ""
        )
        missing = (
            format_html(
                "<br><strong>{}</strong>",
                gettext("No creator: %(license)s requires one.")
                % {"license": image.get_license_display()},
            )
            if image.license in ATTRIBUTION_LICENSES and not image.creator
            else ""
        )
        return format_html(
            "{}<br><small>{} · {} · {}<br>"
            '<a href="{}" target="_blank" rel="noopener">{}</a> · '
            '<a href="{}">{}</a>{}{}</small>',
            thumbnail_img(image.get_thumbnail_url(), PREVIEW_SIDE),
            image.content_type,
            self.file_size(image),
            self.dimensions(image),
            image.get_data_url(),
            gettext("Open"),
            details_url,
            gettext("Role, source"),
            source,
            missing,
        )
