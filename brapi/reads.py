"""What each BrAPI call reads, and its filters: a page's rows in a fixed number of queries,
through the apps' own query shapes, never a byte column.

Filters take lists (a GET's parameter, repeated or not; a search's array). A value that cannot
match (an id or catalog number that is no number, a crop or genus the catalog does not have)
matches nothing: BrAPI ids and names are strings, and no such string is a bad request.
"""

from django.db.models import Exists, F, OuterRef, Q
from django.db.models.functions import JSONArray

from brapi.mapping import NOT_NAMES, parse_image_name
from catalog.models import (
    ANCESTRY,
    CATALOG_NUMBER_MAX,
    FRUIT_TYPE_TAXA,
    Fruit,
    FruitImage,
    FruitName,
    FruitRelation,
    FruitSpelling,
    FruitType,
)
from core.db.expressions import ListSubquery
from core.db.ids import parse_id
from core.db.search import fold, name_key
from identification.models import Characteristic, FruitCharacteristicState
from publications.models import CITED_FIELDS

FRUIT_FIELDS = ("id", "name", "type", "catalog_number")
# What an image's BrAPI record reads of it (`brapi.mapping.image`): metadata, never bytes.
IMAGE_FIELDS = (
    "id",
    "fruit_id",
    "sha256",
    "thumbnail_sha256",
    "content_type",
    "size",
    "width",
    "height",
    "alt_text",
    "role",
    "creator",
    "source",
    "license",
    "fruit__name",
)
NOTHING = Q(pk__in=[])


def ids(values) -> list[int]:
    return [pk for pk in map(parse_id, values) if pk is not None]


def with_ancestry(fruits):
    """Annotate `ancestry`: the fruit's parentage relations (not its confusions) in their order,
    each `[kind, name, other fruit's id or None, its name]`, from the row's own query (a
    correlated subquery: no prefetch, whose per-row cost a page of 1,000 would feel)."""
    relations = (
        FruitRelation.objects.filter(fruit=OuterRef("pk"), kind__in=ANCESTRY)
        .order_by("position", "pk")
        .values(entry=JSONArray("kind", "name", "other_id", "other__name"))
    )
    return fruits.annotate(ancestry=ListSubquery(relations))


def with_descendants(fruits):
    """Annotate `descendants`: the relations that name the fruit as a parent, sport or
    seedling's origin, each `[kind, descendant's id, its name]`, in catalog order."""
    relations = (
        FruitRelation.objects.filter(other=OuterRef("pk"), kind__in=ANCESTRY)
        .order_by(F("fruit__catalog_number").asc(nulls_last=True), "fruit_id", "pk")
        .values(entry=JSONArray("kind", "fruit_id", "fruit__name"))
    )
    return fruits.annotate(descendants=ListSubquery(relations))


def germplasm():
    """Fruits as germplasm and MCPD read them: names (`name_list`, rows of `NAME_FIELDS`) and
    parentage in the row's own query, each fruit a dict (`values()`: a page of 1,000 builds no
    model instances)."""
    fruits = with_ancestry(Fruit.objects.with_names())
    return fruits.values(*FRUIT_FIELDS, "name_list", "ancestry")


def pedigree(*, progeny: bool):
    """Fruits as pedigree nodes read them, as dicts: parentage, and the descendants when asked
    for."""
    fruits = with_ancestry(Fruit.objects.all())
    if progeny:
        return with_descendants(fruits).values(*FRUIT_FIELDS, "ancestry", "descendants")
    return fruits.values(*FRUIT_FIELDS, "ancestry")


def types_of_taxa(*, genus=(), species=(), binomial=()) -> set[str] | None:
    """The fruit types whose taxon has one of these genera, species epithets or binomial names
    (case-insensitive), from the one table of the types' taxa; None when none is asked for."""
    asked = [
        (part, {v.casefold() for v in values})
        for part, values in (("genus", genus), ("species", species), ("name", binomial))
        if values
    ]
    if not asked:
        return None
    return {
        fruit_type
        for fruit_type, taxon in FRUIT_TYPE_TAXA.items()
        if taxon is not None
        and all(getattr(taxon, part).casefold() in wanted for part, wanted in asked)
    }


def crop_types(names) -> list[str]:
    """The fruit types these common crop names name (`apple`, case-insensitive)."""
    return [name.casefold() for name in names if name.casefold() in FruitType.values]


def filter_germplasm(fruits, filters: dict[str, list[str]]):
    """Fruits matching BrAPI's germplasm filters (each a list: any value matches), in catalog
    order. `germplasmName` is the name exactly (its index); `synonym` another name of the fruit,
    case-insensitively (the spellings' index finds the candidates, the names' key confirms)."""
    condition = Q()
    if "germplasmDbId" in filters:
        condition &= Q(pk__in=ids(filters["germplasmDbId"]))
    if "germplasmName" in filters:
        condition &= Q(name__in=filters["germplasmName"])
    if "accessionNumber" in filters:
        given = [v for v in filters["accessionNumber"] if len(v) <= 10]  # CATALOG_NUMBER_MAX's
        numbers = [int(v) for v in given if v.isdecimal() and v.isascii()]
        condition &= Q(catalog_number__in=[n for n in numbers if 1 <= n <= CATALOG_NUMBER_MAX])
    if "commonCropName" in filters:
        condition &= Q(type__in=crop_types(filters["commonCropName"]))
    types = types_of_taxa(
        genus=filters.get("genus", ()),
        species=filters.get("species", ()),
        binomial=filters.get("binomialName", ()),
    )
    if types is not None:
        condition &= Q(type__in=sorted(types))
    if "synonym" in filters:
        synonyms = filters["synonym"]
        candidates = FruitSpelling.objects.filter(
            spelling__in={fold(name) for name in synonyms}, is_own_name=False
        ).values("fruit_id")
        named = FruitName.objects.filter(
            fruit=OuterRef("pk"), name_key__in={name_key(name) for name in synonyms}
        ).exclude(kind__in=NOT_NAMES)
        condition &= Q(pk__in=candidates) & Q(Exists(named))
    return fruits.filter(condition).in_catalog_order()


def attributes(filters: dict[str, list[str]]):
    """Characteristics with their states, in question order. Trait, method and scale share the
    characteristic's id, so their id filters are the attribute's."""
    condition = Q()
    for name in ("attributeDbId", "traitDbId", "methodDbId", "scaleDbId"):
        if name in filters:
            condition &= Q(pk__in=ids(filters[name]))
    if "attributeName" in filters:
        condition &= Q(name__in=filters["attributeName"])
    if "commonCropName" in filters:
        types = NOTHING
        for crop in crop_types(filters["commonCropName"]):
            types |= Q(pk__in=Characteristic.objects.of_type(crop).values("pk"))
        condition &= types
    if "germplasmDbId" in filters:
        condition &= Q(fruit_values__fruit_id__in=ids(filters["germplasmDbId"]))
    found = Characteristic.objects.filter(condition)
    if "germplasmDbId" in filters:
        found = found.distinct()
    return found.with_states().in_question_order()


def attribute_values(filters: dict[str, list[str]]):
    """The states fruits show, each with its characteristic, fruit and source (the cited fields
    only: a publication row holds its cover's bytes), oldest first."""
    condition = Q()
    if "attributeValueDbId" in filters:
        condition &= Q(pk__in=ids(filters["attributeValueDbId"]))
    if "attributeDbId" in filters:
        condition &= Q(fruit_characteristic__characteristic_id__in=ids(filters["attributeDbId"]))
    if "attributeName" in filters:
        condition &= Q(fruit_characteristic__characteristic__name__in=filters["attributeName"])
    if "germplasmDbId" in filters:
        condition &= Q(fruit_characteristic__fruit_id__in=ids(filters["germplasmDbId"]))
    if "commonCropName" in filters:
        condition &= Q(fruit_characteristic__fruit__type__in=crop_types(filters["commonCropName"]))
    return (
        FruitCharacteristicState.objects.filter(condition)
        .select_related(
            "state",
            "fruit_characteristic__characteristic",
            "fruit_characteristic__fruit",
            "fruit_characteristic__source_publication",
        )
        .only(
            "id",
            "state__value",
            "state__label",
            "fruit_characteristic__fruit_id",
            "fruit_characteristic__pages",
            "fruit_characteristic__note",
            "fruit_characteristic__characteristic__name",
            "fruit_characteristic__fruit__name",
            *(f"fruit_characteristic__source_publication__{f}" for f in CITED_FIELDS),
        )
        .order_by("pk")
    )


def images(filters: dict[str, list[str]]):
    """The fruits' images (never a deleted fruit's kept ones: they are another table), metadata
    only, oldest first."""
    condition = Q()
    if "imageDbId" in filters:
        condition &= Q(pk__in=ids(filters["imageDbId"]))
    if "imageName" in filters:
        names = NOTHING
        for parsed in filter(None, map(parse_image_name, filters["imageName"])):
            names |= Q(fruit__name=parsed[0], role=parsed[1])
        condition &= names
    if "commonCropName" in filters:
        condition &= Q(fruit__type__in=crop_types(filters["commonCropName"]))
    return (
        FruitImage.objects.without_blobs()
        .filter(condition)
        .select_related("fruit")
        .only(*IMAGE_FIELDS)
        .order_by("pk")
    )
