"""One exception handler: the API's expected errors answer in DRF's shapes; a bug is a 500.

Races a write can lose (a row deleted while the request worked on it, a unique value taken
meanwhile, a delete blocked by links) are expected only where the services document them: the
views translate those into `NotFound`, `ConcurrentChange` or `Conflict` there. The handler adds
what is the same everywhere: Django's validation errors and 404s, request limits, an unreachable
database (503) and a transaction the database rolled back to resolve a deadlock (409).
"""

import logging
import re

from django.conf import settings
from django.core.exceptions import (
    DisallowedHost,
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import InterfaceError, OperationalError
from django.db.models import ProtectedError, RestrictedError
from django.http import Http404, JsonResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.views import exception_handler as drf_exception_handler

try:  # Django's Redis cache (REDIS_URL) raises redis-py's errors when Redis cannot be reached.
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    CACHE_ERRORS: tuple[type[Exception], ...] = (RedisConnectionError, RedisTimeoutError)
except ImportError:  # pragma: no cover
    CACHE_ERRORS = ()

logger = logging.getLogger("fruitcatalog.database")

# BrAPI's calls (`brapi`) and its 404s: their errors are in BrAPI's envelope.
BRAPI_PATH = re.compile(r"/brapi(/|$)")
# How long a client should wait before retrying while the database is unreachable.
RETRY_AFTER_SECONDS = 5
# SQLSTATE classes of a transaction the database rolled back to resolve a race (serialization
# failure, deadlock): the request lost the race and may simply be repeated.
RACE_SQLSTATES = ("40001", "40P01")


class UploadTooLarge(exceptions.APIException):
    """The request body is larger than a limit (the upload limit, Django's memory limit)."""

    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "upload_too_large"

    def __init__(self, limit: int):
        super().__init__(
            _("The request body is larger than the limit of %(limit)s bytes.") % {"limit": limit}
        )


class Conflict(exceptions.APIException):
    """The change would lose linked data."""

    status_code = status.HTTP_409_CONFLICT
    default_detail = gettext_lazy("The change would lose linked data.")
    default_code = "conflict"


class ConcurrentChange(Conflict):
    """The write lost a race the row locks do not order (two inserts of one unique value at
    once, a deadlock): the database kept nothing of it, and it may simply be sent again."""

    default_detail = gettext_lazy("The change conflicts with a concurrent change; try it again.")


def protection_message(error: ProtectedError | RestrictedError) -> str:
    """Name what blocks a delete, e.g. the publications that link a fruit.

    The blocking model's queryset may offer `conflict_labels()` to name the rows without loading
    them whole (a publication row holds its cover bytes); otherwise `str()` of each row is used.
    """
    blocking = list(
        error.protected_objects if isinstance(error, ProtectedError) else error.restricted_objects
    )
    if not blocking:
        return str(Conflict.default_detail)
    queryset = type(blocking[0])._default_manager.filter(pk__in=[obj.pk for obj in blocking])
    if hasattr(queryset, "conflict_labels"):
        labels = queryset.conflict_labels()
    else:
        labels = [str(obj) for obj in blocking]
    names = ", ".join(sorted({str(label) for label in labels}))
    return _("It is still linked by %(names)s; remove those links first.") % {"names": names}


class DatabaseUnavailable(exceptions.APIException):
    """The database cannot be reached (down, restarting, or out of connections)."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = gettext_lazy("The database is unavailable; try again shortly.")
    default_code = "database_unavailable"


def is_lost_race(error: Exception) -> bool:
    """Whether a database error is the database resolving a race (deadlock, serialization)."""
    return getattr(error.__cause__, "sqlstate", None) in RACE_SQLSTATES


def is_unavailable(error: Exception) -> bool:
    """Whether the database (not a lost race) or the shared cache (Redis) cannot be reached."""
    if isinstance(error, CACHE_ERRORS):
        return True
    return isinstance(error, (OperationalError, InterfaceError)) and not is_lost_race(error)


def log_unavailable(error: Exception, path: str) -> None:
    """Log an unreachable database or cache in one line (no traceback)."""
    first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
    what = "Cache" if isinstance(error, CACHE_ERRORS) else "Database"
    logger.warning("%s unavailable for %s: %s", what, path, first_line)


def database_error_response(error: Exception, path: str, *, request=None) -> JsonResponse:
    """The API's 503 of an unreachable database or cache, logged in one line; in BrAPI's
    envelope for a request under /brapi/ (`error_body`)."""
    log_unavailable(error, path)
    detail = str(
        _("The service's cache is unavailable; try again shortly.")
        if isinstance(error, CACHE_ERRORS)
        else DatabaseUnavailable.default_detail
    )
    response = JsonResponse(error_body(detail, request), status=503)
    response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def exception_handler(exc, context):
    """DRF's handler, plus Django's validation, 404, lost race, database and request errors.

    Anything else (an `IntegrityError` or `DoesNotExist` no view expected among them) is left
    to Django: a 500, logged with its traceback.
    """
    if is_unavailable(exc):
        request = context.get("request")
        path = request.path if request is not None else ""
        return database_error_response(exc, path, request=request)
    if is_lost_race(exc):
        exc = ConcurrentChange()
    elif isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(
            exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        )
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()  # one message for every 404, as the API documents
    elif isinstance(exc, SuspiciousOperation):
        exc = refusal(exc)
    elif isinstance(exc, exceptions.UnsupportedMediaType) and context.get("view") is not None:
        exc = unsupported_media_type(exc, context["view"])
    return drf_exception_handler(exc, context)


def refusal(error: Exception) -> exceptions.APIException:
    """The answer to a request Django refused (`SuspiciousOperation`, `BadRequest`): a 413 for a
    body over Django's limit, else a 400 saying what was wrong. Django's own messages for too
    many fields and an unknown host name its settings, which are no business of the client's."""
    if isinstance(error, RequestDataTooBig):
        return UploadTooLarge(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    if isinstance(error, TooManyFieldsSent):
        return exceptions.ParseError(
            _(
                "The request has more than %(max)s parameters (query parameters and form fields "
                "together)."
            )
            % {"max": f"{settings.DATA_UPLOAD_MAX_NUMBER_FIELDS:,}"}
        )
    if isinstance(error, TooManyFilesSent):
        return exceptions.ParseError(
            _("The request has more than %(max)s files.")
            % {"max": f"{settings.DATA_UPLOAD_MAX_NUMBER_FILES:,}"}
        )
    if isinstance(error, DisallowedHost):
        return exceptions.ParseError(_("The Host header names no host this service answers for."))
    return exceptions.ParseError(str(error) or _("Bad request."))


def unsupported_media_type(exc, view) -> exceptions.UnsupportedMediaType:
    """DRF's 415, saying which types the route takes (a body sent without one said nothing)."""
    accepted = ", ".join(parser.media_type for parser in view.get_parsers())
    sent = view.request.content_type if getattr(view, "request", None) is not None else ""
    what = f'"{sent}"' if sent else _("a body without a Content-Type")
    return exceptions.UnsupportedMediaType(
        sent,
        detail=_("Unsupported media type: %(sent)s. This route takes %(accepted)s.")
        % {"sent": what, "accepted": accepted},
    )


def is_brapi(request) -> bool:
    """Whether the request is to BrAPI's calls (/brapi/), which answer errors in BrAPI's
    envelope rather than DRF's `{"detail": ...}`."""
    return request is not None and BRAPI_PATH.match(request.path_info) is not None


def is_json_path(request) -> bool:
    """Whether errors outside the views answer JSON (the API and BrAPI) rather than pages."""
    return request.path_info.startswith("/api/") or is_brapi(request)


def messages_of(detail) -> list[str]:
    """The texts of a DRF error body (`{"detail": ...}`, a field's list, a list)."""
    if isinstance(detail, dict):
        if set(detail) == {"detail"}:
            return messages_of(detail["detail"])
        return [
            f"{field}: {text}" for field, value in detail.items() for text in messages_of(value)
        ]
    if isinstance(detail, list):
        return [text for item in detail for text in messages_of(item)]
    return [str(detail)]


def brapi_error_body(messages: list[str]) -> dict:
    """BrAPI's answer to a request it refuses: the messages as `ERROR`s in `metadata.status`."""
    status = [{"message": message, "messageType": "ERROR"} for message in messages]
    return {"metadata": {"datafiles": [], "status": status}}


def error_body(detail, request=None) -> dict:
    """An error's body: DRF's `{"detail": ...}`, or BrAPI's envelope under /brapi/."""
    return brapi_error_body(messages_of(detail)) if is_brapi(request) else {"detail": detail}


def error_response(error: exceptions.APIException, request=None) -> JsonResponse:
    """A DRF error as DRF would answer it (BrAPI's envelope under /brapi/), for answers made
    outside DRF's views."""
    return JsonResponse(error_body(error.detail, request), status=error.status_code)


@csrf_exempt
def json_not_found(request, *args, **kwargs):
    """Any unknown path under /api/: DRF's JSON 404, whatever the method."""
    return error_response(exceptions.NotFound())
