"""Stored bytes for the byte-read tests: one path of each kind, or one thumbnail's path."""

from catalog.models import FruitImage
from catalog.tests.factories import FruitFactory
from core.testing.media import make_object_png, make_pdf_bytes
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
