"""Files built from the database and streamed: the exports' view, their caching and errors.

A file answers with `ETag` and `Last-Modified` from the newest change of what it holds, so a
harvester's conditional request is a 304 without building anything. Its URLs are absolute, built
from the request (scheme, host, script prefix), so the `ETag` names that base too: a file served
under two hosts has two, and no cache has one host's file confirmed for the other. The base is
no `Vary`: the scheme and host are in the URL, which every cache keys by (nginx's key included),
and behind a proxy the forwarded ones are those of the URL the client asked for.

A file is data, the same for every client: it is built in the default language (English) whatever
the request's, so its URLs, labels and alt texts never depend on Accept-Language, which its
`ETag` does not name.

A full build is counted against the client's export rate and bounded in time
(`FRUITCATALOG_EXPORT_SECONDS`); errors are JSON, as everywhere under `/api/`.
"""

import hashlib
import logging
from time import monotonic

from django.conf import settings
from django.http import HttpResponse, StreamingHttpResponse
from django.urls import get_script_prefix
from django.utils import translation
from django.utils.cache import get_conditional_response
from django.utils.http import http_date
from drf_spectacular.utils import OpenApiResponse
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.views import APIView

from core.rest.throttling import ExportThrottle

logger = logging.getLogger(__name__)

NOT_MODIFIED = OpenApiResponse(
    description="Not modified: `If-None-Match` or `If-Modified-Since` matches; nothing is built."
)


class ExportTooLong(Exception):
    """A streamed file outlasted its time: the connection is cut (the file ends unfinished)."""


def within(pieces, seconds: float, path: str):
    """The pieces of a streamed file, until `seconds` have passed: then it is cut off, below
    gunicorn's worker timeout, rather than the worker killed with it."""
    end = monotonic() + seconds
    for piece in pieces:
        yield piece
        if monotonic() > end:
            logger.error(
                "%s outlasted %s s and was cut off; raise it or narrow the export", path, seconds
            )
            raise ExportTooLong(path)


def in_default_language(pieces):
    """The pieces of a streamed file, built in the default language (see the module)."""
    with translation.override(settings.LANGUAGE_CODE):
        yield from pieces


class FileRenderer(BaseRenderer):
    """Lets a streamed file through as it is (content negotiation: the file's own type)."""

    media_type = "*/*"
    format = "file"
    charset = None

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return data


class StreamedFileView(APIView):
    """A public file built from the database, streamed, cacheable by revalidation.

    Subclasses name `media_type` and `filename`, and give `last_modified(request)` (the newest
    change, None for an empty catalog), `version_key(request)` (what besides the date and the
    URLs' base decides the content: the filters, settings the file states) and
    `stream(request)` (the file's bytes, in pieces).
    """

    authentication_classes = []  # public: the same file for everyone
    permission_classes = []
    throttle_classes = []  # full builds only: see `get`
    renderer_classes = [FileRenderer]
    media_type = "application/octet-stream"
    filename = "export"

    def handle_exception(self, exc):
        # The answer to an error is JSON whatever the file's type.
        self.request.accepted_renderer = JSONRenderer()
        self.request.accepted_media_type = JSONRenderer.media_type
        return super().handle_exception(exc)

    def last_modified(self, request):
        raise NotImplementedError

    def version_key(self, request) -> str:
        return ""

    def stream(self, request):
        raise NotImplementedError

    def get(self, request, *args, **kwargs):
        key = self.version_key(request)  # validates the parameters (a 400) before anything
        changed = self.last_modified(request)
        stamp = changed.isoformat() if changed else "empty"
        base = request.build_absolute_uri(get_script_prefix())
        version = f"{stamp}\n{base}\n{key}"
        etag = '"' + hashlib.sha256(version.encode()).hexdigest()[:32] + '"'
        validators = {"ETag": etag, "Cache-Control": "public, no-cache"}  # caches revalidate
        timestamp = int(changed.timestamp()) if changed else None
        if timestamp is not None:
            validators["Last-Modified"] = http_date(timestamp)
        # A 304 keeps the validators, as the byte responses' do (`blob_response`).
        conditional = get_conditional_response(
            request, etag=etag, last_modified=timestamp, response=HttpResponse(headers=validators)
        )
        if conditional.status_code != 200:
            return conditional
        throttle = ExportThrottle()
        if not throttle.allow_request(request, self):
            self.throttled(request, throttle.wait())
        with translation.override(settings.LANGUAGE_CODE):
            stream = self.stream(request)
        pieces = within(
            in_default_language(stream), settings.FRUITCATALOG_EXPORT_SECONDS, request.path
        )
        response = StreamingHttpResponse(pieces, content_type=self.media_type, headers=validators)
        response["Content-Disposition"] = f'attachment; filename="{self.filename}"'
        return response
