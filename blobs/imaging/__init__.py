"""Pure image work for uploads: bytes in, bytes or metadata out; nothing here imports Django.

`checks` refuses hostile files from their structure and describes accepted ones; `thumbnails`
makes the content-cropped JPEG thumbnail. Callers use the names below.
"""

from blobs.imaging.checks import (
    ALLOWED_FORMATS,
    DEFAULT_MAX_PIXELS,
    MAX_DECODE_BYTES,
    MAX_FRAMES,
    ImageError,
    ImageInfo,
    displayed_size,
    inspect_image,
)
from blobs.imaging.thumbnails import (
    BACKGROUND_TOLERANCE,
    THUMBNAIL_MAX_SIDE,
    THUMBNAIL_PADDING,
    THUMBNAIL_QUALITY,
    Thumbnail,
    content_box,
    fit_within,
    inspect_and_thumbnail,
    inspect_and_thumbnail_sized,
    make_thumbnail,
    pad_box,
)

__all__ = [
    "ALLOWED_FORMATS",
    "BACKGROUND_TOLERANCE",
    "DEFAULT_MAX_PIXELS",
    "MAX_DECODE_BYTES",
    "MAX_FRAMES",
    "THUMBNAIL_MAX_SIDE",
    "THUMBNAIL_PADDING",
    "THUMBNAIL_QUALITY",
    "ImageError",
    "ImageInfo",
    "Thumbnail",
    "content_box",
    "displayed_size",
    "fit_within",
    "inspect_and_thumbnail",
    "inspect_and_thumbnail_sized",
    "inspect_image",
    "make_thumbnail",
    "pad_box",
]
