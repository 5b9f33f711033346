"""The public catalog: the card grid at `/`, taking the fruit list's query parameters."""

from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_safe

from catalog.filters import FruitFilter
from catalog.models import Fruit, FruitType
from catalog.search import explain_page
from core.db.search import search_query
from core.site.pages import render_list_page, url_with

# The sorts the grid offers (the API takes a few more, which the grid honours too).
SORTS = [("", _("Catalog number")), ("name", _("Name, A to Z")), ("-name", _("Name, Z to A"))]
EAGER_CARDS = 8  # cards likely above the fold on a desktop: their images load at once


@require_safe
def catalog_grid(request):
    """Cards of the fruits matching `search`, `type` (repeatable), `ordering`, `page`."""
    fruits = Fruit.objects.with_list_data().with_card_alt_text().in_catalog_order()
    filterset = FruitFilter(request.GET, queryset=fruits)
    in_use = Fruit.objects.types_in_use()
    context = {
        "search": request.GET.get("search", "").strip(),
        "types": type_chips(request, in_use),
        "is_catalog_empty": not in_use,  # every fruit has a type
        "sorts": sort_options(request),
        "ordering": request.GET.get("ordering", ""),
        "selected_types": request.GET.getlist("type"),
        "eager_cards": EAGER_CARDS,
        "section": "fruits",
    }
    return render_list_page(
        request,
        "catalog/grid.html",
        filterset,
        context,
        items="fruits",
        prepare=lambda page: searched(request, page),
    )


def searched(request, page) -> dict:
    """With a search: each card's matched name, and "did you mean" links when nothing matched."""
    text = request.GET.get("search", "")
    found = explain_page(page.object_list, text, page.paginator.count)
    return {
        "suggestions": [
            # The types chosen are dropped: a suggestion may be of another type.
            {
                **suggestion,
                "url": url_with(request, search=suggestion["name"], page=None, type=None),
            }
            for suggestion in found
        ]
    }


def type_chips(request, in_use: set[str]) -> list[dict]:
    """A chip per type some fruit has (`in_use`) or the visitor selected: label, state,
    toggling URL."""
    selected = request.GET.getlist("type")
    chips = []
    for value, label in FruitType.choices:
        is_on = value in selected
        if not (is_on or value in in_use):
            continue
        toggled = [t for t in selected if t != value] if is_on else [*selected, value]
        chips.append(
            {
                "value": value,
                "label": label,
                "is_on": is_on,
                "url": url_with(request, type=toggled or None, page=None),
            }
        )
    return chips


def sort_options(request) -> list[dict]:
    """The sorts offered, the current one marked; with a search, the default is the best match."""
    current = request.GET.get("ordering", "")
    sorts = SORTS
    if search_query(request.GET.get("search", "")):
        sorts = [("", _("Best match")), ("catalog_number", _("Catalog number")), *SORTS[1:]]
    return [{"value": v, "label": label, "is_on": v == current} for v, label in sorts]
