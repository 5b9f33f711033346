"""The public catalog: the card grid at `/`, taking the fruit list's query parameters."""

from django.views.decorators.http import require_safe

from catalog.filters import FruitFilter
from catalog.models import Fruit, FruitType
from fruitcatalog.pages import page_links, paginate, render_page, url_with

# The sorts the grid offers (the API takes a few more, which the grid honours too).
SORTS = [("", "Catalog number"), ("name", "Name, A to Z"), ("-name", "Name, Z to A")]
EAGER_CARDS = 8  # cards likely above the fold on a desktop: their images load at once


@require_safe
def catalog_grid(request):
    """Cards of the fruits matching `search`, `type` (repeatable), `ordering`, `page`."""
    filterset = FruitFilter(request.GET, queryset=Fruit.objects.with_list_data().in_catalog_order())
    context = {
        "search": request.GET.get("search", "").strip(),
        "types": type_chips(request),
        "sorts": sort_options(request),
        "ordering": request.GET.get("ordering", ""),
        "selected_types": request.GET.getlist("type"),
        "eager_cards": EAGER_CARDS,
        "section": "fruits",
    }
    if not filterset.is_valid():
        errors = [message for messages in filterset.errors.values() for message in messages]
        return render_page(request, "catalog/grid.html", {**context, "errors": errors}, status=400)
    page = paginate(request, filterset.qs)
    if page is None:
        return render_page(
            request, "catalog/grid.html", {**context, "errors": ["There is no such page."]}, 404
        )
    context.update(
        page=page,
        fruits=page.object_list,
        page_links=page_links(request, page),
        previous_url=url_with(request, page=page.previous_page_number())
        if page.has_previous()
        else "",
        next_url=url_with(request, page=page.next_page_number()) if page.has_next() else "",
    )
    return render_page(request, "catalog/grid.html", context)


def type_chips(request) -> list[dict]:
    """One chip per fruit type: its label, whether it is on, the URL that toggles it."""
    selected = request.GET.getlist("type")
    chips = []
    for value, label in FruitType.choices:
        is_on = value in selected
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
    """The sorts offered, the current one marked."""
    current = request.GET.get("ordering", "")
    return [{"value": v, "label": label, "is_on": v == current} for v, label in SORTS]
