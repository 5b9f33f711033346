"""Fixtures of the publications tests: small factories."""

import factory
import pytest

from publications.models import Publication, PublicationFruit, PublicationFruitImage
from publications.services import publication_link_fruit


class PublicationFactory(factory.django.DjangoModelFactory):
    """Publications saved through the model's save hook (search column, cover metadata)."""

    class Meta:
        model = Publication

    title = factory.Sequence(lambda n: f"Publication {n}")


@pytest.fixture
def publication_factory(db):
    """Create publications: `publication_factory(title=..., year=..., cover_data=...)`."""
    return PublicationFactory.create


@pytest.fixture
def link_fruit(db):
    """Link a fruit to a publication, optionally with a PDF: `link_fruit(publication, fruit)`."""

    def link(publication, fruit, pdf: bytes | None = None) -> PublicationFruit:
        created, _ = publication_link_fruit(publication=publication, fruit=fruit)
        if pdf is not None:
            created.set_description(pdf)
            created.save(update_fields=["description_data"])
        return created

    return link


@pytest.fixture
def add_publication_image(db):
    """Store an image of a linked fruit through the save hook: `add_publication_image(link)`."""
    from conftest import make_object_png

    def add(link, data: bytes | None = None) -> PublicationFruitImage:
        return PublicationFruitImage.objects.create(link=link, data=data or make_object_png())

    return add
