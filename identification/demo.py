"""The demo varieties' characteristics (`load_demo_data`): real descriptions, `demo_values`."""

from catalog.models import Fruit
from identification.demo_values import DEMO_VALUES
from identification.models import Characteristic, FruitCharacteristic
from identification.services import fruit_set_characteristics
from identification.validators import clean_fruit_characteristics
from publications.demo import DEMO_PUBLICATIONS
from publications.models import PublicationFruit


def demo_sources(fruit_ids) -> dict[int, PublicationFruit]:
    """The demo publication describing each of these fruits (the oldest where several do), by
    fruit id: its values cite it, on the link's pages."""
    links = (
        PublicationFruit.objects.without_blobs()
        .filter(fruit_id__in=fruit_ids, publication__title__in=[p.title for p in DEMO_PUBLICATIONS])
        .only("fruit_id", "publication_id", "pages")
        .order_by("publication__year", "pk")
    )
    sources: dict[int, PublicationFruit] = {}
    for link in links:
        sources.setdefault(link.fruit_id, link)
    return sources


def load_demo_characteristics() -> int:
    """Describe the demo fruits that have no characteristics yet; return how many were.

    The values of a fruit a demo publication describes cite it, with the pages it describes the
    fruit on; a source must link the fruit, which the publications' demo has done by now.
    """
    described = set(
        FruitCharacteristic.objects.filter(fruit__name__in=list(DEMO_VALUES))
        .values_list("fruit_id", flat=True)
        .distinct()
    )
    # What curators changed since (a characteristic deleted or renamed, a state removed) is
    # left out, not an error: the states each type's characteristics still have, by code.
    known: dict[tuple[str, str], set[int]] = {}
    for char in Characteristic.objects.only("code", "fruit_types").prefetch_related("states"):
        for fruit_type in char.type_list:
            known[(char.code, fruit_type)] = {state.value for state in char.states.all()}
    fruits = [
        fruit
        for fruit in Fruit.objects.filter(name__in=list(DEMO_VALUES)).order_by("pk")
        if fruit.pk not in described
    ]
    sources = demo_sources([fruit.pk for fruit in fruits])
    count = 0
    for fruit in fruits:
        source = sources.get(fruit.pk)
        cited = (
            {"source_publication": source.publication_id, "pages": source.pages} if source else {}
        )
        entries = []
        for code, values in DEMO_VALUES[fruit.name].items():
            kept = [value for value in values if value in known.get((code, fruit.type), ())]
            if kept:
                entries.append({"code": code, "values": kept, **cited})
        if not entries:
            continue
        records = clean_fruit_characteristics(entries, fruit_type=fruit.type)
        fruit_set_characteristics(fruit=fruit, records=records)
        count += 1
    return count
