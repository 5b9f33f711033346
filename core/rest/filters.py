"""Query-parameter filters shared by the API's lists."""

import django_filters
from django import forms
from django.db.models import F
from drf_spectacular.utils import extend_schema_field

from core.db.ids import ID_MAX


class IntegerFilter(django_filters.NumberFilter):
    """A whole-number filter (django-filter's NumberFilter would accept decimals).

    Its bounds (`min_value`, `max_value`) are in the OpenAPI schema too, so that clients know a
    value outside them is a 400.
    """

    field_class = forms.IntegerField

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        bounds = {"minimum": kwargs.get("min_value"), "maximum": kwargs.get("max_value")}
        bounds = {key: value for key, value in bounds.items() if value is not None}
        schema = {"type": "integer", **bounds}
        extend_schema_field(schema)(self)


class IdFilter(IntegerFilter):
    """A filter on the id of a related row: a whole number from 1 to `ID_MAX`."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", ID_MAX)
        super().__init__(*args, **kwargs)


class NullsLastOrderingFilter(django_filters.OrderingFilter):
    """Ordering that keeps nulls of `nullable_fields` last either way and breaks ties by id."""

    nullable_fields: frozenset[str] = frozenset()

    def filter(self, qs, value):
        value = [param for param in value or [] if param]  # `ordering=,` gives empty terms
        if not value:
            return qs
        terms = []
        for param in value:
            field = self.param_map[param.lstrip("-")]
            # NULLS LAST only where nulls exist: elsewhere it would keep PostgreSQL from
            # walking an index backwards for a descending sort.
            nulls_last = True if field in self.nullable_fields else None
            expression = F(field)
            terms.append(
                expression.desc(nulls_last=nulls_last)
                if param.startswith("-")
                else expression.asc(nulls_last=nulls_last)
            )
        return qs.order_by(*terms, "pk")
