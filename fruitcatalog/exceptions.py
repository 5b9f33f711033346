"""One exception handler: every error the API raises answers in DRF's shapes, never as a 5xx."""

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import ProtectedError, RestrictedError
from django.http import Http404, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.views import exception_handler as drf_exception_handler


class UploadTooLarge(exceptions.APIException):
    """The request body is larger than a limit (the upload limit, Django's memory limit)."""

    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "upload_too_large"

    def __init__(self, limit: int):
        super().__init__(f"The request body is larger than the limit of {limit} bytes.")


class Conflict(exceptions.APIException):
    """The change would lose linked data."""

    status_code = status.HTTP_409_CONFLICT
    default_detail = "The change would lose linked data."
    default_code = "conflict"


def protection_message(error: ProtectedError | RestrictedError) -> str:
    """Name what blocks a delete, e.g. the publications that link a fruit.

    The blocking model's queryset may offer `conflict_labels()` to name the rows without loading
    them whole (a publication row holds its cover bytes); otherwise `str()` of each row is used.
    """
    blocking = list(
        error.protected_objects if isinstance(error, ProtectedError) else error.restricted_objects
    )
    if not blocking:
        return Conflict.default_detail
    queryset = type(blocking[0])._default_manager.filter(pk__in=[obj.pk for obj in blocking])
    if hasattr(queryset, "conflict_labels"):
        labels = queryset.conflict_labels()
    else:
        labels = [str(obj) for obj in blocking]
    names = ", ".join(sorted({str(label) for label in labels}))
    return f"It is still linked by {names}; remove those links first."


def exception_handler(exc, context):
    """DRF's handler, plus Django's validation, protection and suspicious-request errors."""
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(
            exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        )
    elif isinstance(exc, (ProtectedError, RestrictedError)):
        exc = Conflict(protection_message(exc))
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()  # one message for every 404, as the contract shows
    elif isinstance(exc, RequestDataTooBig):
        exc = UploadTooLarge(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    elif isinstance(exc, SuspiciousOperation):
        exc = exceptions.ParseError(str(exc) or "Bad request.")
    return drf_exception_handler(exc, context)


@csrf_exempt
def json_not_found(request, *args, **kwargs):
    """Any unknown path under /api/: DRF's JSON 404, whatever the method."""
    return JsonResponse({"detail": "Not found."}, status=404)
