"""Bytes stored in the database: one helper for "bytes + size + hash + type"; thumbnailed images.

A model keeps bytes in a `BinaryField` with their metadata beside it in plain columns, so lists,
HEAD requests and 304s answer from the metadata without reading the bytes. `StoredBytes` declares
such a group of columns once; `StoredBytesModel.save()` keeps the metadata in step with the bytes.
"""

import hashlib
from dataclasses import dataclass
from functools import cache

from django.conf import settings
from django.db import models
from django.db.models import Case, F, Q, When
from django.utils.translation import gettext_lazy

from blobs import imaging
from blobs.content_types import JPEG, detect_content_type
from blobs.responses import versioned
from blobs.rights import (
    ALT_TEXT_MAX,
    CREATOR_MAX,
    SOURCE_MAX,
    ImageRole,
    License,
    license_url,
)
from core.db.locks import lock_row
from core.history import announce


def blob_fields(model, via: str = "") -> list[str]:
    """Names of the model's byte columns; `via` a relation's path: their lookups through it."""
    names = [f.name for f in model._meta.concrete_fields if isinstance(f, models.BinaryField)]
    return [f"{via}__{name}" for name in names] if via else names


class StoredBytes:
    """Bytes with their size, SHA-256 and type, declared once: `cover = StoredBytes("cover")`.

    The prefix names the columns: `cover_data`, `cover_size`, `cover_sha256` and
    `cover_content_type` (no prefix: `data`, `size`, ...). `content_type` fixes the type of every
    value instead of a detected-type column (PDFs are PDFs); `sized=False` means there is no size
    column (a HEAD measures the stored value with `LENGTH()`, see `blobs.reads`).
    `measured=True` adds `<prefix>_width` and `<prefix>_height`: an image's size as displayed,
    read from its header whenever the bytes are set, so pages size their `<img>` without
    reading bytes (0 when unknown). On an instance, the attribute is a `StoredBytesValue`.
    """

    def __init__(
        self,
        prefix: str = "",
        *,
        content_type: str | None = None,
        sized: bool = True,
        derived: bool = False,
        measured: bool = False,
    ):
        self.prefix = prefix
        self.fixed_content_type = content_type
        self.sized = sized
        self.measured = measured
        # Derived bytes (a thumbnail) are set with their metadata by whatever derives them;
        # saving never checks them against their hash.
        self.derived = derived

    def __set_name__(self, owner, name):
        self.name = name
        # The instance attribute holding the bytes object the metadata is known to describe.
        self.measured_attribute = f"_{name}_measured"

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        return StoredBytesValue(self, instance)

    def column(self, suffix: str) -> str:
        """The name of one of the group's columns."""
        return f"{self.prefix}_{suffix}" if self.prefix else suffix

    @property
    def data_field(self) -> str:
        return self.column("data")

    @property
    def metadata_fields(self) -> list[str]:
        """The columns derived from the bytes."""
        fields = [self.column("sha256")]
        if self.sized:
            fields.append(self.column("size"))
        if self.fixed_content_type is None:
            fields.append(self.column("content_type"))
        if self.measured:
            fields += [self.column("width"), self.column("height")]
        return fields


class StoredBytesValue:
    """The stored bytes of one row: metadata read without the bytes, bytes set with metadata."""

    def __init__(self, spec: StoredBytes, instance: models.Model):
        self.spec = spec
        self.instance = instance

    @property
    def exists(self) -> bool:
        """Whether bytes are stored (known without reading them)."""
        return bool(self.sha256)

    @property
    def sha256(self) -> str:
        return getattr(self.instance, self.spec.column("sha256"))

    def set(
        self,
        data: bytes | None,
        *,
        content_type: str | None = None,
        dimensions: tuple[int, int] | None = None,
    ) -> None:
        """Take new bytes (already validated) with their metadata; empty or `None` removes them.

        `content_type` is what a caller has already detected (an image's type, checked by
        Pillow); otherwise libmagic names it. `dimensions`, likewise, spare a measured group
        reading the image's header again.
        """
        spec, instance = self.spec, self.instance
        data = bytes(data) if data else b""
        setattr(instance, spec.data_field, data or None)
        setattr(instance, spec.column("sha256"), hashlib.sha256(data).hexdigest() if data else "")
        if spec.sized:
            setattr(instance, spec.column("size"), len(data))
        if spec.fixed_content_type is None:
            if data and content_type is None:
                content_type = detect_content_type(data)
            setattr(instance, spec.column("content_type"), content_type or "")
        if spec.measured:
            if data and dimensions is None:
                dimensions = _measure(data)
            width, height = dimensions if data else (0, 0)
            setattr(instance, spec.column("width"), width)
            setattr(instance, spec.column("height"), height)
        setattr(instance, spec.measured_attribute, getattr(instance, spec.data_field))

    def is_stale(self) -> bool:
        """Whether the bytes on the instance differ from what the metadata describes."""
        spec, instance = self.spec, self.instance
        # Deferred bytes mean the row was loaded for its metadata only: nothing can be stale.
        if spec.data_field in instance.get_deferred_fields():
            return False
        current = getattr(instance, spec.data_field)
        # Bytes just measured, or already checked, are compared by identity: hashing a large
        # image again on every save (an upload saves twice) would cost as much as the first.
        if current is not None and current is getattr(instance, spec.measured_attribute, None):
            return False
        data = bytes(current) if current else b""
        if self.sha256 != (hashlib.sha256(data).hexdigest() if data else ""):
            return True
        setattr(instance, spec.measured_attribute, current)
        return False


def _measure(data: bytes) -> tuple[int, int]:
    """An image's displayed size from its header; (0, 0) when it cannot be read."""
    try:
        return imaging.displayed_size(data)
    except imaging.ImageError:
        return 0, 0


class BlobQuerySet(models.QuerySet):
    """Query shapes of every model with byte columns."""

    def without_blobs(self):
        """Everything but the byte columns: lists, metadata and 304s never read them."""
        return self.defer(*blob_fields(self.model))

    def delete(self):
        """Delete the rows, announcing them first (their metadata, not their bytes) to the
        history (`core.history.announce`)."""
        announce(self.model, self.without_blobs(), "deleted")
        return super().delete()


class StoredBytesModel(models.Model):
    """A model with `StoredBytes` groups: saving keeps each group's metadata in step."""

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        """Measure bytes that changed, then save; a partial save of bytes writes what they
        determine too (`fields_derived_from`).

        A subclass whose bytes determine more (a thumbnail) brings it up to date in its own
        `save()` before calling this one.
        """
        update_fields = kwargs.get("update_fields")
        for spec in stored_bytes_of(type(self)):
            value = getattr(self, spec.name)
            if not spec.derived and value.is_stale():
                value.set(getattr(self, spec.data_field))
            if update_fields is not None and spec.data_field in update_fields:
                update_fields = {*update_fields, *self.fields_derived_from(spec)}
        if update_fields is not None:
            kwargs["update_fields"] = update_fields
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        """Delete the row, announcing it first to the history (`core.history.announce`)."""
        announce(type(self), [self], "deleted")
        return super().delete(*args, **kwargs)

    def fields_derived_from(self, spec: StoredBytes) -> list[str]:
        """The columns a change of one group's bytes rewrites."""
        return spec.metadata_fields


@cache
def stored_bytes_of(model) -> tuple[StoredBytes, ...]:
    """The `StoredBytes` groups a model class declares (its bases' included)."""
    found = {}
    for klass in reversed(model.__mro__):
        for value in vars(klass).values():
            if isinstance(value, StoredBytes):
                found[value.name] = value
    return tuple(found.values())


@dataclass(frozen=True)
class ImageSource:
    """What an `<img>` needs, known without reading bytes: a versioned URL path, width, height."""

    url: str
    width: int
    height: int


def thumbnail_endpoint_sha256():
    """SQL: the hash of what an image's thumbnail endpoint serves, the version of its URL.

    The thumbnail's own; the image's when there is none, since the endpoint then serves the image.
    """
    return Case(When(thumbnail_sha256="", then=F("sha256")), default=F("thumbnail_sha256"))


def thumbnail_endpoint_side(side: str):
    """SQL: `"width"` or `"height"` of what the thumbnail endpoint serves (as displayed).

    The image's own when it has no thumbnail, or none measured (a row the save hook never saw).
    """
    thumbnail_side = f"thumbnail_{side}"
    return Case(
        When(Q(thumbnail_sha256="") | Q(**{thumbnail_side: 0}), then=F(side)),
        default=F(thumbnail_side),
    )


class ThumbnailedImageQuerySet(BlobQuerySet):
    """Query shapes shared by every thumbnailed-image model."""

    def missing_thumbnail(self):
        """Rows stored without a thumbnail (bulk inserts, `update()`, rows from before them)."""
        return self.filter(Q(thumbnail_data__isnull=True) | Q(thumbnail_sha256=""))


class ThumbnailedImage(StoredBytesModel):
    """An image stored as bytes with its metadata and a JPEG thumbnail cropped to its content.

    The save hook keeps metadata and thumbnail in step with `data`; `QuerySet.update`,
    `bulk_create` and `loaddata` skip it, which is what the thumbnail backfill is for. Concrete
    models name their `backfill_key`, under which the backfill reports them, and their
    `parent_field`, and say where their bytes and thumbnail are served: `get_absolute_url()`
    (the image's resource, unversioned: its identity, as in `Location`) and
    `get_thumbnail_path()`. Links handed out carry the content's version: `get_data_url()`,
    `get_thumbnail_url()`, `thumbnail_source`.
    """

    data = models.BinaryField()
    content_type = models.CharField(max_length=100, blank=True, default="")
    size = models.PositiveBigIntegerField(default=0)
    width = models.PositiveIntegerField(default=0)
    height = models.PositiveIntegerField(default=0)
    sha256 = models.CharField(max_length=64, blank=True, default="")
    thumbnail_data = models.BinaryField(null=True, blank=True)
    thumbnail_sha256 = models.CharField(max_length=64, blank=True, default="")
    # The thumbnail's size in pixels, for `<img width height>`; 0 without a thumbnail.
    thumbnail_width = models.PositiveIntegerField(default=0)
    thumbnail_height = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    # Any change (bytes, details): what the exports' `Last-Modified` follows.
    updated_at = models.DateTimeField(auto_now=True)
    # What the image shows and who may use it (`blobs.rights`).
    alt_text = models.CharField(
        max_length=ALT_TEXT_MAX,
        blank=True,
        default="",
        help_text=gettext_lazy("What the image shows, for people who cannot see it."),
    )
    role = models.CharField(max_length=16, choices=ImageRole.choices, default=ImageRole.FRUIT)
    creator = models.CharField(
        max_length=CREATOR_MAX,
        blank=True,
        default="",
        help_text=gettext_lazy("Who made the photo or drawing."),
    )
    source = models.CharField(
        max_length=SOURCE_MAX,
        blank=True,
        default="",
        help_text=gettext_lazy("Where it comes from: a book and plate, an archive, a URL."),
    )
    license = models.CharField(max_length=32, choices=License.choices, blank=True, default="")

    original = StoredBytes()
    thumbnail = StoredBytes(
        "thumbnail", content_type=JPEG, sized=False, derived=True, measured=True
    )

    objects = ThumbnailedImageQuerySet.as_manager()

    backfill_key: str  # the backfill's result key, e.g. "fruit_images"
    parent_field: str  # the foreign key to the row the image belongs to, e.g. "fruit"

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        """Store the bytes again with all they determine when they changed, then save."""
        if self.original.is_stale():
            self.store(self.data)
        super().save(*args, **kwargs)

    def get_thumbnail_path(self) -> str:
        """Path of the thumbnail endpoint, without a version."""
        raise NotImplementedError

    def get_data_url(self) -> str:
        """Path of the image's bytes with their version (`?v=`): cacheable for good."""
        return versioned(self.get_absolute_url(), self.sha256)

    def get_thumbnail_url(self) -> str:
        """Path of the thumbnail endpoint with the version of what it serves: cacheable for good.

        The endpoint serves the image itself while it has no thumbnail; the version follows.
        """
        return versioned(self.get_thumbnail_path(), self.thumbnail_sha256 or self.sha256)

    @property
    def thumbnail_dimensions(self) -> tuple[int, int]:
        """Width and height of what the thumbnail endpoint serves (`thumbnail_endpoint_side`)."""
        if self.thumbnail_sha256 and self.thumbnail_width and self.thumbnail_height:
            return self.thumbnail_width, self.thumbnail_height
        return self.width, self.height

    @property
    def thumbnail_source(self) -> ImageSource:
        """The thumbnail endpoint's versioned path and the size of what it serves."""
        return ImageSource(self.get_thumbnail_url(), *self.thumbnail_dimensions)

    @property
    def license_url(self) -> str | None:
        """The licence's deed URL (Creative Commons and CC0), else None."""
        return license_url(self.license)

    def duplicate_id(self) -> int | None:
        """The id of another image of the same parent with the same bytes (by SHA-256), or None.

        One probe of the concrete model's (parent, sha256) index.
        """
        parent = self._meta.get_field(self.parent_field).attname
        return (
            type(self)
            .objects.filter(**{parent: getattr(self, parent)}, sha256=self.sha256)
            .exclude(pk=self.pk)
            .values_list("pk", flat=True)
            .first()
        )

    @property
    def has_thumbnail(self) -> bool:
        """Whether a thumbnail is stored (known without reading the thumbnail bytes)."""
        return self.thumbnail.exists

    def fields_derived_from(self, spec):
        if spec is type(self).original:
            return [
                "content_type",
                "size",
                "width",
                "height",
                "sha256",
                "thumbnail_data",
                *type(self).thumbnail.metadata_fields,
            ]
        return super().fields_derived_from(spec)

    def lock_parent(self) -> None:
        """Lock the row the image belongs to (see `core.db.locks`)."""
        field = self._meta.get_field(self.parent_field)
        lock_row(field.related_model, getattr(self, field.attname))

    def store(self, data: bytes, *, info: imaging.ImageInfo | None = None) -> None:
        """Take new bytes with all they determine: size, SHA-256, type, dimensions, thumbnail.

        Raises `imaging.ImageError` when the bytes are unfit; they are decoded once, here. A
        caller that has inspected them already passes their `info` and stores the thumbnail
        itself when made (`store_thumbnail`): an upload writes its bytes while its thumbnail is
        made on another thread (`blobs.views.save_uploaded_image`).
        """
        data = bytes(data)
        thumbnail = None
        if info is None:
            info, thumbnail = imaging.inspect_and_thumbnail_sized(
                data, max_pixels=settings.FRUITCATALOG_MAX_IMAGE_PIXELS
            )
        self.original.set(data, content_type=info.content_type)
        self.width = info.width
        self.height = info.height
        self.store_thumbnail(thumbnail)

    def make_thumbnail(self) -> None:
        """Make the thumbnail from the stored bytes again; `imaging.ImageError` if it cannot be."""
        _, thumbnail = imaging.inspect_and_thumbnail_sized(
            bytes(self.data), max_pixels=settings.FRUITCATALOG_MAX_IMAGE_PIXELS
        )
        self.store_thumbnail(thumbnail)

    def store_thumbnail(self, thumbnail: imaging.Thumbnail | None) -> None:
        """Take a thumbnail made from the stored bytes (None: none)."""
        if thumbnail is None:
            self.thumbnail.set(None)
        else:
            self.thumbnail.set(thumbnail.data, dimensions=(thumbnail.width, thumbnail.height))

    @classmethod
    def backfill_thumbnail(cls, pk: int) -> bool:
        """The backfill of one image: its thumbnail made and written; False when undecodable.

        A row written around the save hook may lack its metadata too: then it is stored whole.
        """
        image = cls.objects.defer("thumbnail_data").get(pk=pk)
        try:
            if image.sha256 and image.content_type and image.width:
                image.make_thumbnail()
                fields = ["thumbnail_data", *cls.thumbnail.metadata_fields]
            else:
                image.store(image.data)
                fields = image.fields_derived_from(cls.original)
        except imaging.ImageError:
            return False
        # `update()` rather than `save()`: these columns alone, neither the bytes nor `updated_at`.
        cls.objects.filter(pk=pk).update(**{name: getattr(image, name) for name in fields})
        return True
