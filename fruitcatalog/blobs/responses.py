"""The one builder of byte responses: images, thumbnails, covers and PDFs all go through it.

Byte URLs carry a version (`?v=<first 16 hex digits of the SHA-256 of the bytes served>`,
`versioned()`), so new bytes get a new URL: what a URL with the current version serves never
changes and may be cached for good, while the bare path (or a stale version) is revalidated on
every use with its `ETag`.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.http import QueryDict
from django.utils.http import content_disposition_header, parse_etags

from fruitcatalog.fronts import Answer

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


def cache_control(query_string: str, blob: Blob) -> str:
    """`immutable` for a URL whose version names these bytes, `no-cache` for any other.

    A stale or unknown version is answered with the current bytes, not redirected to the current
    version: one round trip instead of two, and since the answer is `no-cache`, no cache pins
    these bytes under a version that names other bytes.
    """
    if _VERSION_KEY not in query_string and "%" not in query_string:
        return REVALIDATE
    requested = QueryDict(query_string).get(VERSION_PARAMETER)
    if requested is not None and requested == version_of(blob.sha256):
        return IMMUTABLE
    return REVALIDATE


# Only "v=" or a percent-encoded key ("%76=") in a query string can name a version: without
# either, parsing the query string (`request.GET`) would find none.
_VERSION_KEY = f"{VERSION_PARAMETER}="


def blob_answer(request, blob: Blob) -> Answer:
    """200 with the bytes, 304 when `If-None-Match` matches, headers only for HEAD.

    Neither 304 nor HEAD calls `blob.load`, so they never read the byte column. Caching follows
    the URL's version (`cache_control`). `request` is read for its method and `META` only.
    """
    meta = request.META
    if_none_match = meta.get("HTTP_IF_NONE_MATCH", "")
    etag = blob.etag
    caching = cache_control(meta.get("QUERY_STRING", ""), blob)
    validators = [("ETag", etag), ("Cache-Control", caching)]
    # The usual revalidation sends back the very ETag it was given: no list to parse.
    if if_none_match and (if_none_match == etag or _matches(if_none_match, etag)):
        # No Content-Type (Django's default would be text/html): a cache updating its stored
        # image with this answer's headers must not take the bytes for a page (RFC 9110 15.4.5).
        return Answer(304, validators)
    head = request.method == "HEAD"
    body = b"" if head else blob.load()
    return Answer(
        200,
        [
            ("Content-Type", blob.content_type),
            ("Content-Length", str(blob.size if head else len(body))),
            *validators,
            ("Content-Disposition", _inline(blob.filename)),
            ("X-Content-Type-Options", "nosniff"),
            # Stored bytes are never a page: should a browser render one anyway, it runs nothing.
            # Inline styles stay allowed for the browser's own image and PDF viewers (GitHub
            # sends the same for raw files); scripts, frames and everything else are refused.
            ("Content-Security-Policy", BYTES_CONTENT_SECURITY_POLICY),
        ],
        body,
    )


def _inline(filename: str) -> str:
    return content_disposition_header(as_attachment=False, filename=filename)
