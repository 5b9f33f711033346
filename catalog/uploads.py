"""Reading an uploaded file from a request: multipart field or raw body, within the limit."""

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework.exceptions import ValidationError


def uploaded_bytes(request, field: str) -> bytes:
    """The uploaded bytes: the multipart file in `field`, or the raw body.

    The route's parsers have already answered 415 for other content types and 413 for bodies
    over the limit.
    """
    data = request.data
    if isinstance(data, bytes):
        if not data:
            raise ValidationError({field: ["The submitted file is empty."]})
        return data
    upload = request.FILES.get(field)
    if upload is None:
        raise ValidationError({field: ["No file was submitted."]})
    return upload.read()


def as_field_error(field: str, error: DjangoValidationError) -> ValidationError:
    """A Django validation error as DRF's `{"field": [...]}` body."""
    return ValidationError({field: error.messages})
