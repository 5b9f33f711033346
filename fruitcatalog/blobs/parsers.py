"""Parsers of upload bodies: multipart or raw bytes, within the upload limit."""

from django.conf import settings
from rest_framework import parsers
from rest_framework.exceptions import ParseError

from fruitcatalog.exceptions import UploadTooLarge


def upload_limit() -> int:
    """The upload body limit in bytes."""
    return settings.FRUITCATALOG_MAX_UPLOAD_BYTES


def check_declared_length(request) -> None:
    """Reject a body whose `Content-Length` already exceeds the limit, before reading any of it."""
    limit = upload_limit()
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        raise ParseError("Invalid Content-Length header.") from None
    if declared > limit:
        raise UploadTooLarge(limit)


class LimitedMultiPartParser(parsers.MultiPartParser):
    """Multipart parser that enforces the upload limit on the whole body, overhead included."""

    def parse(self, stream, media_type=None, parser_context=None):
        check_declared_length(parser_context["request"])
        return super().parse(stream, media_type, parser_context)


class RawBytesParser(parsers.BaseParser):
    """A raw body of the route's media type, read as bytes up to the upload limit."""

    media_type = "application/octet-stream"

    def parse(self, stream, media_type=None, parser_context=None):
        check_declared_length(parser_context["request"])
        if stream is None:
            return b""
        limit = upload_limit()
        # Read one byte past the limit: a body without a trustworthy length is caught here too.
        data = stream.read(limit + 1)
        if len(data) > limit:
            raise UploadTooLarge(limit)
        return data


class RawImageParser(RawBytesParser):
    """A raw image body (`image/*`)."""

    media_type = "image/*"


class RawPDFParser(RawBytesParser):
    """A raw PDF body."""

    media_type = "application/pdf"


IMAGE_UPLOAD_PARSERS = [LimitedMultiPartParser, RawImageParser, RawBytesParser]
PDF_UPLOAD_PARSERS = [LimitedMultiPartParser, RawPDFParser, RawBytesParser]
