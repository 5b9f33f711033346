"""Fixtures of the identification tests."""

import pytest

from identification.tests.factories import make_characteristic


@pytest.fixture
def characteristic_factory(db):
    return make_characteristic
