"""The one builder of byte responses: images, thumbnails, covers and PDFs all go through it.

Byte URLs carry a version (`?v=<first 16 hex digits of the SHA-256 of the bytes served>`,
`versioned()`), so new bytes get a new URL: what a URL with the current version serves never
changes and may be cached for good, while the bare path (or a stale version) is revalidated on
every use with its `ETag`.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.http import HttpResponse, JsonResponse, QueryDict
from django.utils.cache import get_conditional_response
from django.utils.http import content_disposition_header
from django.utils.translation import gettext as _

VERSION_PARAMETER = "v"
# 64 bits of the hash: a collision between two versions of one URL is out of reach, and the URL
# stays short.
VERSION_LENGTH = 16
# A year, the longest lifetime caches are asked to honour; `immutable` spares browsers the
# revalidation on reload. Only for a URL whose version names the bytes it serves.
IMMUTABLE = "public, max-age=31536000, immutable"
# Anything else may be stored, but must be revalidated (a 304 that reads no bytes) before use.
REVALIDATE = "no-cache"


def version_of(sha256: str) -> str:
    """The version of bytes with this SHA-256 (hex), as byte URLs carry it."""
    return sha256[:VERSION_LENGTH]


def versioned(path: str, sha256: str) -> str:
    """`path` with the version of the bytes it serves (`?v=...`); as it is without a hash."""
    if not sha256:
        return path
    separator = "&" if "?" in path else "?"
    return f"{path}{separator}{VERSION_PARAMETER}={version_of(sha256)}"


BYTES_CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox"


@dataclass(frozen=True)
class Blob:
    """What a byte response needs; `load` reads the bytes (None when they are gone since)."""

    content_type: str
    size: int
    sha256: str
    filename: str
    load: Callable[[], bytes | None]

    @property
    def etag(self) -> str:
        """Strong ETag: the SHA-256 of the bytes."""
        return f'"{self.sha256}"'


def cache_control(query_string: str, blob: Blob) -> str:
    """`immutable` for a URL whose version names these bytes, `no-cache` for any other.

    A stale or unknown version is answered with the current bytes, not redirected to the current
    version: one round trip instead of two, and since the answer is `no-cache`, no cache pins
    these bytes under a version that names other bytes.
    """
    requested = QueryDict(query_string).get(VERSION_PARAMETER)
    if requested is not None and requested == version_of(blob.sha256):
        return IMMUTABLE
    return REVALIDATE


def blob_response(request, blob: Blob) -> HttpResponse | None:
    """200 with the bytes, 304 when `If-None-Match` matches, headers only for HEAD.

    Neither 304 nor HEAD calls `blob.load`, so they never read the byte column. Caching follows
    the URL's version (`cache_control`). None when the bytes are gone by the time a body is
    read (the caller's 404).
    """
    validators = {
        "ETag": blob.etag,
        "Cache-Control": cache_control(request.META.get("QUERY_STRING", ""), blob),
    }
    # Django's conditional GET (RFC 9110: weak comparison, lists, `*`): a 304 that keeps the
    # validators and has no Content-Type, so a cache never takes the bytes for a page.
    conditional = get_conditional_response(
        request, etag=blob.etag, response=HttpResponse(headers=validators)
    )
    if conditional.status_code == 412:
        if "HTTP_IF_MATCH" in request.META:
            return JsonResponse(
                {"detail": _("Precondition failed: If-Match names other bytes.")},
                status=412,
                headers=validators,
            )
        # Stored bytes have no modification date, so If-Unmodified-Since is ignored (RFC 9110
        # 13.1.4); Django's helper fails it instead.
    elif conditional.status_code != 200:
        return conditional
    body = b"" if request.method == "HEAD" else blob.load()
    if body is None:
        return None
    return HttpResponse(
        body,
        headers={
            "Content-Type": blob.content_type,
            "Content-Length": str(blob.size if request.method == "HEAD" else len(body)),
            **validators,
            "Content-Disposition": content_disposition_header(
                as_attachment=False, filename=blob.filename
            ),
            "X-Content-Type-Options": "nosniff",
            # Stored bytes are never a page: should a browser render one anyway, it runs nothing.
            # Inline styles stay allowed for the browser's own image and PDF viewers (GitHub
            # sends the same for raw files); scripts, frames and everything else are refused.
            "Content-Security-Policy": BYTES_CONTENT_SECURITY_POLICY,
        },
    )
