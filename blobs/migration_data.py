"""Data-migration steps for byte columns, imported by historical migrations: keep them stable."""

from blobs import imaging

# Rows whose bytes are in memory at once: thumbnails are tens of kilobytes, covers up to the
# upload limit (5 MiB), so a batch of covers stays around 50 MB.
THUMBNAIL_BATCH_SIZE = 200
COVER_BATCH_SIZE = 10


def fill_dimensions(model, prefix: str, *, batch_size: int) -> None:
    """Fill `<prefix>_width` and `<prefix>_height` of a (historical) model's rows from their bytes.

    Rows with stored bytes and no width yet, in batches by id; only the byte column is loaded,
    and only the image's header is read (Pillow opens it, nothing is decoded). Bytes that cannot
    be read keep 0, which pages and the API read as "unknown".
    """
    data_field, width_field, height_field = f"{prefix}_data", f"{prefix}_width", f"{prefix}_height"
    pending = (
        model.objects.filter(**{f"{data_field}__isnull": False, width_field: 0})
        .exclude(**{f"{prefix}_sha256": ""})
        .only("pk", data_field)
        .order_by("pk")
    )
    last_pk = 0
    while True:
        batch = list(pending.filter(pk__gt=last_pk)[:batch_size])
        if not batch:
            return
        for row in batch:
            try:
                width, height = imaging.displayed_size(bytes(getattr(row, data_field)))
            except imaging.ImageError:
                width, height = 0, 0
            setattr(row, width_field, width)
            setattr(row, height_field, height)
        model.objects.bulk_update(batch, [width_field, height_field])
        last_pk = batch[-1].pk
