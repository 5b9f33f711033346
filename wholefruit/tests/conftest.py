"""The publications' fixtures, for the pages that show a fruit with what describes it."""

from publications.tests.conftest import (  # noqa: F401
    add_publication_image,
    link_fruit,
    publication_factory,
)
