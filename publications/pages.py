"""Public pages that show publications: what a fruit's page shows of them, the publications.

A fruit's page is composed in `identification.pages` from `fruit_page_context` here (the
publications describing it) and the characteristics it shows; the catalog never imports
publications. Every page runs a fixed number of queries whatever the catalog holds, and none
reads a byte column.
"""

from django.db.models import Count, F, OuterRef, Prefetch, Subquery
from django.db.models.functions import Coalesce
from django.views.decorators.http import require_safe

from blobs.models import blob_fields
from blobs.rights import alt_text_or_role
from catalog.models import Fruit
from core.db.ids import ID_MAX
from core.site.pages import not_found, render_list_page, render_page
from core.site.structured_data import json_ld, without_empty
from publications.filters import PublicationFilter
from publications.models import Publication, PublicationFruit, PublicationFruitImage


def fruit_page_context(request, pk: int, *, more=None) -> dict | None:
    """What a fruit's page shows of the catalog and publications (None: no such fruit); the
    public site composes it with the fruit's characteristics (`identification.pages`), which
    `more(queryset)` adds to the fruit's own query."""
    fruits = Fruit.objects.with_list_data().with_images().with_relations().defer("search_text")
    if more is not None:
        fruits = more(fruits)
    fruit = _get_or_none(fruits, pk=pk)
    if fruit is None:
        return None
    links = (
        PublicationFruit.objects.without_blobs()
        .filter(fruit=fruit)
        .select_related("publication")
        .defer(*blob_fields(Publication, via="publication"), "publication__search_text")
        .prefetch_related(
            Prefetch(
                "images", queryset=PublicationFruitImage.objects.without_blobs().order_by("pk")
            )
        )
        .order_by(F("publication__year").asc(nulls_last=True), "publication__title", "pk")
    )
    first = next((link for link in links if link.is_first_description), None)
    images = fruit.images.all()
    # Each image's alt text, as the templates show it.
    for image in images:
        image.alt = alt_text_or_role(image.alt_text, image.role, fruit.name)
    for link in links:
        for image in link.images.all():
            shows = alt_text_or_role("", image.role, fruit.name)
            image.alt = image.alt_text or f"{shows} in {link.publication.title}"
    return {
        "fruit": fruit,
        "images": images,
        "links": links,
        "first_description": first,
        "structured_data": json_ld(taxon(request, fruit, images)),
        "section": "fruits",
    }


def taxon(request, fruit, images) -> dict:
    """The fruit as a schema.org `Taxon` (a cultivar): names, catalog number, images."""
    return without_empty(
        {
            "@context": "https://schema.org",
            "@type": "Taxon",
            "taxonRank": "cultivar",
            "name": fruit.name,
            "alternateName": fruit.synonym_names,
            "identifier": None if fruit.catalog_number is None else str(fruit.catalog_number),
            "url": request.build_absolute_uri(fruit.get_absolute_url()),
            "image": [image_object(request, image, fruit.name) for image in images],
        }
    )


def image_object(request, image, subject: str) -> dict:
    """An image as a schema.org `ImageObject`, with its licence and credit."""
    creator = {"@type": "Person", "name": image.creator} if image.creator else None
    return without_empty(
        {
            "@type": "ImageObject",
            "contentUrl": request.build_absolute_uri(image.get_data_url()),
            "thumbnailUrl": request.build_absolute_uri(image.get_thumbnail_url()),
            "caption": alt_text_or_role(image.alt_text, image.role, subject),
            "license": image.license_url,
            "creditText": image.creator,
            "creator": creator,
            "width": image.width or None,
            "height": image.height or None,
        }
    )


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
        return not_found(request, message="There is no publication with this number.")
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
    author = {"@type": "Person", "name": publication.authors} if publication.authors else None
    return without_empty(
        {
            "@context": "https://schema.org",
            "@type": "Book",
            "name": publication.title,
            "author": author,
            "datePublished": None if publication.year is None else str(publication.year),
            "image": cover and request.build_absolute_uri(cover),
            "url": request.build_absolute_uri(publication.get_absolute_url()),
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


def _count_of(rows):
    """A correlated count: computed for the page's rows only, with no GROUP BY over the table."""
    counted = rows.order_by().values(rows.model._meta.get_field("publication").attname)
    return Coalesce(Subquery(counted.annotate(n=Count("pk")).values("n")[:1]), 0)


def _get_or_none(queryset, *, pk: int):
    """The row with this id, or None (ids beyond what the database holds included)."""
    if not 1 <= pk <= ID_MAX:
        return None
    return queryset.filter(pk=pk).first()
