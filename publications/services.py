"""Writes of publications: the API and the admin both store through these."""

from django.db import transaction

from catalog.models import Fruit
from core.db.locks import lock_row
from publications.models import CITATION_FIELDS, Publication, PublicationFruit
from publications.signals import fruits_unlinked, publication_written


def send_written(
    publication_id: int, *, created: bool = False, deleted: bool = False, fruit_ids=()
) -> None:
    """Tell the apps above that the publication was written (`signals.publication_written`),
    in the write's transaction; `fruit_ids`: the fruits whose citations of it changed."""
    publication_written.send(
        sender=Publication,
        publication_id=publication_id,
        created=created,
        deleted=deleted,
        fruit_ids=sorted(set(fruit_ids)),
    )


@transaction.atomic
def publication_create(**fields) -> Publication:
    """Create a publication with its own fields (no cover, no links yet)."""
    publication = Publication.objects.create(**fields)
    send_written(publication.pk, created=True)
    return publication


@transaction.atomic
def publication_link_fruit(
    *, publication: Publication, fruit: Fruit, citation: dict | None = None
) -> tuple[PublicationFruit, bool]:
    """Link a fruit to a publication, with the `citation` fields given (the others keep their
    value, or their default on a new link). Returns (link, created).

    Two concurrent links of the same fruit meet at the unique constraint; `get_or_create` then
    returns the winner's row instead of failing. Publication and fruit are locked first, so a
    concurrent delete of either waits (and then meets the link) or went first (`DoesNotExist`).
    """
    lock_row(Publication, publication.pk)
    lock_row(Fruit, fruit.pk)
    link, created = PublicationFruit.objects.without_blobs().get_or_create(
        publication=publication, fruit=fruit, defaults=citation or {}
    )
    if created:
        if link.name_in_source:
            refresh_fruit_search(link.fruit_id)
    elif citation:
        _cite(link, citation)
    if created or citation:
        send_written(publication.pk, fruit_ids=[fruit.pk])
    return link, created


@transaction.atomic
def publication_cite(*, link: PublicationFruit, citation: dict) -> PublicationFruit:
    """Change a link's citation fields (those given). Raises `PublicationFruit.DoesNotExist`
    when the fruit was unlinked meanwhile."""
    lock_row(PublicationFruit, link.pk)
    link.refresh_from_db(fields=CITATION_FIELDS)  # as it is now: search follows the change
    _cite(link, citation)
    send_written(link.publication_id, fruit_ids=[link.fruit_id])
    return link


def _cite(link: PublicationFruit, citation: dict) -> None:
    old_name = link.name_in_source
    for name, value in citation.items():
        setattr(link, name, value)
    link.save(update_fields=[*citation, "updated_at"])
    if link.name_in_source != old_name:
        refresh_fruit_search(link.fruit_id)


def refresh_fruit_search(*fruit_ids: int) -> None:
    """The fruits are found by the names their sources use: recompute what search reads
    after those names changed (a link's `name_in_source` set, changed or deleted).

    Each fruit is locked and read afresh first, so a concurrent rename is either seen or waits:
    search never keeps a name the fruit no longer has. A fruit deleted meanwhile is skipped.
    """
    with transaction.atomic():
        for fruit_id in sorted(set(fruit_ids)):
            try:
                lock_row(Fruit, fruit_id)
            except Fruit.DoesNotExist:
                continue
            fruit = Fruit.objects.only("pk", "name", "catalog_number").get(pk=fruit_id)
            fruit.refresh_search_text()


def links_removed(publication_id: int, fruit_ids: list[int]) -> None:
    """Tell the apps above (`signals.fruits_unlinked`) that these fruits are no longer linked
    to the publication."""
    if fruit_ids:
        fruits_unlinked.send(sender=Publication, publication_id=publication_id, fruit_ids=fruit_ids)


@transaction.atomic
def publication_unlink_fruit(*, publication: Publication, fruit_id: int) -> bool:
    """Unlink a fruit with its PDF and its images in this publication; False when not linked.

    The images go by the link's cascade, in the same transaction as the link. The link is
    locked first, so an image upload racing the unlink either lands before (and goes with the
    link) or finds the link gone.
    """
    link_id = (
        PublicationFruit.objects.filter(publication=publication, fruit_id=fruit_id)
        .values_list("pk", flat=True)
        .first()
    )
    if link_id is None:
        return False
    try:
        lock_row(PublicationFruit, link_id, for_delete=True)
    except PublicationFruit.DoesNotExist:
        return False
    # Read under the lock: a concurrent citation change is either in or waits.
    name_in_source = (
        PublicationFruit.objects.filter(pk=link_id).values_list("name_in_source", flat=True).get()
    )
    # `without_blobs()`: the deletion collector would otherwise load the PDF of the link it deletes.
    deleted, _ = (
        PublicationFruit.objects.without_blobs()
        .filter(publication=publication, fruit_id=fruit_id)
        .delete()
    )
    if deleted:
        links_removed(publication.pk, [fruit_id])
        send_written(publication.pk, fruit_ids=[fruit_id])
    if name_in_source:
        refresh_fruit_search(fruit_id)
    return deleted > 0


@transaction.atomic
def publication_set_cover(*, publication: Publication, data: bytes | None, checked=None) -> None:
    """Store a cover that passed `check_image_bytes` (`checked`: what it returned, so the cover
    is not decoded twice), or remove it (`None`).

    Raises `Publication.DoesNotExist` when the publication was deleted meanwhile.
    """
    lock_row(Publication, publication.pk)
    publication.set_cover(data, checked)
    publication.save(update_fields=["cover_data", "updated_at"])
    send_written(publication.pk)


@transaction.atomic
def publication_fruit_set_description(*, link: PublicationFruit, data: bytes | None) -> None:
    """Store a PDF that passed `validate_pdf_bytes` as the link's description, or remove it.

    Raises `PublicationFruit.DoesNotExist` when the fruit was unlinked meanwhile.
    """
    lock_row(PublicationFruit, link.pk)
    link.description.set(data)
    link.save(update_fields=["description_data"])
    send_written(link.publication_id)


@transaction.atomic
def publication_delete(*, publication: Publication) -> None:
    """Delete a publication with its cover, links, PDFs and fruit images.

    Locked first, as its writes do; raises `Publication.DoesNotExist` when already gone.
    """
    lock_row(Publication, publication.pk, for_delete=True)
    linked = list(publication.links.values_list("fruit_id", flat=True))
    send_written(publication.pk, deleted=True, fruit_ids=linked)
    # Values citing it stop citing it through the apps' own writes (recorded), not through the
    # foreign key's SET NULL, which no one sees.
    links_removed(publication.pk, linked)
    named = list(publication.links.exclude(name_in_source="").values_list("fruit_id", flat=True))
    # The links first, without their PDFs: the history records each deleted link, and the
    # deletion collector would otherwise load the PDF of every link it hands to it.
    PublicationFruit.objects.without_blobs().filter(publication=publication).delete()
    publication.delete()
    refresh_fruit_search(*named)


@transaction.atomic
def publication_update(*, publication: Publication, **fields) -> Publication:
    """Change a publication's own fields; never inserts a publication deleted meanwhile."""
    lock_row(Publication, publication.pk)
    for name, value in fields.items():
        setattr(publication, name, value)
    publication.save(force_update=True)
    send_written(publication.pk)
    return publication
