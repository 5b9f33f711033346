"""A fruit's characteristics as pages and the API show them: labels in value order, source."""

from django.db.models import OuterRef, Prefetch
from django.db.models.functions import JSONArray

from fruitcatalog.db.expressions import ListSubquery
from identification.models import FruitCharacteristic, FruitCharacteristicState


def described_rows():
    """Fruits' values in question order, each with its states (`shown`: value and label pairs in
    value order, from the row's own query) and its source's title (no cover bytes)."""
    shown = (
        FruitCharacteristicState.objects.filter(fruit_characteristic=OuterRef("pk"))
        .order_by("state__value")
        .values(entry=JSONArray("state__value", "state__label"))
    )
    return (
        FruitCharacteristic.objects.select_related("characteristic", "source_publication")
        .only(
            "fruit_id",
            "pages",
            "note",
            "characteristic__code",
            "characteristic__name",
            "characteristic__position",
            "characteristic__scale",
            "source_publication__title",
        )
        .annotate(shown=ListSubquery(shown))
        .order_by("characteristic__position", "characteristic_id")
    )


# A fruit's values flattened, one entry per state shown: what the fruit's page reads with the
# fruit itself (`with_described`), grouped again by `described_groups`.
DESCRIBED_ENTRY = (
    "fruit_characteristic__characteristic_id",
    "fruit_characteristic__characteristic__name",
    "state__label",
    "fruit_characteristic__source_publication_id",
    "fruit_characteristic__source_publication__title",
    "fruit_characteristic__pages",
    "fruit_characteristic__note",
)


def with_described(fruits):
    """Annotate `described`: the fruit's values as flat entries, in question and value order,
    from the fruit's own query."""
    entries = (
        FruitCharacteristicState.objects.filter(fruit_characteristic__fruit=OuterRef("pk"))
        .order_by(
            "fruit_characteristic__characteristic__position",
            "fruit_characteristic__characteristic_id",
            "state__value",
        )
        .values(entry=JSONArray(*DESCRIBED_ENTRY))
    )
    return fruits.annotate(described=ListSubquery(entries))


def described_groups(fruit) -> list[dict]:
    """`described` (from `with_described`) as one entry per characteristic: name, labels,
    source (publication id and title, pages) and note."""
    groups: dict[int, dict] = {}
    for char_id, name, label, source_id, title, pages, note in fruit.described:
        group = groups.setdefault(
            char_id,
            {
                "name": name,
                "labels": [],
                "source": None if source_id is None else {"id": source_id, "title": title},
                "pages": pages,
                "note": note,
            },
        )
        group["labels"].append(label)
    return list(groups.values())


def described_prefetch() -> Prefetch:
    """A fruit's values as `characteristic_rows`, for a fruit queryset."""
    return Prefetch("characteristics", queryset=described_rows(), to_attr="characteristic_rows")


def characteristic_record(row: FruitCharacteristic) -> dict:
    """A fruit's value as the API's fruit detail reads it."""
    publication = row.source_publication
    return {
        "code": row.characteristic.code,
        "name": row.characteristic.name,
        "values": [value for value, _ in row.shown],
        "labels": [label for _, label in row.shown],
        "source": None
        if publication is None
        else {"publication_id": publication.pk, "title": publication.title, "pages": row.pages},
        "note": row.note,
    }
