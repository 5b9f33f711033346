"""Fixtures of the cross-app tests (the project's own are in the root conftest.py)."""

import pytest

from fruitcatalog.tests import stored


@pytest.fixture
def byte_paths(db):
    """One path of each kind of stored bytes, each with bytes of its own."""
    return stored.byte_paths()
