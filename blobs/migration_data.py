"""Data-migration steps for byte columns, imported by historical migrations: keep them stable.

A frozen copy, not an import, of the live header reading they need (`blobs.imaging`'s
`displayed_size`). An applied migration must compute what it computed when it was written, so
this must not follow later changes of the live code; a migration that needs the new behaviour
gets a new step. `catalog/tests/test_migration_data.py` shows it agreed with the live code when
frozen.
"""

import io
import struct
import warnings

from PIL import Image, UnidentifiedImageError

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
            width, height = _displayed_size(bytes(getattr(row, data_field)))
            setattr(row, width_field, width)
            setattr(row, height_field, height)
        model.objects.bulk_update(batch, [width_field, height_field])
        last_pk = batch[-1].pk


# --- frozen: blobs.imaging.displayed_size --------------------------------------------------------

_IMAGE_FORMATS = ["JPEG", "PNG", "GIF", "WEBP"]
_ORIENTATION_TAG = 0x0112
_SWAPS_SIDES = frozenset({5, 6, 7, 8})
# Pillow's plugins raise these, besides the documented errors, on corrupt headers.
_DECODER_ERRORS = (OSError, SyntaxError, ValueError, struct.error, EOFError, IndexError)


def _displayed_size(data: bytes) -> tuple[int, int]:
    """Width and height of stored image bytes as displayed (after EXIF orientation), from the
    header only; (0, 0) when unreadable or beyond Pillow's decompression-bomb error limit."""
    with warnings.catch_warnings():
        # Stored bytes passed the upload's pixel limit; a header read allocates no pixels anyway.
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        warnings.filterwarnings("ignore", category=UserWarning, module="PIL")
        try:
            image = Image.open(io.BytesIO(data), formats=_IMAGE_FORMATS)
            width, height = image.size
            orientation = _orientation(image)
        except (UnidentifiedImageError, Image.DecompressionBombError, *_DECODER_ERRORS):
            return 0, 0
    return (height, width) if orientation in _SWAPS_SIDES else (width, height)


def _orientation(image: Image.Image) -> int:
    """EXIF orientation 1-8 known before decoding; 1 when absent or unreadable."""
    # A PNG may keep its eXIf chunk after the pixel data, which Pillow reaches only by decoding.
    if image.format == "PNG" and "exif" not in image.info:
        return 1
    try:
        value = image.getexif().get(_ORIENTATION_TAG)
    except Exception:  # a broken EXIF block must not refuse the image, whatever Pillow raises
        return 1
    return value if isinstance(value, int) and 1 <= value <= 8 else 1
