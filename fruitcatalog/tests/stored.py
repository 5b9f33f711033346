"""Stored rows for the read tests: one byte path of each kind, a thumbnail's path, list rows."""

from catalog.models import FruitImage, FruitType
from catalog.services import fruit_set_card_image
from catalog.tests.factories import FruitFactory
from fruitcatalog.blobs.tests.media import make_object_png, make_pdf_bytes
from publications.models import PublicationFruitImage
from publications.services import publication_fruit_set_description, publication_link_fruit
from publications.tests.factories import PublicationFactory


def byte_paths() -> list[str]:
    """One path of each kind of stored bytes, each with bytes of its own."""
    fruit = FruitFactory()
    image = FruitImage.objects.create(fruit=fruit, data=make_object_png(size=(120, 100)))
    publication = PublicationFactory(cover_data=make_object_png(size=(130, 100)))
    link, _ = publication_link_fruit(publication=publication, fruit=fruit)
    publication_fruit_set_description(link=link, data=make_pdf_bytes())
    fruit_image = PublicationFruitImage.objects.create(
        link=link, data=make_object_png(size=(140, 100), box=(10, 10, 99, 69))
    )
    pub = f"/api/v1/publications/{publication.pk}"
    return [
        f"/api/v1/fruits/{fruit.pk}/images/{image.pk}",
        f"/api/v1/fruits/{fruit.pk}/images/{image.pk}/thumbnail",
        f"{pub}/cover",
        f"{pub}/fruits/{fruit.pk}/description",
        f"{pub}/fruit-images/{fruit_image.pk}",
        f"{pub}/fruit-images/{fruit_image.pk}/thumbnail",
    ]


def stored_thumbnail() -> str:
    """The thumbnail path of a new fruit's one image."""
    fruit = FruitFactory()
    image = FruitImage.objects.create(fruit=fruit, data=make_object_png())
    return f"/api/v1/fruits/{fruit.pk}/images/{image.pk}/thumbnail"


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
    unthumbnailed = FruitFactory(catalog_number=None, name="Ohne Nummer", type=FruitType.PLUM)
    image = FruitImage.objects.create(fruit=unthumbnailed, data=make_object_png())
    FruitImage.objects.filter(pk=image.pk).update(thumbnail_data=None, thumbnail_sha256="")
    bare = FruitFactory(catalog_number=1, name="Bare", synonyms=["Einzig"])
    return [bare, chosen, oldest, unthumbnailed]
