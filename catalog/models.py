"""Fruits, their names and images."""

from collections.abc import Iterable
from typing import NamedTuple

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Count, Exists, F, OuterRef, Prefetch, Q, Subquery
from django.db.models.functions import Coalesce, JSONArray
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import cached_property
from django.utils.translation import gettext_lazy as _

from blobs.models import (
    ImageSource,
    ThumbnailedImage,
    ThumbnailedImageQuerySet,
    thumbnail_endpoint_sha256,
    thumbnail_endpoint_side,
)
from blobs.responses import versioned
from blobs.rights import alt_text_or_role, rights_constraints
from catalog.languages import ISO_639_1
from catalog.signals import searched_names
from core.db.expressions import ListSubquery
from core.db.search import (
    SearchQuerySetMixin,
    dictionary_words,
    name_key,
    search_document,
    spellings_of,
)
from core.history import AnnouncedDeletes, AnnouncedDeletesQuerySet
from core.translated import active_language


def searched_names_elsewhere(fruit_ids: list[int]) -> dict[int, list[str]]:
    """The names of these fruits that other apps hold (`signals.searched_names`), by fruit id,
    each list in a stable order."""
    found: dict[int, list[str]] = {}
    for _receiver, names_by_fruit in searched_names.send(sender=Fruit, fruit_ids=fruit_ids):
        for fruit_id, names in names_by_fruit.items():
            found.setdefault(fruit_id, []).extend(names)
    return found


CATALOG_NUMBER_MAX = 2_147_483_647  # the largest value a 32-bit integer column holds everywhere
NAME_FIELDS = ("name", "kind", "language", "note")  # a name record's fields, in API order


class FruitType(models.TextChoices):
    """The kinds of fruit the catalog knows."""

    APPLE = "apple", _("Apple")
    PEAR = "pear", _("Pear")
    QUINCE = "quince", _("Quince")
    CHERRY = "cherry", _("Cherry")
    PLUM = "plum", _("Plum")
    APRICOT = "apricot", _("Apricot")
    PEACH = "peach", _("Peach")
    GRAPE = "grape", _("Grape")
    BERRY = "berry", _("Berry")
    CITRUS = "citrus", _("Citrus")
    NUT = "nut", _("Nut")
    OTHER = "other", _("Other")


class Taxon(NamedTuple):
    """The botanical name a fruit type's varieties are cultivars of: a genus, and the species
    epithet where the type is a single species."""

    genus: str
    species: str = ""

    @property
    def name(self) -> str:
        """ "Malus domestica", or the genus alone ("Prunus")."""
        return f"{self.genus} {self.species}" if self.species else self.genus


# Every fruit type's taxon (the Darwin Core Archive's `scientificName`, BrAPI's genus and
# species). A type holding several species names their genus alone; one spanning several genera
# names none (None).
FRUIT_TYPE_TAXA: dict[str, Taxon | None] = {
    FruitType.APPLE: Taxon("Malus", "domestica"),
    FruitType.PEAR: Taxon("Pyrus", "communis"),
    FruitType.QUINCE: Taxon("Cydonia", "oblonga"),
    # Sweet cherries are Prunus avium, sour cherries Prunus cerasus (Duke cherries their hybrid),
    # all of them this one type.
    FruitType.CHERRY: Taxon("Prunus"),
    FruitType.PLUM: Taxon("Prunus", "domestica"),
    FruitType.APRICOT: Taxon("Prunus", "armeniaca"),
    FruitType.PEACH: Taxon("Prunus", "persica"),
    FruitType.GRAPE: Taxon("Vitis", "vinifera"),
    # Raspberries (Rubus), currants (Ribes), blueberries (Vaccinium), strawberries (Fragaria)...
    FruitType.BERRY: None,
    # Oranges, lemons, mandarins and kumquats: several species of one genus.
    FruitType.CITRUS: Taxon("Citrus"),
    # Walnuts (Juglans), hazelnuts (Corylus), sweet chestnuts (Castanea)...
    FruitType.NUT: None,
    FruitType.OTHER: None,
}


class FruitQuerySet(SearchQuerySetMixin, AnnouncedDeletesQuerySet):
    """Query shapes for fruits."""

    def with_list_data(self):
        """What a card needs, other names included: one query for a page's rows, no bytes.

        Annotates `image_count`, the card thumbnail (`with_card_thumbnail`) and the other
        names' records (`with_names`).
        """
        return self.with_names().with_image_count().with_card_thumbnail()

    def with_card_thumbnail(self):
        """Annotate the card image (the one curators chose, else the oldest): `card_image_id`,
        `card_thumbnail_sha256` (the hash of what its thumbnail endpoint serves, the URL's
        version), `card_thumbnail_width` and `card_thumbnail_height`, which
        `Fruit.card_thumbnail` turns into a versioned URL and a size. Correlated subqueries
        rather than JOIN + GROUP BY, so the database computes them only for the rows asked for;
        each is one probe of the card index (`catalog_fruitimage_card_idx`)."""
        card = FruitImage.objects.filter(fruit=OuterRef("pk")).in_card_order()
        return self.annotate(
            card_image_id=Subquery(card.values("pk")[:1]),
            card_thumbnail_sha256=Subquery(card.values(v=thumbnail_endpoint_sha256())[:1]),
            card_thumbnail_width=Subquery(card.values(v=thumbnail_endpoint_side("width"))[:1]),
            card_thumbnail_height=Subquery(card.values(v=thumbnail_endpoint_side("height"))[:1]),
        )

    def with_relations(self):
        """Prefetch the relations (with the related fruits' names) and what others say of it:
        two queries for any number of fruits."""
        names = ["id", "name", "catalog_number"]
        return self.prefetch_related(
            Prefetch(
                "relations",
                queryset=FruitRelation.objects.select_related("other").only(
                    "fruit_id", "kind", "name", "note", "position", *(f"other__{n}" for n in names)
                ),
            ),
            Prefetch(
                "related_relations",
                queryset=FruitRelation.objects.select_related("fruit")
                .only("other_id", "kind", *(f"fruit__{n}" for n in names))
                .order_by("kind", F("fruit__catalog_number").asc(nulls_last=True), "fruit_id"),
            ),
        )

    def with_card_alt_text(self):
        """Annotate `card_alt_text` and `card_role`: what the card image shows, as curators
        wrote it, and its role (`Fruit.card_alt`). For pages that show the picture."""
        card = FruitImage.objects.filter(fruit=OuterRef("pk")).in_card_order()
        return self.annotate(
            card_alt_text=Subquery(card.values("alt_text")[:1]),
            card_role=Subquery(card.values("role")[:1]),
        )

    def with_names(self):
        """Annotate `name_list`: the other names' records (`Fruit.name_list`), in order, from
        the row's own query."""
        names = FruitName.objects.filter(fruit=OuterRef("pk")).order_by("position", "pk")
        return self.annotate(name_list=ListSubquery(names.values(entry=JSONArray(*NAME_FIELDS))))

    def with_image_count(self):
        """Annotate `image_count`: a correlated count, computed for the rows read only."""
        images = FruitImage.objects.filter(fruit=OuterRef("pk")).order_by()
        return self.annotate(
            image_count=Coalesce(
                Subquery(images.values("fruit").annotate(n=Count("pk")).values("n")[:1]), 0
            )
        )

    def with_card_choice(self):
        """Annotate `chosen_card_image_id`: the image curators chose for the card, or None.

        One probe of the partial unique index that allows one chosen image per fruit.
        """
        chosen = FruitImage.objects.filter(fruit=OuterRef("pk"), is_card_image=True)
        return self.annotate(chosen_card_image_id=Subquery(chosen.order_by().values("pk")[:1]))

    def with_images(self):
        """Also prefetch the images' metadata (never their bytes), oldest first."""
        return self.prefetch_related(
            Prefetch("images", queryset=FruitImage.objects.without_blobs().order_by("pk"))
        )

    def in_catalog_order(self):
        """The default order: catalog number with nulls last, then id."""
        return self.order_by(F("catalog_number").asc(nulls_last=True), "pk")

    def types_in_use(self) -> set[str]:
        """The fruit types at least one fruit has: one statement, one index probe per type.

        Any one row carries an `EXISTS` per type (an empty catalog has no row and no type in
        use), so the cost does not grow with the catalog, unlike `DISTINCT type`.
        """
        flags = {value: Exists(Fruit.objects.filter(type=value)) for value in FruitType.values}
        row = self.model.objects.order_by().values(**flags).first()
        return {value for value, in_use in (row or {}).items() if in_use}


class Fruit(AnnouncedDeletes):
    """A fruit variety of the catalog."""

    catalog_number = models.IntegerField(
        null=True,
        blank=True,
        unique=True,
        validators=[MinValueValidator(1), MaxValueValidator(CATALOG_NUMBER_MAX)],
        help_text=_(
            "Assigned when left empty: one more than any number assigned so far or held now "
            "(a deleted fruit's number is never given to another)."
        ),
    )
    name = models.CharField(max_length=200)
    type = models.CharField(max_length=16, choices=FruitType.choices)
    # Folded name, other names and catalog number in one column: search stays one indexed
    # `LIKE` (a trigram index on PostgreSQL) instead of a join with DISTINCT over the names.
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
            # The type filter in catalog order, and the grid's "which types have fruit" probes.
            models.Index(
                fields=["type", "catalog_number", "id"], name="catalog_fruit_type_order_idx"
            ),
            # The newest change, for the exports' Last-Modified: one index probe.
            models.Index(fields=["updated_at"], name="catalog_fruit_updated_idx"),
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
        """The fruit's public page (the admin's "View on site"); the API's is `fruit-detail`."""
        return reverse("fruit-page", kwargs={"pk": self.pk})

    @cached_property
    def card_thumbnail(self) -> ImageSource | None:
        """The card's picture: the card image's thumbnail (versioned path, size), or None.

        Taken from the annotations of `with_card_thumbnail()`; a fruit loaded without them costs one
        query (of metadata) here.
        """
        if hasattr(self, "card_image_id"):
            image_id, sha256 = self.card_image_id, self.card_thumbnail_sha256
            width, height = self.card_thumbnail_width, self.card_thumbnail_height
        else:
            card = (
                FruitImage.objects.filter(fruit_id=self.pk)
                .in_card_order()
                .values_list(
                    "pk",
                    thumbnail_endpoint_sha256(),
                    thumbnail_endpoint_side("width"),
                    thumbnail_endpoint_side("height"),
                )
                .first()
            )
            image_id, sha256, width, height = card or (None, "", 0, 0)
        if image_id is None:
            return None
        path = reverse("fruit-image-thumbnail", kwargs={"id": self.pk, "imageId": image_id})
        return ImageSource(versioned(path, sha256), width, height)

    @property
    def relation_records(self) -> list[dict]:
        """The fruit's relations as the API reads them (`with_relations()`, else a query)."""
        return [relation.as_record() for relation in self.relations.all()]

    @property
    def related_records(self) -> list[dict]:
        """Other fruits' relations to this one, seen from here (`with_relations()`)."""
        return [
            {
                "kind": RELATED_KIND[relation.kind],
                "fruit": {
                    "id": relation.fruit.pk,
                    "name": relation.fruit.name,
                    "catalog_number": relation.fruit.catalog_number,
                },
            }
            for relation in self.related_relations.all()
        ]

    @property
    def relation_groups(self) -> list[tuple[str, list[dict], str]]:
        """The relations as a page shows them: (label, varieties, joiner), in a reader's order.

        Parentage reads "Mother x Father" (with the multiplication sign); a variety in the
        catalog carries its `url`.
        """

        def entry(fruit, name):
            url = fruit.get_absolute_url() if fruit is not None else None
            return {"name": fruit.name if fruit is not None else name, "url": url}

        own = {kind: [] for kind in RelationKind.values}
        for relation in self.relations.all():
            own[relation.kind].append(entry(relation.other, relation.name))
        said = {"child": [], "sport": [], "seedling": [], "confused_with": []}
        for relation in self.related_relations.all():
            said[RELATED_KIND[relation.kind]].append(entry(relation.fruit, relation.fruit.name))
        parents = own["mother"] + own["father"] + own["parent"]
        confused = own["confused_with"] + [
            item for item in said["confused_with"] if item not in own["confused_with"]
        ]
        groups = [
            (_("Parentage"), parents, " \N{MULTIPLICATION SIGN} "),
            (_("Sport of"), own["sport_of"], ", "),
            (_("Seedling of"), own["seedling_of"], ", "),
            (_("Sports"), said["sport"], ", "),
            (_("Seedlings"), said["seedling"], ", "),
            (_("Offspring"), said["child"], ", "),
            (_("Often confused with"), confused, ", "),
        ]
        return [group for group in groups if group[1]]

    @property
    def card_alt(self) -> str:
        """The card image's alt text: as curators wrote it, else "{name}, {role}"
        (`with_card_alt_text()`)."""
        return alt_text_or_role(
            getattr(self, "card_alt_text", ""), getattr(self, "card_role", None), self.name
        )

    @property
    def name_list(self) -> list[dict]:
        """The other names' records in their order (`name`, `kind`, `language`, `note`): from
        `with_names()` (part of `with_list_data()`), else the prefetch or a query."""
        records = self.__dict__.get("name_list")
        if records is not None:
            return records
        return [name.as_record() for name in self.names.all()]

    @name_list.setter
    def name_list(self, rows: list[list]) -> None:
        # Where Django puts the annotation of `with_names()`: one row of `NAME_FIELDS` per name.
        self.__dict__["name_list"] = [dict(zip(NAME_FIELDS, row, strict=True)) for row in rows]

    def name_in(self, language: str) -> str:
        """The name that heads the fruit in `language` (an ISO 639-1 code): its first other name
        of kind `translation` into that language, else its first `trade_name` in it; "" when it
        has neither or that name is its accepted name (read from `name_list`)."""
        for kind in HEADING_KINDS:
            for record in self.name_list:
                if record["kind"] == kind and record["language"] == language:
                    return "" if record["name"] == self.name else record["name"]
        return ""

    @property
    def heading_name(self) -> str:
        """The name that heads the fruit in the active language: in a language other than the
        catalog's (English), its name in that language where it has one (`name_in`); else the
        accepted name. Reads `name_list` only then: an English page reads no other names."""
        language = active_language()
        default = settings.LANGUAGE_CODE.split("-")[0]
        heading = self.name_in(language) if language and language != default else ""
        return heading or self.name

    @property
    def names_by_kind(self) -> list[tuple[str, list[dict]]]:
        """The other names grouped by kind for a page, kinds in `NAME_GROUPS` order."""
        records = self.name_list
        groups = []
        for kind, label in NAME_GROUPS:
            members = [record for record in records if record["kind"] == kind]
            if members:
                groups.append((label, members))
        return groups

    def refresh_search_text(self, names: list[str] | None = None, *, new: bool = False):
        """Recompute what search reads from name, other names, the names other apps hold for
        the fruit (`signals.searched_names`) and catalog number, and store it: the search
        column and the fruit's spellings. A `new` fruit has no names elsewhere yet (no query
        asks, which a bulk import would otherwise make for every row)."""
        if names is None:
            names = list(self.names.order_by("position").values_list("name", flat=True))
        if not new:
            names = [*names, *searched_names_elsewhere([self.pk]).get(self.pk, [])]
        self.set_search_text(names)
        # What the fruit is found by changed: so did the fruit (the exports' Last-Modified).
        self.updated_at = timezone.now()
        Fruit.objects.filter(pk=self.pk).update(
            search_text=self.search_text, updated_at=self.updated_at
        )
        FruitSpelling.objects.filter(fruit_id=self.pk).delete()
        add_spellings([(self, names)])

    def set_search_text(self, names: list[str]) -> None:
        """Set the search column (not stored) from name, other names and catalog number: what
        `refresh_search_text` stores, and a bulk insert of new fruits inserts."""
        self.search_text = search_document(self.catalog_number, *names, head=self.name)


class FruitSpelling(models.Model):
    """One folded spelling a fruit is found under: of its own name, another name or its number.

    Derived data, rewritten by `Fruit.refresh_search_text`. The catalog number is copied here so
    that an index gives a term's exact and starts-with matches in catalog order (the first
    tiers of a search by relevance) without visiting the fruits.
    """

    fruit = models.ForeignKey(Fruit, on_delete=models.CASCADE, related_name="spellings")
    spelling = models.TextField()
    is_own_name = models.BooleanField(default=False)
    catalog_number = models.IntegerField(null=True)

    class Meta:
        indexes = [
            # Equality and `LIKE 'term%'` as range scans (text_pattern_ops: byte order, whatever
            # the database's collation), answered from the index alone on PostgreSQL.
            models.Index(
                fields=["spelling"],
                name="catalog_fruitspelling_idx",
                opclasses=["text_pattern_ops"],
                include=["catalog_number", "fruit", "is_own_name"],
            ),
            # The catalog order, for a common term's matches: walked until a window is full
            # instead of sorting every match (the planner picks by the term's frequency).
            models.Index(
                fields=["catalog_number", "fruit"],
                name="catalog_spelling_order_idx",
                include=["spelling", "is_own_name"],
            ),
        ]

    def __str__(self):
        return self.spelling


class SearchWord(models.Model):
    """One word of the catalog's folded names: the dictionary a misspelled word is corrected
    against ("did you mean"), as a search engine's term suggester does.

    Derived data, added to by `Fruit.refresh_search_text` and never removed there: a word no
    fruit holds any more is a correction that finds nothing, which the search tries beside the
    others. Its size follows the distinct words of the names (tens of thousands), not the
    number of fruits. PostgreSQL indexes it for trigram nearest-neighbour lookups
    (`catalog_searchword_trgm`, GiST); SQLite reads it whole.
    """

    word = models.TextField(primary_key=True)

    def __str__(self):
        return self.word


def add_spellings(fruits: Iterable[tuple[Fruit, list[str]]]) -> None:
    """Store the spellings of saved fruits that have none stored, from each one's name, other
    names (`(fruit, names)`) and catalog number, and add their words to the dictionary: two
    bulk inserts for them all."""
    rows = [
        FruitSpelling(
            fruit_id=fruit.pk,
            spelling=spelling,
            is_own_name=is_own_name,
            catalog_number=fruit.catalog_number,
        )
        for fruit, names in fruits
        for spelling, is_own_name in spellings_of(fruit.name, fruit.catalog_number, *names)
    ]
    FruitSpelling.objects.bulk_create(rows)
    SearchWord.objects.bulk_create(
        (SearchWord(word=word) for word in dictionary_words([row.spelling for row in rows])),
        ignore_conflicts=True,
    )


class ImportBatch(models.Model):
    """An applied import of fruits: when, who, which file, what it did. Every change it made is
    recorded as made by it, so that it can be undone."""

    created_at = models.DateTimeField(auto_now_add=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    file_name = models.CharField(max_length=255, blank=True, default="")
    created_count = models.PositiveIntegerField(default=0)
    changed_count = models.PositiveIntegerField(default=0)
    undone_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-pk"]
        verbose_name = _("import")
        verbose_name_plural = _("imports")

    def __str__(self):
        return f"Import {self.pk} ({self.file_name or 'no file name'})"


class Deletion(models.Model):
    """When rows the exports show were deleted: a row per deleting statement, written by
    database triggers.

    An export's `Last-Modified` is the newest of its tables' `updated_at` and of these: a
    deletion leaves no row to date it. Triggers (migration 0023, and publications' 0011 for its
    tables) insert one after every DELETE, whoever deletes (the API, the admin, a cascade,
    SQL). Inserts only: deleting transactions never wait for one another here. A migration that
    rebuilds a watched table on SQLite drops its trigger and must install it again
    (`core.db.triggers`); the exports' tests notice a missing one.
    """

    deleted_at = models.DateTimeField(db_index=True)

    def __str__(self):
        return f"a deletion at {self.deleted_at}"


class CatalogNumberMark(models.Model):
    """The highest catalog number ever assigned automatically: one row, never lowered.

    The next automatic number is one more than this and than every number a fruit holds, so
    deleting a fruit never hands its number to another variety. Numbers set explicitly do not
    move it (a typo deleted again uses nothing up). Written only under the assignment lock.
    """

    highest_assigned = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(pk=1), name="catalog_number_mark_single_row"),
        ]

    def __str__(self):
        return f"highest automatic catalog number: {self.highest_assigned}"


class NameKind(models.TextChoices):
    """What kind of name a fruit's other name is."""

    SYNONYM = "synonym", _("Synonym")
    TRADE_NAME = "trade_name", _("Trade name")
    TRANSLATION = "translation", _("Translation")
    HISTORIC = "historic", _("Historic name")
    MISAPPLIED = "misapplied", _("Misapplied name")


NAME_NOTE_MAX = 500
# The kinds of other name that head a fruit shown in their language, first kind first.
HEADING_KINDS = (NameKind.TRANSLATION, NameKind.TRADE_NAME)
# How a page heads each kind of name, in the order it shows them.
NAME_GROUPS = [
    (NameKind.SYNONYM, _("Also known as")),
    (NameKind.TRANSLATION, _("In other languages")),
    (NameKind.TRADE_NAME, _("Sold as")),
    (NameKind.HISTORIC, _("Historic names")),
    (NameKind.MISAPPLIED, _("Misapplied names (used wrongly for this variety)")),
]


class FruitName(AnnouncedDeletes):
    """Another name a fruit is known by (a synonym, translation, trade name... `NameKind`): its
    text, kind, language and a note, in their order."""

    fruit = models.ForeignKey(Fruit, on_delete=models.CASCADE, related_name="names")
    name = models.CharField(max_length=200)
    # Text, not CharField(200): casefolding can lengthen a name ("ß" becomes "ss").
    name_key = models.TextField(editable=False)
    position = models.PositiveIntegerField(default=0)
    kind = models.CharField(max_length=16, choices=NameKind.choices, default=NameKind.SYNONYM)
    language = models.CharField(
        max_length=2, blank=True, default="", help_text=_("ISO 639-1 code, e.g. de; empty if any.")
    )
    note = models.TextField(blank=True, default="", max_length=NAME_NOTE_MAX)

    objects = AnnouncedDeletesQuerySet.as_manager()

    class Meta:
        ordering = ["position", "pk"]
        # What the admin's pages, history messages and permission names call a row, as curators
        # know it.
        verbose_name = _("fruit synonym")
        constraints = [
            models.UniqueConstraint(
                fields=["fruit", "name_key"], name="fruitname_unique_name_key_per_fruit"
            ),
            models.CheckConstraint(condition=~Q(name=""), name="fruitname_name_not_empty"),
            models.CheckConstraint(
                condition=Q(kind__in=NameKind.values), name="fruitname_kind_valid"
            ),
            models.CheckConstraint(
                condition=Q(language="") | Q(language__in=sorted(ISO_639_1)),
                name="fruitname_language_iso_639_1",
            ),
        ]

    def __str__(self):
        return self.name

    def save(self, *args, **kwargs):
        """Keep the uniqueness key in step with the name, then save."""
        self.name_key = name_key(self.name)
        super().save(*args, **kwargs)

    def as_record(self) -> dict:
        """The name as the API writes it: `name`, `kind`, `language`, `note`."""
        return {
            "name": self.name,
            "kind": str(self.kind),
            "language": self.language,
            "note": self.note,
        }


class RelationKind(models.TextChoices):
    """How a fruit relates to another variety."""

    MOTHER = "mother", _("Mother (seed parent)")
    FATHER = "father", _("Father (pollen parent)")
    PARENT = "parent", _("Parent (role unknown)")
    SPORT_OF = "sport_of", _("Sport of")
    SEEDLING_OF = "seedling_of", _("Seedling of")
    CONFUSED_WITH = "confused_with", _("Confused with")


# The kinds through which a variety descends from another: none may loop back to the fruit.
ANCESTRY = frozenset(
    {
        RelationKind.MOTHER,
        RelationKind.FATHER,
        RelationKind.PARENT,
        RelationKind.SPORT_OF,
        RelationKind.SEEDLING_OF,
    }
)
# At most one relation of these kinds per fruit.
SINGLE_KINDS = frozenset({RelationKind.MOTHER, RelationKind.FATHER, RelationKind.SPORT_OF})
# What a relation is, seen from the other variety (`related`).
RELATED_KIND = {
    RelationKind.MOTHER: "child",
    RelationKind.FATHER: "child",
    RelationKind.PARENT: "child",
    RelationKind.SPORT_OF: "sport",
    RelationKind.SEEDLING_OF: "seedling",
    RelationKind.CONFUSED_WITH: "confused_with",
}
RELATION_NOTE_MAX = 500


class FruitRelation(AnnouncedDeletes):
    """What a fruit is to another variety: mother, father, parent, sport, seedling, confusion.

    The other is a fruit of the catalog (`other`, whose name `name` keeps) or a variety known
    by `name` alone. Deleting the other fruit keeps the relation by its name
    (`catalog.services.fruit_delete`).
    """

    fruit = models.ForeignKey(Fruit, on_delete=models.CASCADE, related_name="relations")
    kind = models.CharField(max_length=16, choices=RelationKind.choices)
    other = models.ForeignKey(
        Fruit,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="related_relations",
        help_text=_("The related fruit, when it is in the catalog."),
    )
    name = models.CharField(
        max_length=200, help_text=_("Its name (the fruit's own when it is in the catalog).")
    )
    # The name's `name_key`: a relation given by name finds the fruit of that name by it, once
    # the catalog has one (`catalog.services.relations_link_by_name`).
    name_key = models.TextField(editable=False)
    note = models.TextField(blank=True, default="", max_length=RELATION_NOTE_MAX)
    position = models.PositiveIntegerField(default=0)

    objects = AnnouncedDeletesQuerySet.as_manager()

    class Meta:
        ordering = ["position", "pk"]
        indexes = [
            # The relations still given by name (`other` null), by their key: one probe for each
            # fruit written. Not a partial index: SQLite's planner, without statistics, takes
            # the foreign key's index for `other IS NULL` over a partial one and reads every
            # relation given by name.
            models.Index(fields=["name_key", "other"], name="catalog_relation_by_name_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=RelationKind.values), name="fruitrelation_kind_valid"
            ),
            models.CheckConstraint(condition=~Q(name=""), name="fruitrelation_name_not_empty"),
            models.CheckConstraint(
                condition=~Q(other=F("fruit")), name="fruitrelation_not_to_itself"
            ),
        ]

    def __str__(self):
        return f"{self.get_kind_display()}: {self.name}"

    def save(self, *args, **kwargs):
        """Keep the name's key in step with the name, then save."""
        self.name_key = name_key(self.name)
        super().save(*args, **kwargs)

    def as_record(self) -> dict:
        """The relation as the API reads it back."""
        other = self.other
        return {
            "kind": self.kind,
            "fruit": None
            if other is None
            else {"id": other.pk, "name": other.name, "catalog_number": other.catalog_number},
            "name": other.name if other is not None else self.name,
            "note": self.note,
        }


class FruitImageQuerySet(ThumbnailedImageQuerySet):
    """Query shapes for fruit images."""

    def in_card_order(self):
        """The card image first (the one chosen, else the oldest), then the rest, oldest first."""
        return self.order_by(F("is_card_image").desc(), "pk")


class FruitImage(ThumbnailedImage):
    """An image of a fruit; curators may choose one as the fruit's card image."""

    fruit = models.ForeignKey(Fruit, on_delete=models.CASCADE, related_name="images")
    # At most one per fruit (a partial unique constraint); none chosen: the oldest is the card's.
    # Set through `catalog.services.fruit_set_card_image`.
    is_card_image = models.BooleanField(default=False, editable=False)

    objects = FruitImageQuerySet.as_manager()

    backfill_key = "fruit_images"
    parent_field = "fruit"

    class Meta:
        ordering = ["pk"]
        indexes = [
            # `in_card_order()` of one fruit's images: the card image is the first entry.
            models.Index(
                fields=["fruit", "-is_card_image", "id"], name="catalog_fruitimage_card_idx"
            ),
            # Refusing the same bytes twice for one fruit is one probe (`duplicate_id`).
            models.Index(fields=["fruit", "sha256"], name="catalog_fruitimage_sha256_idx"),
            models.Index(fields=["updated_at"], name="catalog_fruitimage_updated_idx"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["fruit"],
                condition=Q(is_card_image=True),
                name="fruitimage_one_card_image_per_fruit",
            ),
            *rights_constraints("fruitimage"),
        ]

    def __str__(self):
        # Also read after a delete (the admin's history), when the id is gone.
        if self.pk is None:
            return f"Image of {self.fruit.name}"
        return f"Image {self.pk} of {self.fruit.name}"

    def get_absolute_url(self):
        return reverse("fruit-image-detail", kwargs={"id": self.fruit_id, "imageId": self.pk})

    def get_thumbnail_path(self):
        return reverse("fruit-image-thumbnail", kwargs={"id": self.fruit_id, "imageId": self.pk})


class KeptFruitImage(ThumbnailedImage):
    """An image of a deleted fruit, kept whole (bytes, thumbnail, details, card choice) so that
    restoring the fruit brings it back under its own id, until `manage.py purge_deleted`
    removes it.

    A table of its own rather than a flag on `FruitImage`: nothing that reads the fruits'
    images (their lists and byte views, the card grid, the exports, the admin, the thumbnail
    backfill) can come upon it. Rows are moved in and out inside the database
    (`catalog.services.fruit_delete`, `fruit_images_restore`), bytes never read into Python;
    never saved through the ORM, never served.
    """

    id = models.BigIntegerField(primary_key=True, help_text="The image's own id.")
    fruit_id = models.BigIntegerField(db_index=True, help_text="The deleted fruit's id.")
    is_card_image = models.BooleanField(default=False)
    kept_at = models.DateTimeField(db_index=True)

    objects = models.Manager()

    class Meta:
        ordering = ["pk"]
        # Nobody edits one: restores and purges move them, no admin shows them.
        default_permissions = ()

    def __str__(self):
        return f"Image {self.pk} of deleted fruit {self.fruit_id}"
