"""Query parameters of the fruit list."""

import django_filters
from django import forms
from django.db.models import F

from catalog.models import CATALOG_NUMBER_MAX, Fruit, FruitType


class IntegerFilter(django_filters.NumberFilter):
    """A whole-number filter (django-filter's NumberFilter would accept decimals)."""

    field_class = forms.IntegerField


class NullsLastOrderingFilter(django_filters.OrderingFilter):
    """Ordering that keeps null catalog numbers last either way and breaks ties by id."""

    nullable_fields = {"catalog_number"}

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


class FruitFilter(django_filters.FilterSet):
    """`type` (repeatable), `search`, `catalog_number`, `ordering`."""

    type = django_filters.MultipleChoiceFilter(
        choices=FruitType.choices, help_text="Repeat the parameter to match any of several types."
    )
    search = django_filters.CharFilter(
        method="filter_search",
        help_text="Substring of the name, a synonym or the catalog number; any case or accents.",
    )
    catalog_number = IntegerFilter(
        min_value=1, max_value=CATALOG_NUMBER_MAX, help_text="Exact catalog number."
    )
    ordering = NullsLastOrderingFilter(
        fields=["catalog_number", "name", "created_at", "updated_at"],
        help_text="Sort key, `-` for descending. Default: catalog number (nulls last), then id.",
    )

    class Meta:
        model = Fruit
        fields = ["type", "search", "catalog_number"]

    def filter_search(self, queryset, name, value):
        return queryset.search(value)
