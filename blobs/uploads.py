"""Checks of uploaded bytes shared by the API and the admin forms, and reading them off a request.

The checks raise Django's `ValidationError`; the API's exception handler and the forms both
turn it into their own error shapes (one rule, one place).
"""

from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.utils.translation import gettext as _
from rest_framework.exceptions import ValidationError

from blobs import imaging


def uploaded_bytes(request, field: str) -> bytes:
    """The uploaded bytes: the multipart file in `field`, or the raw body.

    The route's parsers have already answered 415 for other content types and 413 for bodies
    over the limit.
    """
    data = request.data
    if isinstance(data, bytes):
        if not data:
            raise ValidationError({field: [_("The submitted file is empty.")]})
        return data
    upload = request.FILES.get(field)
    if upload is None:
        raise ValidationError({field: [_("No file was submitted.")]})
    return upload.read()


def as_field_error(field: str, error: DjangoValidationError) -> ValidationError:
    """A Django validation error as DRF's `{"field": [...]}` body."""
    return ValidationError({field: error.messages})


def validate_upload_size(data: bytes) -> None:
    """Refuse empty bytes and bytes over the upload limit.

    The API answers 413 earlier, from the request's length; this is the forms' check, and the
    last line of defence for any other caller.
    """
    limit = settings.FRUITCATALOG_MAX_UPLOAD_BYTES
    if len(data) > limit:
        raise DjangoValidationError(
            _("The file is larger than the limit of %(limit)s bytes.") % {"limit": limit}
        )
    if not data:
        raise DjangoValidationError(_("The submitted file is empty."))


def check_image_bytes(data: bytes) -> tuple[imaging.ImageInfo, imaging.Thumbnail]:
    """Accept JPEG, PNG, GIF or WebP bytes within the limits that decode completely; return
    what they are and their thumbnail.

    One pass: the bytes are checked, opened and decoded once, by making the thumbnail, so a
    caller that stores the image (a publication cover) keeps it instead of decoding again.
    """
    validate_upload_size(data)
    max_pixels = settings.FRUITCATALOG_MAX_IMAGE_PIXELS
    try:
        return imaging.inspect_and_thumbnail_sized(data, max_pixels=max_pixels)
    except imaging.ImageError as error:
        raise image_refused(error) from None


def image_refused(error: imaging.ImageError) -> DjangoValidationError:
    """Unfit bytes as a validation error, in the active language."""
    return DjangoValidationError(error.translated(_))


def apply_image_upload(image, data: bytes) -> None:
    """Validate uploaded bytes and put them on `image` (unsaved) with metadata and thumbnail.

    The admin's forms call this, so an image is accepted only when its thumbnail can be made, and
    the save hook then finds nothing left to compute. The API's upload applies the same checks
    while it writes (`blobs.views.save_uploaded_image`).
    """
    validate_upload_size(data)
    try:
        image.store(data)
    except imaging.ImageError as error:
        raise image_refused(error) from None


def store_image_unless_duplicate(image) -> int | None:
    """Save an image whose bytes `apply_image_upload` put on it, unless its parent already has
    these bytes: then nothing is stored and the stored image's id is returned.

    The parent is locked first, so two stores of the same bytes keep one, and a parent deleted
    meanwhile raises `DoesNotExist`.
    """
    with transaction.atomic():
        image.lock_parent()
        duplicate = image.duplicate_id()
        if duplicate is not None:
            return duplicate
        image.save()
        return None
