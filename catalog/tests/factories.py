"""Small factories of catalog rows for the tests of every app."""

import factory

from catalog.models import Fruit, FruitType
from catalog.services import fruit_create


class FruitFactory(factory.Factory):
    """Fruits created through the same service as the API (synonyms, search column)."""

    class Meta:
        model = Fruit

    name = factory.Sequence(lambda n: f"Fruit {n}")
    type = FruitType.APPLE

    @classmethod
    def _create(cls, model_class, *args, synonyms=(), **kwargs):
        return fruit_create(synonym_names=list(synonyms), **kwargs)
