"""Query parameters of the fruit list."""

import django_filters

from catalog.models import CATALOG_NUMBER_MAX, Fruit, FruitType
from catalog.search import RANKED_MAX, SEARCH_MAX, search_fruits
from core.rest.filters import IntegerFilter, NullsLastOrderingFilter


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
    catalog_number = IntegerFilter(
        min_value=1, max_value=CATALOG_NUMBER_MAX, help_text="Exact catalog number."
    )
    # Last: a search by relevance keeps the best of what the other filters leave.
    search = django_filters.CharFilter(
        method="filter_search",
        max_length=SEARCH_MAX,
        help_text=(
            "Any name of the fruit (its own, its other names) or its catalog number, ignoring "
            "case, accents, German transliterations (ä = ae), apostrophes and punctuation, and "
            "forgiving spelling mistakes. Without `ordering`, results come by relevance: the "
            "fruit's own name equal to the term first, then another name equal to it, names "
            "starting with it, names containing it, then the closest spellings; ties in catalog "
            f"order, and at most the best {RANKED_MAX:,} matches (with an `ordering`, all of "
            "them). Each entry's `matched_name` says which other name matched. At most "
            f"{SEARCH_MAX} characters."
        ),
    )
    ordering = CatalogNumberNullsLastOrderingFilter(
        fields=["catalog_number", "name", "created_at", "updated_at"],
        help_text="Sort key, `-` for descending. Default: catalog number (nulls last), then id.",
    )

    class Meta:
        model = Fruit
        fields = ["type", "catalog_number", "search"]

    def filter_search(self, queryset, name, value):
        return search_fruits(queryset, value, by_relevance=not self.data.get("ordering"))
