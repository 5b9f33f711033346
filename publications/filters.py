"""Query parameters of the publication list and of a publication's fruit images."""

import django_filters

from catalog.filters import IntegerFilter, NullsLastOrderingFilter
from publications.models import YEAR_MAX, YEAR_MIN, Publication, PublicationFruitImage

ID_MAX = 9_223_372_036_854_775_807  # the largest id a 64-bit primary key holds


class YearNullsLastOrderingFilter(NullsLastOrderingFilter):
    """Ordering that keeps unknown years last either way and breaks ties by id."""

    nullable_fields = {"year"}


class PublicationFilter(django_filters.FilterSet):
    """`search`, `fruit`, `year`, `ordering`."""

    search = django_filters.CharFilter(
        method="filter_search",
        help_text="Substring of the title or the authors; any case or accents.",
    )
    fruit = IntegerFilter(
        field_name="links__fruit",
        min_value=1,
        max_value=ID_MAX,
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

    fruit = IntegerFilter(
        field_name="link__fruit",
        min_value=1,
        max_value=ID_MAX,
        help_text="Only the images of the fruit with this id.",
    )

    class Meta:
        model = PublicationFruitImage
        fields = ["fruit"]
