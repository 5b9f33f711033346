"""Query parameters of the fruit list."""

import django_filters

from catalog.models import CATALOG_NUMBER_MAX, Fruit, FruitType
from fruitcatalog.rest.filters import IntegerFilter, NullsLastOrderingFilter


class CatalogNumberNullsLastOrderingFilter(NullsLastOrderingFilter):
    """Ordering that keeps null catalog numbers last either way and breaks ties by id."""

    nullable_fields = frozenset({"catalog_number"})


class FruitFilter(django_filters.FilterSet):
    """`type` (repeatable), `search`, `catalog_number`, `ordering`."""

    # distinct=False: a fruit has one type, so no row can match twice, and DISTINCT would make
    # the database compute every matching row (with its annotations) before paging.
    type = django_filters.MultipleChoiceFilter(
        choices=FruitType.choices,
        distinct=False,
        help_text="Repeat the parameter to match any of several types.",
    )
    search = django_filters.CharFilter(
        method="filter_search",
        help_text="Substring of the name, a synonym or the catalog number; any case or accents.",
    )
    catalog_number = IntegerFilter(
        min_value=1, max_value=CATALOG_NUMBER_MAX, help_text="Exact catalog number."
    )
    ordering = CatalogNumberNullsLastOrderingFilter(
        fields=["catalog_number", "name", "created_at", "updated_at"],
        help_text="Sort key, `-` for descending. Default: catalog number (nulls last), then id.",
    )

    class Meta:
        model = Fruit
        fields = ["type", "search", "catalog_number"]

    def filter_search(self, queryset, name, value):
        return queryset.search(value)
