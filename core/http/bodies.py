"""What a request may send: a body cap on every route, chunked bodies read within it, no NUL bytes.

`RequestGuardMiddleware` runs before any view (and before the CSRF check, which reads forms):

- Every route has a body cap, answered with 413 before the body is read when `Content-Length`
  says so: the upload limit on upload routes (views whose class sets `accepts_uploads`), four
  uploads' worth on the admin's model pages (a change form may carry several inline images),
  and `FRUITCATALOG_MAX_BODY_BYTES` everywhere else (token, login forms, JSON writes).
- A chunked body (no `Content-Length`, as gunicorn hands it over marked `wsgi.input_terminated`)
  is read up to the cap + 1 byte: 413 when over, otherwise handed to Django with its length
  (Django alone would see an empty body).
- A NUL byte in the query string is a 400: no parameter of this service can contain one, and
  PostgreSQL refuses them in text (a 500 where a filter or the admin's search passed one on).
"""

import io

from django.conf import settings
from django.core.exceptions import SuspiciousOperation
from django.core.handlers.wsgi import LimitedStream
from django.utils.translation import gettext as _
from django.views.defaults import bad_request
from rest_framework.exceptions import ParseError

from core.rest.exceptions import UploadTooLarge, error_response, is_json_path

ADMIN_UPLOADS_PER_REQUEST = 4


def body_limit(view_func) -> int:
    """The largest body the view takes, in bytes."""
    if getattr(getattr(view_func, "cls", None), "accepts_uploads", False):
        return settings.FRUITCATALOG_MAX_UPLOAD_BYTES
    if hasattr(view_func, "model_admin"):  # the admin's add and change pages
        return max(
            settings.FRUITCATALOG_MAX_UPLOAD_BYTES * ADMIN_UPLOADS_PER_REQUEST,
            settings.FRUITCATALOG_MAX_BODY_BYTES,
        )
    return settings.FRUITCATALOG_MAX_BODY_BYTES


def wants_a_page(request) -> bool:
    """Whether an error should be an HTML page: a browser navigating outside the APIs."""
    return not is_json_path(request) and "text/html" in request.headers.get("Accept", "")


class RequestGuardMiddleware:
    """Refuse what no view should see: bodies over the route's cap, NUL bytes in parameters."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if any(
            "\x00" in key or any("\x00" in value for value in values)
            for key, values in request.GET.lists()
        ):
            if wants_a_page(request):  # a browser's navigation: Django's 400 page (400.html)
                return bad_request(request, SuspiciousOperation("A null character in the query."))
            return error_response(ParseError(_("Null characters are not allowed.")), request)
        meta = request.META
        limit = body_limit(view_func)
        declared = meta.get("CONTENT_LENGTH")
        if declared:
            try:
                length = int(declared)
            except ValueError:
                return error_response(ParseError(_("Invalid Content-Length header.")), request)
            return error_response(UploadTooLarge(limit), request) if length > limit else None
        if (
            meta.get("wsgi.input_terminated")
            and "chunked" in meta.get("HTTP_TRANSFER_ENCODING", "").lower()
        ):
            try:
                body = meta["wsgi.input"].read(limit + 1)
            except Exception:  # the server's chunk parser: bad sizes, missing terminators, EOF
                return error_response(ParseError(_("Malformed chunked request body.")), request)
            if len(body) > limit:
                return error_response(UploadTooLarge(limit), request)
            meta["CONTENT_LENGTH"] = str(len(body))
            request._stream = LimitedStream(io.BytesIO(body), len(body))
        return None
