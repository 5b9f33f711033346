"""The demo varieties' characteristics (`load_demo_data`): real descriptions, `demo_values`."""

from catalog.models import Fruit
from identification.demo_values import DEMO_VALUES
from identification.models import FruitCharacteristic
from identification.services import fruit_set_characteristics
from identification.validators import clean_fruit_characteristics


def load_demo_characteristics() -> int:
    """Describe the demo fruits that have no characteristics yet; return how many were."""
    described = set(FruitCharacteristic.objects.values_list("fruit_id", flat=True).distinct())
    count = 0
    for fruit in Fruit.objects.filter(name__in=list(DEMO_VALUES)).order_by("pk"):
        if fruit.pk in described:
            continue
        entries = [
            {"code": code, "values": values} for code, values in DEMO_VALUES[fruit.name].items()
        ]
        records = clean_fruit_characteristics(entries, fruit_type=fruit.type)
        fruit_set_characteristics(fruit=fruit, records=records)
        count += 1
    return count
