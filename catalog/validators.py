"""Input rules shared by the API serializers and the admin forms: one rule, one place."""

from django.conf import settings
from django.core.exceptions import ValidationError

from catalog import imaging
from catalog.search import name_key

SYNONYMS_MAX = 100
TEXT_MAX = 200


def clean_synonyms(names, *, fruit_name: str) -> list[str]:
    """Trim synonyms and reject empty, too long, duplicate (case-insensitive) or the name itself."""
    if len(names) > SYNONYMS_MAX:
        raise ValidationError(f"Ensure this field has no more than {SYNONYMS_MAX} elements.")
    cleaned, seen = [], set()
    own_name = name_key(fruit_name)
    for raw in names:
        name = raw.strip()
        if not name:
            raise ValidationError("A synonym may not be blank.")
        if len(name) > TEXT_MAX:
            raise ValidationError(f"A synonym has at most {TEXT_MAX} characters: {name[:40]!r}…")
        key = name_key(name)
        if key == own_name:
            raise ValidationError(f"{name!r} is the fruit's own name, not a synonym.")
        if key in seen:
            raise ValidationError(f"Duplicate synonym: {name!r}.")
        seen.add(key)
        cleaned.append(name)
    return cleaned


def validate_upload_size(data: bytes) -> None:
    """Reject bytes over the upload limit (the API answers 413 earlier, from the request length)."""
    limit = settings.FRUITCATALOG_MAX_UPLOAD_BYTES
    if len(data) > limit:
        raise ValidationError(f"The file is larger than the limit of {limit} bytes.")


def validate_image_bytes(data: bytes) -> imaging.ImageInfo:
    """Accept JPEG, PNG, GIF or WebP bytes within the limits that decode completely.

    For images stored without a thumbnail (a publication cover); decoding is the thumbnail's,
    so what passes here would also pass `apply_image_upload`.
    """
    validate_upload_size(data)
    if not data:
        raise ValidationError("The submitted file is empty.")
    max_pixels = settings.FRUITCATALOG_MAX_IMAGE_PIXELS
    try:
        info = imaging.inspect_image(data, max_pixels=max_pixels)
        imaging.make_thumbnail(data, max_pixels=max_pixels)
    except imaging.ImageError as error:
        raise ValidationError(str(error)) from None
    return info


def apply_image_upload(image, data: bytes) -> None:
    """Validate uploaded bytes and put them on `image` (unsaved) with metadata and thumbnail.

    The API and the admin both call this, so an image is accepted only when its thumbnail can be
    made, and the save hook then finds nothing left to compute.
    """
    validate_upload_size(data)
    if not data:
        raise ValidationError("The submitted file is empty.")
    try:
        image.set_data(data)
    except imaging.ImageError as error:
        raise ValidationError(str(error)) from None
