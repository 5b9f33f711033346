"""Writes of publications: the API and the admin both store through these."""

from django.db import transaction

from catalog.models import Fruit
from publications.models import Publication, PublicationFruit


@transaction.atomic
def publication_link_fruit(
    *, publication: Publication, fruit: Fruit
) -> tuple[PublicationFruit, bool]:
    """Link a fruit to a publication; linking it again changes nothing. Returns (link, created).

    Two concurrent links of the same fruit meet at the unique constraint; `get_or_create` then
    returns the winner's row instead of failing.
    """
    return PublicationFruit.objects.without_blobs().get_or_create(
        publication=publication, fruit=fruit
    )


@transaction.atomic
def publication_unlink_fruit(*, publication: Publication, fruit_id: int) -> bool:
    """Unlink a fruit with its PDF and its images in this publication; False when not linked.

    The images go by the link's cascade, in the same transaction as the link.
    """
    # `without_blobs()`: the deletion collector would otherwise load the PDF of the link it deletes.
    deleted, _ = (
        PublicationFruit.objects.without_blobs()
        .filter(publication=publication, fruit_id=fruit_id)
        .delete()
    )
    return deleted > 0


def publication_set_cover(*, publication: Publication, data: bytes | None) -> None:
    """Store a cover that passed `validate_image_bytes`, or remove it (`None`)."""
    publication.cover.set(data)
    publication.save(update_fields=["cover_data", "updated_at"])


def publication_fruit_set_description(*, link: PublicationFruit, data: bytes | None) -> None:
    """Store a PDF that passed `validate_pdf_bytes` as the link's description, or remove it."""
    link.description.set(data)
    link.save(update_fields=["description_data"])
