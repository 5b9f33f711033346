"""The demo varieties' characteristics (`load_demo_data`): real descriptions, `demo_values`."""

from catalog.models import Fruit
from identification.demo_values import DEMO_VALUES
from identification.models import Characteristic, FruitCharacteristic
from identification.services import fruit_set_characteristics
from identification.validators import clean_fruit_characteristics


def load_demo_characteristics() -> int:
    """Describe the demo fruits that have no characteristics yet; return how many were."""
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
    count = 0
    for fruit in Fruit.objects.filter(name__in=list(DEMO_VALUES)).order_by("pk"):
        if fruit.pk in described:
            continue
        entries = []
        for code, values in DEMO_VALUES[fruit.name].items():
            kept = [value for value in values if value in known.get((code, fruit.type), ())]
            if kept:
                entries.append({"code": code, "values": kept})
        if not entries:
            continue
        records = clean_fruit_characteristics(entries, fruit_type=fruit.type)
        fruit_set_characteristics(fruit=fruit, records=records)
        count += 1
    return count
