"""Query parameters of the publication list and of a publication's fruit images."""

import django_filters

from core.rest.filters import IdFilter, IntegerFilter, NullsLastOrderingFilter
from publications.models import YEAR_MAX, YEAR_MIN, Publication, PublicationFruitImage


class YearNullsLastOrderingFilter(NullsLastOrderingFilter):
    """Ordering that keeps unknown years last either way and breaks ties by id."""

    nullable_fields = frozenset({"year"})


class PublicationFilter(django_filters.FilterSet):
    """`search`, `fruit`, `year`, `ordering`."""

    search = django_filters.CharFilter(
        method="filter_search",
        help_text="Substring of the title or the authors; any case or accents.",
    )
    fruit = IdFilter(
        field_name="links__fruit",
        help_text="Only publications that link the fruit with this id.",
    )
    year = IntegerFilter(min_value=YEAR_MIN, max_value=YEAR_MAX, help_text="Year of publication.")
    ordering = YearNullsLastOrderingFilter(
        fields=["title", "year", "created_at"],
        help_text=(
            "Sort key, `-` for descending; unknown years sort last either way. "
            "Default: `-year`, then `title`."
        ),
    )

    class Meta:
        model = Publication
        fields = ["search", "fruit", "year"]

    def filter_search(self, queryset, name, value):
        return queryset.search(value)


class PublicationFruitImageFilter(django_filters.FilterSet):
    """`fruit`."""

    fruit = IdFilter(
        field_name="link__fruit",
        help_text="Only the images of the fruit with this id.",
    )

    class Meta:
        model = PublicationFruitImage
        fields = ["fruit"]
