"""Fixtures of the publications tests."""

import pytest

from core.testing.media import make_object_png
from publications.models import PublicationFruit, PublicationFruitImage
from publications.services import publication_fruit_set_description, publication_link_fruit
from publications.tests.factories import PublicationFactory


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
            publication_fruit_set_description(link=created, data=pdf)
        return created

    return link


@pytest.fixture
def add_publication_image(db):
    """Store an image of a linked fruit through the save hook: `add_publication_image(link)`."""

    def add(link, data: bytes | None = None) -> PublicationFruitImage:
        return PublicationFruitImage.objects.create(link=link, data=data or make_object_png())

    return add
