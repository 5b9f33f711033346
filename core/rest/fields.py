"""Serializer fields stricter than DRF's where the API promises more."""

from django.db import models
from rest_framework import serializers


class TextField(serializers.CharField):
    """Text that must be sent as a JSON string: DRF's CharField would store the number 0 as "0"."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class TextModelSerializer(serializers.ModelSerializer):
    """A model serializer whose text columns take JSON strings only (`TextField`)."""

    serializer_field_mapping = {
        **serializers.ModelSerializer.serializer_field_mapping,
        models.CharField: TextField,
        models.TextField: TextField,
    }
