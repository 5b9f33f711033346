"""Serializer fields stricter than DRF's where the API promises more."""

from django.db import models
from rest_framework import serializers
from rest_framework.fields import empty

from core.translated import localized


class TextField(serializers.CharField):
    """Text that must be sent as a JSON string: DRF's CharField would store the number 0 as "0"."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class LocalizedTextField(TextField):
    """Text stored in English with a column per other language beside it (`core.translated`):
    read in the request's language where that text is written, else in English; written, always
    the English text (the other languages have fields of their own, `name_de`)."""

    def get_attribute(self, instance):
        return localized(instance, self.source)


class TextModelSerializer(serializers.ModelSerializer):
    """A model serializer whose text columns take JSON strings only (`TextField`)."""

    serializer_field_mapping = {
        **serializers.ModelSerializer.serializer_field_mapping,
        models.CharField: TextField,
        models.TextField: TextField,
    }


class WholeEntrySerializer(serializers.Serializer):
    """An entry of a list that a write replaces whole (a characteristic's states, a fruit's
    characteristics): checked as a whole in a PATCH too.

    DRF hands a partial update down to nested serializers, whose fields then skip what is
    missing, required or defaulted; an entry would arrive without its `value`. Validated as a
    serializer of its own, the entry keeps its required fields and defaults in every write.
    """

    def run_validation(self, data=empty):
        if self.parent is None or not getattr(self.root, "partial", False):
            return super().run_validation(data)
        whole = type(self)(data=data, context=self.context)
        whole.is_valid(raise_exception=True)
        return whole.validated_data
