"""Data-migration steps imported by historical migrations: keep their signatures stable."""

import hashlib

from blobs import content_types, imaging
from core.db.search import search_document, spellings_of

BATCH_SIZE = 100  # rows of image bytes held in memory at once


def fill_image_metadata(model):
    """Fill type, size, dimensions and hashes for rows of a (historical) image model lacking them.

    Undecodable images keep their bytes and get the type libmagic detects, zero dimensions and no
    thumbnail hash, so the backfill later reports them instead of this migration failing.
    """
    last_pk = 0
    while True:
        batch = list(model.objects.filter(pk__gt=last_pk, sha256="").order_by("pk")[:BATCH_SIZE])
        if not batch:
            return
        for row in batch:
            data = bytes(row.data)
            row.size = len(data)
            row.sha256 = hashlib.sha256(data).hexdigest()
            try:
                info = imaging.inspect_image(data)
            except imaging.ImageError:
                row.content_type = content_types.detect_content_type(data) if data else ""
                row.width = row.height = 0
            else:
                row.content_type, row.width, row.height = info.content_type, info.width, info.height
            thumbnail = bytes(row.thumbnail_data) if row.thumbnail_data else b""
            row.thumbnail_sha256 = hashlib.sha256(thumbnail).hexdigest() if thumbnail else ""
        model.objects.bulk_update(
            batch, ["size", "sha256", "content_type", "width", "height", "thumbnail_sha256"]
        )
        last_pk = batch[-1].pk


def _fruits_with_names(fruit_model):
    """Batches of (fruit, its other names in order) of a (historical) fruit model, by id."""
    last_pk = 0
    while True:
        batch = list(
            fruit_model.objects.filter(pk__gt=last_pk)
            .order_by("pk")
            .prefetch_related("synonyms")[:1000]
        )
        if not batch:
            return
        yield [
            (
                fruit,
                [s.name for s in sorted(fruit.synonyms.all(), key=lambda s: (s.position, s.pk))],
            )
            for fruit in batch
        ]
        last_pk = batch[-1].pk


def fill_fruit_search_text(fruit_model):
    """Compute the search column of every fruit of a (historical) fruit model, as the current
    code stores it (a later refill migration brings every row to the newest form)."""
    for batch in _fruits_with_names(fruit_model):
        for fruit, names in batch:
            fruit.search_text = search_document(fruit.catalog_number, *names, head=fruit.name)
        fruit_model.objects.bulk_update([fruit for fruit, _ in batch], ["search_text"])


def fill_fruit_spellings(fruit_model, spelling_model):
    """Write the spellings of every fruit of a (historical) fruit model, as the current code
    stores them (`Fruit.refresh_search_text`)."""
    for batch in _fruits_with_names(fruit_model):
        rows = [
            spelling_model(
                fruit_id=fruit.pk,
                spelling=spelling,
                is_own_name=is_own_name,
                catalog_number=fruit.catalog_number,
            )
            for fruit, names in batch
            for spelling, is_own_name in spellings_of(fruit.name, fruit.catalog_number, *names)
        ]
        spelling_model.objects.bulk_create(rows, batch_size=1000)
