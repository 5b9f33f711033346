"""Request parsers that never turn bad input into a 500."""

from django.conf import settings
from rest_framework import parsers
from rest_framework.exceptions import APIException, ParseError


class SafeJSONParser(parsers.JSONParser):
    """DRF's JSON parser, also turning absurdly deep nesting (RecursionError) into a 400."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nesting too deep.") from None


class UploadTooLarge(APIException):
    """The request body is larger than a limit (the upload limit, Django's memory limit)."""

    status_code = 413
    default_code = "upload_too_large"

    def __init__(self, limit: int):
        super().__init__(f"The request body is larger than the limit of {limit} bytes.")


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
