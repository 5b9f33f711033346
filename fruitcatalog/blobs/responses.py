"""The one builder of byte responses: images, thumbnails, covers and PDFs all go through it."""

from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.http import HttpResponse
from django.utils.http import content_disposition_header, parse_etags


@dataclass(frozen=True)
class Blob:
    """What a byte response needs; `load` reads the bytes, called only for a GET body."""

    content_type: str
    size: int
    sha256: str
    filename: str
    load: Callable[[], bytes]

    @property
    def etag(self) -> str:
        """Strong ETag: the SHA-256 of the bytes."""
        return f'"{self.sha256}"'


def _matches(if_none_match: str, etag: str) -> bool:
    # Weak comparison, as RFC 9110 asks for If-None-Match: W/"x" matches "x".
    candidates = parse_etags(if_none_match)
    return "*" in candidates or any(c.removeprefix("W/") == etag for c in candidates)


def blob_response(request, blob: Blob) -> HttpResponse:
    """200 with the bytes, 304 when `If-None-Match` matches, headers only for HEAD.

    Neither 304 nor HEAD calls `blob.load`, so they never read the byte column.
    """
    if_none_match = request.META.get("HTTP_IF_NONE_MATCH", "")
    if if_none_match and _matches(if_none_match, blob.etag):
        response = HttpResponse(status=304)
    elif request.method == "HEAD":
        response = HttpResponse(content_type=blob.content_type)
        response.headers["Content-Length"] = str(blob.size)
    else:
        data = blob.load()
        response = HttpResponse(data, content_type=blob.content_type)
        response.headers["Content-Length"] = str(len(data))
    response.headers["ETag"] = blob.etag
    response.headers["Cache-Control"] = f"public, max-age={settings.FRUITCATALOG_BINARY_MAX_AGE}"
    if response.status_code == 200:
        response.headers["Content-Disposition"] = content_disposition_header(
            as_attachment=False, filename=blob.filename
        )
        response.headers["X-Content-Type-Options"] = "nosniff"
        # Stored bytes are never a page: should a browser render one anyway, it runs nothing.
        response.headers["Content-Security-Policy"] = "default-src 'none'; sandbox"
    return response
