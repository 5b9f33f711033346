"""Small factories of catalog rows for the tests of every app."""

import factory

from catalog.models import Fruit, FruitImage, FruitType
from catalog.services import fruit_create, fruit_set_card_image
from catalog.validators import clean_names
from core.testing.media import make_object_png


class FruitFactory(factory.Factory):
    """Fruits created through the same service as the API (synonyms, search column)."""

    class Meta:
        model = Fruit

    name = factory.Sequence(lambda n: f"Fruit {n}")
    type = FruitType.APPLE

    @classmethod
    def _create(cls, model_class, *args, synonyms=(), names=None, **kwargs):
        """`synonyms`: plain names; `names`: records (`{"name": ..., "kind": ...}`)."""
        records = names if names is not None else [{"name": name} for name in synonyms]
        return fruit_create(names=clean_names(records, fruit_name=kwargs["name"]), **kwargs)


def varied_fruits() -> list:
    """Fruits of every shape a list row can take, in catalog order.

    Numbered and not, with and without synonyms (stored out of alphabetical order), a unicode
    name, a card image chosen among two, the oldest image as the card, an image whose thumbnail
    was never made (its endpoint serves the image), and none.
    """
    chosen = FruitFactory(catalog_number=3, name="Schöner aus Boskoop", synonyms=["Zeta", "Alpha"])
    FruitImage.objects.create(fruit=chosen, data=make_object_png(size=(90, 60)))
    card = FruitImage.objects.create(fruit=chosen, data=make_object_png(size=(60, 90)))
    fruit_set_card_image(fruit=chosen, image_id=card.pk)
    oldest = FruitFactory(catalog_number=7, type=FruitType.PEAR)
    FruitImage.objects.create(fruit=oldest, data=make_object_png())
    unthumbnailed = FruitFactory(name="Ohne Nummer", type=FruitType.PLUM)
    Fruit.objects.filter(pk=unthumbnailed.pk).update(catalog_number=None)  # as imported rows
    image = FruitImage.objects.create(fruit=unthumbnailed, data=make_object_png())
    FruitImage.objects.filter(pk=image.pk).update(thumbnail_data=None, thumbnail_sha256="")
    bare = FruitFactory(catalog_number=1, name="Bare", synonyms=["Einzig"])
    return [bare, chosen, oldest, unthumbnailed]
