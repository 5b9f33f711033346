"""A fruit's public page: what the catalog holds of it, the publications that describe it and
the characteristics it shows.

A fixed number of queries whatever the catalog holds, and none reads a byte column.
"""

from django.db.models import F, Prefetch
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from blobs.models import blob_fields
from blobs.rights import alt_text_or_role
from catalog.models import Fruit, RelationKind
from core.db.ids import ID_MAX
from core.site.pages import not_found, render_page
from core.site.structured_data import agents, json_ld, one_or_list, without_empty
from identification.described import described_groups, with_described
from identification.pages import COMPARE_MAX, compare_url
from publications.models import Publication, PublicationFruit, PublicationFruitImage
from publications.pages import cited_book


@require_safe
def fruit_page(request, pk: int):
    """One fruit: names, images, relations, its publications and its characteristics."""
    fruits = with_described(
        Fruit.objects.with_list_data().with_images().with_relations().defer("search_text")
    )
    fruit = fruits.filter(pk=pk).first() if 1 <= pk <= ID_MAX else None
    if fruit is None:
        return not_found(request, message=_("The catalog has no fruit with this number."))
    links = citations(fruit)
    images = fruit.images.all()
    # Each image's alt text, as the templates show it.
    for image in images:
        image.alt = alt_text_or_role(image.alt_text, image.role, fruit.name)
    confused = confused_ids(fruit)
    context = {
        "fruit": fruit,
        "images": images,
        "links": links,
        "first_description": next((link for link in links if link.is_first_description), None),
        "characteristics": described_groups(fruit),
        "confused_compare_url": compare_url([fruit.pk, *confused][:COMPARE_MAX])
        if confused
        else "",
        "structured_data": json_ld(taxon(request, fruit, images, links)),
        "section": "fruits",
    }
    return render_page(request, "wholefruit/fruit_page.html", context)


def citations(fruit) -> list:
    """The fruit's links to the publications that describe it, oldest publication first, each
    with its plates' images (their alt text set)."""
    links = list(
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
    for link in links:
        for image in link.images.all():
            shows = alt_text_or_role("", image.role, fruit.name)
            image.alt = image.alt_text or _("%(shows)s in %(title)s") % {
                "shows": shows,
                "title": link.publication.title,
            }
    return links


def confused_ids(fruit) -> list[int]:
    """The fruits of the catalog this one is confused with, either way round (from the
    relations the page has read already)."""
    ids = [
        relation.other_id
        for relation in fruit.relations.all()
        if relation.kind == RelationKind.CONFUSED_WITH and relation.other_id
    ]
    ids += [
        relation.fruit_id
        for relation in fruit.related_relations.all()
        if relation.kind == RelationKind.CONFUSED_WITH and relation.fruit_id not in ids
    ]
    return ids


def taxon(request, fruit, images, links) -> dict:
    """The fruit as a schema.org `Taxon` (a cultivar): names, catalog number, images, and the
    publications about it (`links`, as `citations` reads them).

    The publications are `subjectOf`, the inverse of the `about` their own pages give: `citation`
    belongs to creative works, not to a taxon. Parentage is left out: schema.org has no term
    for a cultivar's seed or pollen parent or the variety it is a sport of, and `parentTaxon`
    is the taxonomic parent (the species), which the page does not show.
    """
    return without_empty(
        {
            "@context": "https://schema.org",
            "@type": "Taxon",
            "taxonRank": "cultivar",
            "name": fruit.name,
            "alternateName": [name["name"] for name in fruit.name_list],
            "identifier": None if fruit.catalog_number is None else str(fruit.catalog_number),
            "url": request.build_absolute_uri(fruit.get_absolute_url()),
            "image": [image_object(request, image, fruit.name) for image in images],
            "subjectOf": [cited_book(request, link.publication) for link in links],
        }
    )


def image_object(request, image, subject: str) -> dict:
    """An image as a schema.org `ImageObject`, with its licence and credit (its creator a
    `Person` or an `Organization`, `agents`)."""
    return without_empty(
        {
            "@type": "ImageObject",
            "contentUrl": request.build_absolute_uri(image.get_data_url()),
            "thumbnailUrl": request.build_absolute_uri(image.get_thumbnail_url()),
            "caption": alt_text_or_role(image.alt_text, image.role, subject),
            "license": image.license_url,
            "creditText": image.creator,
            "creator": one_or_list(agents(image.creator)),
            "width": image.width or None,
            "height": image.height or None,
        }
    )
