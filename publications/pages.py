"""Public pages that show publications: the list with its search, and one publication with its
fruits. Every page runs a fixed number of queries whatever the catalog holds, and none
reads a byte column.
"""

from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from catalog.models import Fruit
from core.db.ids import ID_MAX
from core.site.pages import not_found, render_list_page, render_page
from core.site.structured_data import agents, json_ld, one_or_list, without_empty
from publications.filters import PublicationFilter
from publications.models import Publication, PublicationFruit


@require_safe
def publication_list(request):
    """Publications, newest first, with a search over title and authors."""
    filterset = PublicationFilter(
        request.GET,
        queryset=Publication.objects.without_blobs()
        .defer("search_text")
        .annotate(
            fruit_count=_count_of(PublicationFruit.objects.filter(publication=OuterRef("pk")))
        )
        .in_default_order(),
    )
    context = {"search": request.GET.get("search", "").strip(), "section": "publications"}
    return render_list_page(
        request, "publications/list.html", filterset, context, items="publications"
    )


@require_safe
def publication_page(request, pk: int):
    """One publication: cover, authors, year, description, and its fruits as cards."""
    publication = _get_or_none(Publication.objects.without_blobs().defer("search_text"), pk=pk)
    if publication is None:
        return not_found(request, message=_("There is no publication with this number."))
    links = {
        link.fruit_id: link
        for link in PublicationFruit.objects.without_blobs().filter(publication=publication)
    }
    fruits = list(
        Fruit.objects.with_list_data()
        .with_card_alt_text()
        .defer("search_text")
        .filter(publication_links__publication=publication)
        .in_catalog_order()
    )
    for fruit in fruits:
        fruit.link = links.get(fruit.pk)
    return render_page(
        request,
        "publications/publication_page.html",
        {
            "publication": publication,
            "fruits": fruits,
            "structured_data": json_ld(book(request, publication, fruits)),
            "section": "publications",
        },
    )


def book(request, publication, fruits) -> dict:
    """The publication as a schema.org `Book`: author, year, cover, the fruits it is about."""
    cover = publication.get_cover_url() if publication.has_cover else None
    return without_empty(
        {
            "@context": "https://schema.org",
            **cited_book(request, publication),
            "image": cover and request.build_absolute_uri(cover),
            "about": [
                {
                    "@type": "Taxon",
                    "name": fruit.name,
                    "url": request.build_absolute_uri(fruit.get_absolute_url()),
                }
                for fruit in fruits
            ],
        }
    )


def cited_book(request, publication) -> dict:
    """The publication as a schema.org `Book` where another page names it: title, authors (one
    or a list, `agents`), year and its page."""
    return without_empty(
        {
            "@type": "Book",
            "name": publication.title,
            "author": one_or_list(agents(publication.authors)),
            "datePublished": None if publication.year is None else str(publication.year),
            "url": request.build_absolute_uri(publication.get_absolute_url()),
        }
    )


def _count_of(rows):
    """A correlated count: computed for the page's rows only, with no GROUP BY over the table."""
    counted = rows.order_by().values(rows.model._meta.get_field("publication").attname)
    return Coalesce(Subquery(counted.annotate(n=Count("pk")).values("n")[:1]), 0)


def _get_or_none(queryset, *, pk: int):
    """The row with this id, or None (ids beyond what the database holds included)."""
    if not 1 <= pk <= ID_MAX:
        return None
    return queryset.filter(pk=pk).first()
