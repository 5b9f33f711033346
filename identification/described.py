"""A fruit's characteristics as pages and the API show them, read with the fruit itself.

`with_described` annotates a fruit queryset with the fruit's values as flat entries (one per
state shown), in the characteristics' question order: no query of their own, whatever the
number of fruits. `described_groups` groups them again by characteristic, its names and labels
in the active language.
"""

from django.db.models import OuterRef
from django.db.models.functions import JSONArray

from core.db.expressions import ListSubquery
from core.translated import in_language
from identification.models import FruitCharacteristicState

# One entry per state a fruit shows, in this order (`described_groups` reads them so).
DESCRIBED_ENTRY = (
    "fruit_characteristic__characteristic_id",
    "fruit_characteristic__characteristic__code",
    "fruit_characteristic__characteristic__name",
    "fruit_characteristic__characteristic__position",
    "state__value",
    "state__label",
    "fruit_characteristic__source_publication_id",
    "fruit_characteristic__source_publication__title",
    "fruit_characteristic__pages",
    "fruit_characteristic__note",
    "fruit_characteristic__characteristic__name_de",
    "state__label_de",
)


def with_described(fruits):
    """Annotate `described`: the fruits' values as flat entries (`DESCRIBED_ENTRY`), in
    question and value order, from the fruits' own query."""
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
    """`described` (from `with_described`) as one entry per characteristic, in question order:
    `id`, `code`, `name`, `position`, `values`, `labels`, `source` (`{"id", "title"}` or None),
    `pages` and `note`; the name and labels in the active language (`core.translated`)."""
    groups: dict[int, dict] = {}
    for entry in fruit.described:
        (char_id, code, name, position, value, label, source_id, title, pages, note) = entry[:10]
        name_de, label_de = entry[10:]  # the German beside them
        group = groups.setdefault(
            char_id,
            {
                "id": char_id,
                "code": code,
                "name": in_language(name, de=name_de),
                "position": position,
                "values": [],
                "labels": [],
                "source": None if source_id is None else {"id": source_id, "title": title},
                "pages": pages,
                "note": note,
            },
        )
        group["values"].append(value)
        group["labels"].append(in_language(label, de=label_de))
    return list(groups.values())


def characteristic_record(group: dict) -> dict:
    """A fruit's value (from `described_groups`) as the API's fruit detail reads it."""
    source = group["source"]
    return {
        "code": group["code"],
        "name": group["name"],
        "values": group["values"],
        "labels": group["labels"],
        "source": None
        if source is None
        else {"publication_id": source["id"], "title": source["title"], "pages": group["pages"]},
        "note": group["note"],
    }
