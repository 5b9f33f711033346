"""The demo varieties' characteristics (`load_demo_data`): real descriptions, `demo_values`."""

from catalog.models import Fruit
from identification.demo_values import DEMO_VALUES
from identification.models import Characteristic, FruitCharacteristic
from identification.services import fruit_set_characteristics
from identification.validators import clean_fruit_characteristics


def load_demo_characteristics() -> int:
    """Describe the demo fruits that have no characteristics yet; return how many were."""
    described = set(FruitCharacteristic.objects.values_list("fruit_id", flat=True).distinct())
    # Characteristics a curator deleted or renamed are left out, not an error.
    known = {
        (char.code, fruit_type)
        for char in Characteristic.objects.only("code", "fruit_types")
        for fruit_type in char.type_list
    }
    count = 0
    for fruit in Fruit.objects.filter(name__in=list(DEMO_VALUES)).order_by("pk"):
        if fruit.pk in described:
            continue
        entries = [
            {"code": code, "values": values}
            for code, values in DEMO_VALUES[fruit.name].items()
            if (code, fruit.type) in known
        ]
        if not entries:
            continue
        records = clean_fruit_characteristics(entries, fruit_type=fruit.type)
        fruit_set_characteristics(fruit=fruit, records=records)
        count += 1
    return count
