"""Parsers of upload bodies: multipart, or the raw bytes of the route's media type.

The body's size is not theirs to check: `core.http.bodies.RequestGuardMiddleware` caps every
route's body (the upload limit on upload routes) before any parser reads it.
"""

from rest_framework import parsers


class RawBytesParser(parsers.BaseParser):
    """A raw body of the route's media type, read as bytes."""

    media_type = "application/octet-stream"

    def parse(self, stream, media_type=None, parser_context=None):
        return b"" if stream is None else stream.read()


class RawImageParser(RawBytesParser):
    """A raw image body (`image/*`)."""

    media_type = "image/*"


class RawPDFParser(RawBytesParser):
    """A raw PDF body."""

    media_type = "application/pdf"


class RawCSVParser(RawBytesParser):
    """A raw CSV body (`text/csv`), read as bytes: the importer decodes it."""

    media_type = "text/csv"


IMAGE_UPLOAD_PARSERS = [parsers.MultiPartParser, RawImageParser, RawBytesParser]
PDF_UPLOAD_PARSERS = [parsers.MultiPartParser, RawPDFParser, RawBytesParser]
SPREADSHEET_UPLOAD_PARSERS = [parsers.MultiPartParser, RawCSVParser, RawBytesParser]
