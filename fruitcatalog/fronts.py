"""What a WSGI front keeps of Django's stack, for the reads it answers before Django's handler.

The service's most frequent reads — a thumbnail's revalidation, the fruit list's first page —
cost more inside Django's handler than their queries: the handler sends its request signals
(each walking every database connection and cache), builds a `WSGIRequest` and an
`HttpResponse` and passes them through the middleware stack. A front (`ReadFront`) answers such
a read with what it needs, as an `Answer` (status, headers, body), and hands every other
request on. The service's WSGI application (`fruitcatalog.wsgi`) is two fronts around Django's:
byte reads (`fruitcatalog.blobs.wsgi`) and the list's plain pages (`fruitcatalog.listreads`).

Every front keeps these rules of the Django stack's answer:

- the same headers: the answer's own, the front's (`own_headers()`) and the security headers as
  Django's `SecurityMiddleware` computes them (asked once per process and scheme, and again when
  a setting changes);
- the database connection's upkeep of Django's request signals: a persistent connection whose
  age is over `CONN_MAX_AGE` or that saw errors is closed, before and after the read;
- 4xx and 5xx answers logged as Django's handler logs them;
- anything else — a disallowed host, an HTTPS redirect, a script prefix (`SCRIPT_NAME`,
  `FORCE_SCRIPT_NAME`), `PREPEND_WWW` or `DISALLOWED_USER_AGENTS` set, a query string over
  Django's limits, a lost race, an unexpected error — goes to Django's handler, which answers
  it as it always has (an unexpected error is logged first: a failing front must show).
"""

import logging
from dataclasses import dataclass
from http import HTTPStatus

from django.conf import settings
from django.core.exceptions import DisallowedHost, SuspiciousOperation
from django.core.handlers.wsgi import WSGIRequest, get_script_name
from django.core.signals import setting_changed
from django.db import DEFAULT_DB_ALIAS, InterfaceError, OperationalError, connections
from django.http import HttpResponse, HttpResponseNotModified
from django.middleware.clickjacking import XFrameOptionsMiddleware
from django.middleware.security import SecurityMiddleware
from django.urls import set_script_prefix
from django.utils.log import log_response

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Answer:
    """A response as status, headers and body: what a front sends, and `blob_answer` builds."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes = b""


def as_answer(response: HttpResponse) -> Answer:
    """A Django response (a JSON error) as an `Answer`."""
    return Answer(response.status_code, list(response.items()), response.content)


def http_response(answer: Answer) -> HttpResponse:
    """An `Answer` as a Django response (a 304 without Django's default `Content-Type`)."""
    if answer.status == 304:
        response = HttpResponseNotModified()
    else:
        response = HttpResponse(answer.body, status=answer.status)
    headers = response.headers
    for name, value in answer.headers:
        headers[name] = value
    return response


def frame_options_header() -> tuple[str, str]:
    """`X-Frame-Options` as Django's `XFrameOptionsMiddleware` sends it (a front skips it)."""
    middleware = XFrameOptionsMiddleware(lambda request: None)
    return ("X-Frame-Options", middleware.get_xframe_options_value(None, None))


class ReadFront:
    """A WSGI front: the reads it answers itself, with Django's rules; the rest by `application`.

    What every front keeps of the Django stack (the module docstring): the host check, the
    HTTPS redirect and the script prefix, the connection's upkeep, the logging of 4xx and 5xx
    answers, the security headers. A subclass finds its reads in `__call__` and answers them
    through `serve()`.
    """

    def __init__(self, application):
        self.application = application
        # Headers every answer gets, by whether the request came over HTTPS (`_headers`).
        self._extra: dict[bool, list[tuple[str, str]]] = {}
        setting_changed.connect(self._forget_headers)

    def own_headers(self) -> list[tuple[str, str]]:
        """Headers this front's answers all carry besides their own and the security ones."""
        return []

    def serve(self, environ, start_response, respond):
        """`respond(request)`'s answer (an `Answer`, or None for Django's handler) sent."""
        if get_script_name(environ):  # served under a prefix: Django's handler sets it
            return self.application(environ, start_response)
        try:
            set_script_prefix("/")  # for reverse(), as Django's handler sets it per request
            answer = self._answer(WSGIRequest(environ), respond)
        except SuspiciousOperation:  # Django answers (400) and logs it as a security event
            answer = None
        except Exception:  # Django's handler answers it as usual; a failing front must show
            logger.exception(
                "%s failed for %s; Django's handler answers",
                type(self).__name__,
                environ.get("PATH_INFO", ""),
            )
            answer = None
        if answer is None:
            return self.application(environ, start_response)
        start_response(f"{answer.status} {HTTPStatus(answer.status).phrase}", answer.headers)
        return [answer.body]

    def _answer(self, request, respond) -> Answer | None:
        """The read's answer with every header, or None for Django's handler to answer."""
        secure = request.is_secure()
        if settings.SECURE_SSL_REDIRECT and not secure:
            return None
        if settings.PREPEND_WWW or settings.DISALLOWED_USER_AGENTS:  # CommonMiddleware's rules
            return None
        try:
            request.get_host()  # ALLOWED_HOSTS
        except DisallowedHost:
            return None
        db = connections[DEFAULT_DB_ALIAS]
        if not db.force_debug_cursor:  # what request_started does (a test's capture holds it)
            db.queries_log.clear()
        _upkeep(db)  # and close_old_connections()
        try:
            answer = respond(request)
        except (OperationalError, InterfaceError):  # not answered by the read (a lost race)
            return None
        finally:
            _upkeep(db)  # and request_finished
        if answer is None:
            return None
        if answer.status >= 400:  # a 404 or 503, logged as Django's handler logs them
            response = http_response(answer)
            log_response(
                "%s: %s", response.reason_phrase, request.path, response=response, request=request
            )
        present = {name.lower() for name, _ in answer.headers}
        extra = self._headers(request, secure)
        answer.headers.extend(header for header in extra if header[0].lower() not in present)
        return answer

    def _headers(self, request, secure: bool) -> list[tuple[str, str]]:
        """`own_headers()` and what `SecurityMiddleware` adds to an answer for this scheme."""
        extra = self._extra.get(secure)
        if extra is None:
            response = HttpResponse()
            del response.headers["Content-Type"]
            SecurityMiddleware(lambda request: response).process_response(request, response)
            extra = self._extra[secure] = [*self.own_headers(), *response.items()]
        return extra

    def _forget_headers(self, **kwargs) -> None:
        self._extra = {}


def _upkeep(db) -> None:
    """Close the connection if it is past `CONN_MAX_AGE` or broken, as Django's signals do.

    Never inside a transaction: none is open between requests, but a test's transaction may be
    (Django's test client holds the same upkeep back for it).
    """
    if not db.in_atomic_block:
        db.close_if_unusable_or_obsolete()
