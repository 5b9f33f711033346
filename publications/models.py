"""Publications, the fruits they describe (with a PDF each) and their images of those fruits."""

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Count, F, OuterRef, Prefetch, Q, Subquery
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils.functional import lazy
from django.utils.translation import gettext, gettext_lazy

from blobs import imaging
from blobs.content_types import JPEG, PDF
from blobs.models import (
    BlobQuerySet,
    ImageSource,
    StoredBytes,
    StoredBytesModel,
    ThumbnailedImage,
    ThumbnailedImageQuerySet,
)
from blobs.responses import versioned
from blobs.rights import rights_constraints
from catalog.models import Fruit
from core.db.search import SearchQuerySetMixin, search_document

TITLE_MAX = 300
YEAR_MIN = 1400  # the first printed pomologies are younger; older manuscripts are not catalogued
YEAR_MAX = 2100


class PublicationQuerySet(SearchQuerySetMixin, BlobQuerySet):
    """Query shapes for publications."""

    def with_list_data(self):
        """Without the cover bytes, links prefetched: two queries for any number of rows."""
        return self.without_blobs().prefetch_related(
            Prefetch("links", queryset=PublicationFruit.objects.with_list_data())
        )

    def in_default_order(self):
        """The default order: newest year first (unknown years last), then title, then id."""
        return self.order_by(F("year").desc(nulls_last=True), "title", "pk")

    def missing_thumbnail(self):
        """Publications with a cover but no cover thumbnail (rows from before thumbnails)."""
        return self.exclude(cover_sha256="").filter(
            Q(cover_thumbnail_data__isnull=True) | Q(cover_thumbnail_sha256="")
        )


class Publication(StoredBytesModel):
    """A book or article describing fruits of the catalog."""

    title = models.CharField(max_length=TITLE_MAX)
    authors = models.TextField(blank=True, default="")
    year = models.IntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(YEAR_MIN), MaxValueValidator(YEAR_MAX)],
        help_text=lazy(
            lambda: (
                gettext("Year of publication, %(min)s to %(max)s; empty when unknown.")
                % {"min": YEAR_MIN, "max": YEAR_MAX}
            ),
            str,
        )(),
    )
    description = models.TextField(blank=True, default="")
    cover_data = models.BinaryField(null=True, blank=True)
    cover_content_type = models.CharField(max_length=100, blank=True, default="", editable=False)
    cover_size = models.PositiveBigIntegerField(default=0, editable=False)
    cover_sha256 = models.CharField(max_length=64, blank=True, default="", editable=False)
    # The cover's size as displayed, for `<img width height>`; 0 without a cover.
    cover_width = models.PositiveIntegerField(default=0, editable=False)
    cover_height = models.PositiveIntegerField(default=0, editable=False)
    # The cover's JPEG thumbnail, cropped to its content like every image's: what pages show.
    cover_thumbnail_data = models.BinaryField(null=True, blank=True, editable=False)
    cover_thumbnail_sha256 = models.CharField(max_length=64, blank=True, default="", editable=False)
    cover_thumbnail_width = models.PositiveIntegerField(default=0, editable=False)
    cover_thumbnail_height = models.PositiveIntegerField(default=0, editable=False)
    # Folded title and authors in one column: search is one `LIKE` that ignores case and accents
    # the same way on SQLite and PostgreSQL (neither database folds accents by itself).
    search_text = models.TextField(blank=True, default="", editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    cover = StoredBytes("cover", measured=True)
    cover_thumbnail = StoredBytes(
        "cover_thumbnail", content_type=JPEG, sized=False, derived=True, measured=True
    )
    backfill_key = "publication_covers"  # the thumbnail backfill reports covers under this key

    objects = PublicationQuerySet.as_manager()

    class Meta:
        ordering = [F("year").desc(nulls_last=True), "title", "pk"]
        constraints = [
            models.CheckConstraint(condition=~Q(title=""), name="publication_title_not_empty"),
            models.CheckConstraint(
                condition=Q(year__isnull=True) | Q(year__gte=YEAR_MIN, year__lte=YEAR_MAX),
                name="publication_year_in_range",
            ),
        ]

    def __str__(self):
        return self.title if self.year is None else f"{self.title} ({self.year})"

    def save(self, *args, **kwargs):
        """Refresh the search column, and the cover's metadata and thumbnail when the cover
        changed, then save."""
        self.search_text = search_document(self.title, self.authors)
        if self.cover.is_stale():
            self.set_cover(self.cover_data)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and {"title", "authors"} & set(update_fields):
            # A partial save writes what it derives too, or the stored copy would go stale.
            kwargs["update_fields"] = {*update_fields, "search_text"}
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        """The publication's public page (the admin's "View on site").

        The API's own URL is `publication-detail`.
        """
        return reverse("publication-page", kwargs={"pk": self.pk})

    @property
    def has_cover(self) -> bool:
        """Whether a cover is stored (known without reading its bytes)."""
        return self.cover.exists

    def get_cover_url(self) -> str | None:
        """Path of the cover endpoint with the cover's version (`?v=`); None without a cover."""
        if not self.has_cover:
            return None
        return versioned(reverse("publication-cover", kwargs={"id": self.pk}), self.cover_sha256)

    def get_cover_thumbnail_url(self) -> str | None:
        """Path of the cover's thumbnail endpoint, versioned by what it serves; None without."""
        if not self.has_cover:
            return None
        path = reverse("publication-cover-thumbnail", kwargs={"id": self.pk})
        return versioned(path, self.cover_thumbnail_sha256 or self.cover_sha256)

    @property
    def cover_thumbnail_source(self) -> ImageSource | None:
        """What an `<img>` of the cover's thumbnail needs (the cover's while it has none)."""
        if not self.has_cover:
            return None
        if self.cover_thumbnail_sha256 and self.cover_thumbnail_width:
            size = self.cover_thumbnail_width, self.cover_thumbnail_height
        else:
            size = self.cover_width, self.cover_height
        return ImageSource(self.get_cover_thumbnail_url(), *size)

    def set_cover(self, data: bytes | None, checked=None) -> None:
        """Take a cover (or none) with its thumbnail.

        `checked`: what `check_image_bytes` returned for `data` (its type, size and thumbnail),
        so the cover is not decoded again; without it the thumbnail is made here.
        """
        if checked is None:
            self.cover.set(data)
            self.make_cover_thumbnail()
            return
        info, thumbnail = checked
        self.cover.set(data, content_type=info.content_type, dimensions=(info.width, info.height))
        self.cover_thumbnail.set(thumbnail.data, dimensions=(thumbnail.width, thumbnail.height))

    def make_cover_thumbnail(self) -> None:
        """Make the cover's thumbnail from the cover; none when the cover cannot be decoded."""
        data = self.cover_data
        thumbnail = None
        if data:
            try:
                _, thumbnail = imaging.inspect_and_thumbnail_sized(
                    bytes(data), max_pixels=settings.FRUITCATALOG_MAX_IMAGE_PIXELS
                )
            except imaging.ImageError:
                thumbnail = None
        if thumbnail is None:
            self.cover_thumbnail.set(None)
        else:
            self.cover_thumbnail.set(thumbnail.data, dimensions=(thumbnail.width, thumbnail.height))

    @classmethod
    def backfill_thumbnail(cls, pk: int) -> bool:
        """The backfill of one cover: its thumbnail made and written; False when undecodable."""
        publication = cls.objects.only("pk", "cover_data").get(pk=pk)
        publication.make_cover_thumbnail()
        if not publication.cover_thumbnail.exists:
            return False
        fields = ["cover_thumbnail_data", *cls.cover_thumbnail.metadata_fields]
        cls.objects.filter(pk=pk).update(**{name: getattr(publication, name) for name in fields})
        return True

    def fields_derived_from(self, spec):
        fields = super().fields_derived_from(spec)
        if spec is Publication.cover:
            fields = [*fields, "cover_thumbnail_data", *Publication.cover_thumbnail.metadata_fields]
        return fields


CITATION_PLACE_MAX = 50  # pages, plate
NAME_IN_SOURCE_MAX = 200  # a fruit name's length
CITATION_FIELDS = ["pages", "plate", "name_in_source", "is_first_description"]
CITED_FIELDS = ["id", "title", "authors", "year"]  # of the publication, in a citation


def names_in_sources(sender, *, fruit_ids: list[int], **kwargs) -> dict[int, list[str]]:
    """The names the publications describe these fruits under, by fruit id (one query).

    A receiver of the catalog's `searched_names`: a fruit is found by them.
    """
    rows = (
        PublicationFruit.objects.filter(fruit_id__in=fruit_ids)
        .exclude(name_in_source="")
        .order_by("fruit_id", "pk")
        .values_list("fruit_id", "name_in_source")
    )
    found: dict[int, list[str]] = {}
    for fruit_id, name in rows:
        found.setdefault(fruit_id, []).append(name)
    return found


class PublicationFruitQuerySet(BlobQuerySet):
    """Query shapes for the links between publications and fruits."""

    def with_list_data(self):
        """Without the PDF, with the fruit and an image count; in the fruits' catalog order."""
        images = PublicationFruitImage.objects.filter(link=OuterRef("pk"))
        return (
            self.without_blobs()
            .select_related("fruit")
            .defer("fruit__search_text")
            .annotate(
                image_count=Coalesce(
                    Subquery(images.values("link").annotate(n=Count("pk")).values("n")[:1]), 0
                )
            )
            .order_by(F("fruit__catalog_number").asc(nulls_last=True), "fruit_id")
        )

    def as_citations(self):
        """Without bytes, with the publication's title, authors and year joined in, oldest
        publication first (no year last, then title)."""
        return (
            self.without_blobs()
            .select_related("publication")
            .only("fruit_id", *CITATION_FIELDS, *(f"publication__{f}" for f in CITED_FIELDS))
            .order_by(
                F("publication__year").asc(nulls_last=True), "publication__title", "publication_id"
            )
        )

    def conflict_labels(self):
        """Titles of the linking publications, for the 409 that blocks a fruit's deletion.

        A values query: it never loads a publication's cover or a link's PDF.
        """
        return self.values_list("publication__title", flat=True)


class PublicationFruit(StoredBytesModel):
    """A fruit described by a publication, with the publication's description of it as a PDF."""

    publication = models.ForeignKey(Publication, on_delete=models.CASCADE, related_name="links")
    # PROTECT: deleting a fruit would silently lose the PDF and images a publication holds for it.
    fruit = models.ForeignKey(Fruit, on_delete=models.PROTECT, related_name="publication_links")
    description_data = models.BinaryField(null=True, blank=True)
    description_size = models.PositiveBigIntegerField(default=0, editable=False)
    description_sha256 = models.CharField(max_length=64, blank=True, default="", editable=False)
    # The citation: where and under which name the publication describes the fruit.
    pages = models.CharField(
        max_length=CITATION_PLACE_MAX,
        blank=True,
        default="",
        help_text=gettext_lazy('E.g. "112-114".'),
    )
    plate = models.CharField(
        max_length=CITATION_PLACE_MAX,
        blank=True,
        default="",
        help_text=gettext_lazy("Plate (Tafel) number."),
    )
    name_in_source = models.CharField(
        max_length=NAME_IN_SOURCE_MAX,
        blank=True,
        default="",
        help_text=gettext_lazy(
            "The name under which the publication describes the fruit, if another."
        ),
    )
    is_first_description = models.BooleanField(
        default=False,
        help_text=gettext_lazy("This publication is the variety's first description."),
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)  # what the exports' Last-Modified follows

    description = StoredBytes("description", content_type=PDF)

    objects = PublicationFruitQuerySet.as_manager()

    class Meta:
        verbose_name = gettext_lazy("publication fruit")
        verbose_name_plural = gettext_lazy("publication fruits")
        constraints = [
            models.UniqueConstraint(
                fields=["publication", "fruit"], name="publicationfruit_unique_fruit"
            ),
        ]
        indexes = [
            # The newest change, for the exports' Last-Modified: one index probe.
            models.Index(fields=["updated_at"], name="publications_link_updated_idx"),
        ]

    def __str__(self):
        return f"{self.fruit.name} in {self.publication_without_cover()}"

    def publication_without_cover(self) -> Publication:
        """The link's publication, loaded (once) without its cover bytes."""
        if not PublicationFruit.publication.is_cached(self):
            self.publication = Publication.objects.without_blobs().get(pk=self.publication_id)
        return self.publication

    def get_absolute_url(self):
        return reverse(
            "publication-fruit-detail", kwargs={"id": self.publication_id, "fruitId": self.fruit_id}
        )

    @property
    def has_description(self) -> bool:
        """Whether a PDF is stored (known without reading its bytes)."""
        return self.description.exists

    @property
    def place(self) -> str:
        """Where the publication describes the fruit, for reading: "p. 112, plate IV"."""
        parts = []
        if self.pages:
            digits = self.pages[0].isdigit()
            parts.append(gettext("p. %(pages)s") % {"pages": self.pages} if digits else self.pages)
        if self.plate:
            parts.append(gettext("plate %(plate)s") % {"plate": self.plate})
        return ", ".join(parts)

    def get_description_url(self) -> str | None:
        """Path of the PDF endpoint with the PDF's version (`?v=`); None without a PDF."""
        if not self.has_description:
            return None
        path = reverse(
            "publication-fruit-description",
            kwargs={"id": self.publication_id, "fruitId": self.fruit_id},
        )
        return versioned(path, self.description_sha256)


class PublicationFruitImageQuerySet(ThumbnailedImageQuerySet):
    """Query shapes for a publication's images of its fruits."""

    def with_link(self):
        """Without bytes, with the link's ids joined in (for URLs and `fruit_id`), oldest first."""
        return (
            self.without_blobs()
            .select_related("link")
            .defer("link__description_data")
            .order_by("pk")
        )

    def of_publication(self, publication_id):
        """The images of one publication."""
        return self.filter(link__publication_id=publication_id)


class PublicationFruitImage(ThumbnailedImage):
    """An image of a fruit from a publication (a plate, a drawing), with its thumbnail.

    It hangs on the link rather than on publication and fruit separately, so an image of a fruit
    the publication does not link cannot exist, and unlinking removes the images with the link.
    """

    link = models.ForeignKey(PublicationFruit, on_delete=models.CASCADE, related_name="images")

    objects = PublicationFruitImageQuerySet.as_manager()

    backfill_key = "publication_fruit_images"
    parent_field = "link"

    class Meta:
        ordering = ["pk"]
        verbose_name = gettext_lazy("publication fruit image")
        verbose_name_plural = gettext_lazy("publication fruit images")
        indexes = [
            # Refusing the same bytes twice for one fruit of a publication is one probe.
            models.Index(fields=["link", "sha256"], name="publications_image_sha256_idx"),
        ]
        constraints = rights_constraints("publicationfruitimage")

    def __str__(self):
        # Also read after a delete (the admin's history), when the id is gone.
        if not PublicationFruitImage.link.is_cached(self):
            # Without the PDF: naming an image must not read bytes.
            self.link = PublicationFruit.objects.without_blobs().get(pk=self.link_id)
        if self.pk is None:
            return f"Image of {self.link}"
        return f"Image {self.pk} of {self.link}"

    def get_absolute_url(self):
        return reverse(
            "publication-fruit-image-detail",
            kwargs={"id": self.link.publication_id, "imgId": self.pk},
        )

    def get_thumbnail_path(self):
        return reverse(
            "publication-fruit-image-thumbnail",
            kwargs={"id": self.link.publication_id, "imgId": self.pk},
        )
