"""`FruitSerializer` builds its representation directly: it must be DRF's own, field for field."""

import pytest
from rest_framework import serializers
from rest_framework.test import APIRequestFactory

from catalog.models import Fruit
from catalog.serializers import FruitDetailSerializer, FruitSerializer
from catalog.tests.factories import varied_fruits

pytestmark = pytest.mark.django_db


def drf_representation(serializer, fruit) -> dict:
    """What DRF's generic loop over the declared fields gives."""
    return serializers.ModelSerializer.to_representation(serializer, fruit)


@pytest.mark.parametrize("time_zone", ["UTC", "Europe/Vienna"])
@pytest.mark.parametrize("serializer_class", [FruitSerializer, FruitDetailSerializer])
def test_representation_is_drfs_field_by_field(settings, serializer_class, time_zone):
    settings.TIME_ZONE = time_zone
    varied_fruits()
    request = APIRequestFactory().get("/api/v1/fruits")
    fruits = Fruit.objects.with_list_data().with_card_choice().with_images().in_catalog_order()
    for fruit in fruits:
        serializer = serializer_class(context={"request": request})
        fast, generic = serializer.to_representation(fruit), drf_representation(serializer, fruit)
        assert list(fast) == list(generic) == serializer_class.Meta.fields
        assert fast == generic
        assert [type(value) for value in fast.values()] == [type(v) for v in generic.values()]
    assert any(fast["synonyms"] for fast in map(serializer.to_representation, fruits))
