"""Fruits, their synonyms and images."""

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Count, F, OuterRef, Prefetch, Q, Subquery
from django.db.models.functions import Coalesce
from django.urls import reverse

from fruitcatalog.blobs.models import ThumbnailedImage
from fruitcatalog.search import name_key, search_document, search_query

CATALOG_NUMBER_MAX = 2_147_483_647  # the largest value a 32-bit integer column holds everywhere


class FruitType(models.TextChoices):
    """The kinds of fruit the catalog knows."""

    APPLE = "apple", "Apple"
    PEAR = "pear", "Pear"
    QUINCE = "quince", "Quince"
    CHERRY = "cherry", "Cherry"
    PLUM = "plum", "Plum"
    APRICOT = "apricot", "Apricot"
    PEACH = "peach", "Peach"
    GRAPE = "grape", "Grape"
    BERRY = "berry", "Berry"
    CITRUS = "citrus", "Citrus"
    NUT = "nut", "Nut"
    OTHER = "other", "Other"


class FruitQuerySet(models.QuerySet):
    """Query shapes for fruits."""

    def with_list_data(self):
        """Annotate image count and first image id, prefetch synonyms: constant queries per page.

        Correlated subqueries rather than JOIN + GROUP BY, so the database computes them only
        for the rows of the page, not for the whole table before sorting.
        """
        images = FruitImage.objects.filter(fruit=OuterRef("pk"))
        return self.annotate(
            image_count=Coalesce(
                Subquery(images.values("fruit").annotate(n=Count("pk")).values("n")[:1]), 0
            ),
            first_image_id=Subquery(images.order_by("pk").values("pk")[:1]),
        ).prefetch_related(Prefetch("synonyms", queryset=FruitSynonym.objects.order_by("position")))

    def with_images(self):
        """Also prefetch the images' metadata (never their bytes), oldest first."""
        return self.prefetch_related(
            Prefetch("images", queryset=FruitImage.objects.without_blobs().order_by("pk"))
        )

    def search(self, query: str):
        """Substring match on name, synonyms and catalog number, ignoring case and accents."""
        folded = search_query(query)
        if not folded:
            return self
        return self.filter(search_text__contains=folded)

    def in_catalog_order(self):
        """The default order: catalog number with nulls last, then id."""
        return self.order_by(F("catalog_number").asc(nulls_last=True), "pk")


class Fruit(models.Model):
    """A fruit variety of the catalog."""

    catalog_number = models.IntegerField(
        null=True,
        blank=True,
        unique=True,
        validators=[MinValueValidator(1), MaxValueValidator(CATALOG_NUMBER_MAX)],
        help_text="Assigned as the current maximum + 1 when left empty.",
    )
    name = models.CharField(max_length=200)
    type = models.CharField(max_length=16, choices=FruitType.choices)
    # Folded name, synonyms and catalog number in one column: search stays one indexed `LIKE`
    # (a trigram index on PostgreSQL) instead of a join with DISTINCT over the synonyms.
    search_text = models.TextField(blank=True, default="", editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = FruitQuerySet.as_manager()

    class Meta:
        ordering = [F("catalog_number").asc(nulls_last=True), "pk"]
        indexes = [
            models.Index(fields=["name"], name="catalog_fruit_name_idx"),
            # The catalog order as one index (PostgreSQL sorts nulls last ascending), so a deep
            # page of the admin or the API skips index entries instead of sorting ties by id.
            models.Index(fields=["catalog_number", "id"], name="catalog_fruit_order_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(catalog_number__gte=1) | Q(catalog_number__isnull=True),
                name="fruit_catalog_number_positive",
            ),
            models.CheckConstraint(condition=~Q(name=""), name="fruit_name_not_empty"),
            models.CheckConstraint(condition=Q(type__in=FruitType.values), name="fruit_type_valid"),
        ]

    def __str__(self):
        if self.catalog_number is None:
            return self.name
        return f"{self.catalog_number} {self.name}"

    def get_absolute_url(self):
        return reverse("fruit-detail", kwargs={"pk": self.pk})

    @property
    def synonym_names(self) -> list[str]:
        """Synonyms in their stored order (uses the prefetch cache when present)."""
        return [synonym.name for synonym in self.synonyms.all()]

    def refresh_search_text(self, synonym_names=None):
        """Recompute the search column from name, synonyms and catalog number, and store it."""
        if synonym_names is None:
            synonym_names = list(self.synonyms.order_by("position").values_list("name", flat=True))
        self.search_text = search_document(self.catalog_number, self.name, *synonym_names)
        Fruit.objects.filter(pk=self.pk).update(search_text=self.search_text)


class FruitSynonym(models.Model):
    """Another name a fruit is known by."""

    fruit = models.ForeignKey(Fruit, on_delete=models.CASCADE, related_name="synonyms")
    name = models.CharField(max_length=200)
    # Text, not CharField(200): casefolding can lengthen a name ("ß" becomes "ss").
    name_key = models.TextField(editable=False)
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["position", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["fruit", "name_key"], name="fruitsynonym_unique_name_key_per_fruit"
            ),
            models.CheckConstraint(condition=~Q(name=""), name="fruitsynonym_name_not_empty"),
        ]

    def __str__(self):
        return self.name

    def save(self, *args, **kwargs):
        """Keep the uniqueness key in step with the name, then save."""
        self.name_key = name_key(self.name)
        super().save(*args, **kwargs)


class FruitImage(ThumbnailedImage):
    """An image of a fruit."""

    fruit = models.ForeignKey(Fruit, on_delete=models.CASCADE, related_name="images")

    backfill_key = "fruit_images"
    parent_field = "fruit"

    class Meta:
        ordering = ["pk"]

    def __str__(self):
        # Also read after a delete (the admin's history), when the id is gone.
        if self.pk is None:
            return f"Image of {self.fruit.name}"
        return f"Image {self.pk} of {self.fruit.name}"

    def get_absolute_url(self):
        return reverse("fruit-image-detail", kwargs={"id": self.fruit_id, "imageId": self.pk})

    def get_thumbnail_url(self):
        """Path of the thumbnail endpoint."""
        return reverse("fruit-image-thumbnail", kwargs={"id": self.fruit_id, "imageId": self.pk})
