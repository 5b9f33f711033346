"""What fails outside DRF's views, answered in the path's language: JSON under /api/ (BrAPI's
envelope under /brapi/), the site's pages elsewhere.

A database or cache that cannot be reached is a 503. DRF's exception handler answers the API's
views (JSON). This covers everything else: the public site and the admin get an HTML 503 page in
the site's style, other paths under /api/ the API's JSON 503; both carry `Retry-After`. Views'
errors reach the middleware below (one log line, no traceback); errors of other middleware (a
session saved while logging in) reach Django's 500 handler, `server_error`, which answers them
the same way. Any other error is a bug: Django logs its traceback and `server_error` answers 500,
as JSON in DRF's shape under /api/.

A request Django refuses before any view (too many parameters, a host it does not serve, a body
over its limit) reaches Django's 400 handler, `bad_request`.
"""

import sys

from django.http import HttpResponse
from django.views import defaults
from rest_framework.exceptions import APIException

from core.rest.exceptions import (
    RETRY_AFTER_SECONDS,
    database_error_response,
    error_response,
    is_json_path,
    is_unavailable,
    log_unavailable,
    refusal,
)
from core.site.pages import render_page


def unavailable_page(request, error: Exception) -> HttpResponse:
    """The site's 503 page (rendered without touching the database), logged as the API's is."""
    log_unavailable(error, request.path)
    response = render_page(request, "503.html", {}, status=503)
    response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response.headers["Cache-Control"] = "no-store"
    return response


class DatabaseUnavailableMiddleware:
    """Answer 503 when the database (or the shared cache) is unreachable outside the API views."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not is_unavailable(exception):
            return None
        if is_json_path(request):
            return database_error_response(exception, request.path, request=request)
        return unavailable_page(request, exception)


def server_error(request):
    """Django's 500 handler: a 503 when the database or cache is what failed, else the 500."""
    error = sys.exc_info()[1]
    if error is not None and is_unavailable(error):
        if is_json_path(request):
            return database_error_response(error, request.path, request=request)
        return unavailable_page(request, error)
    if is_json_path(request):
        return error_response(APIException(), request)  # "A server error occurred."
    return defaults.server_error(request)


def bad_request(request, exception):
    """Django's 400 handler, for what Django refuses before any view (too many parameters, a
    host it does not serve, a body over its limit): DRF's JSON under /api/, the site's 400 page
    elsewhere, each saying what was wrong (a body over the limit is a 413 in both)."""
    error = refusal(exception)
    if is_json_path(request):
        return error_response(error, request)
    return render_page(request, "400.html", {"message": error.detail}, status=error.status_code)
