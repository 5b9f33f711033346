"""OpenAPI descriptions of byte bodies: uploads (multipart or raw) and byte responses."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import serializers

from fruitcatalog.blobs.responses import IMMUTABLE, REVALIDATE, VERSION_LENGTH, VERSION_PARAMETER


class ImageUploadSerializer(serializers.Serializer):
    """Multipart body of an image upload."""

    image = serializers.FileField(help_text="A JPEG, PNG, GIF or WebP image, at most 5 MiB.")


class PDFUploadSerializer(serializers.Serializer):
    """Multipart body of a PDF upload."""

    file = serializers.FileField(help_text="A PDF with at least one page, at most 5 MiB.")


IMAGE_UPLOAD_REQUEST = {
    "multipart/form-data": ImageUploadSerializer,
    "image/*": OpenApiTypes.BINARY,
    "application/octet-stream": OpenApiTypes.BINARY,
}

PDF_UPLOAD_REQUEST = {
    "multipart/form-data": PDFUploadSerializer,
    "application/pdf": OpenApiTypes.BINARY,
    "application/octet-stream": OpenApiTypes.BINARY,
}

BINARY_RESPONSE = {
    (200, "*/*"): OpenApiResponse(
        OpenApiTypes.BINARY,
        description="The stored bytes; `Content-Type` as detected from them. Strong `ETag`.",
    ),
    304: OpenApiResponse(description="Not modified: the `If-None-Match` ETag matches."),
}

CACHING = (
    "Byte URLs in response bodies carry the version of the bytes they serve (`?v=`). With the "
    f"current version the answer is `Cache-Control: {IMMUTABLE}`: new bytes get a new URL. "
    f"Without `v`, or with a version of other bytes (stale), the current bytes are served with "
    f"`Cache-Control: {REVALIDATE}` and their `ETag`, so a cache revalidates with "
    "`If-None-Match` (a 304, which reads no bytes). A stale version is not redirected: one "
    "round trip, and no cache keeps these bytes under a version that names others."
)

VERSION = OpenApiParameter(
    VERSION_PARAMETER,
    str,
    OpenApiParameter.QUERY,
    required=False,
    description=(
        f"The bytes' version: the first {VERSION_LENGTH} hex digits of their SHA-256, as the "
        "URLs in response bodies carry it. Optional; it decides caching only, never which "
        "bytes are served."
    ),
)
BYTE_RESPONSE_HEADERS = [
    OpenApiParameter(
        "ETag",
        str,
        OpenApiParameter.HEADER,
        response=[200, 304],
        required=True,
        description="The SHA-256 of the bytes, quoted.",
    ),
    OpenApiParameter(
        "Cache-Control",
        str,
        OpenApiParameter.HEADER,
        response=[200, 304],
        required=True,
        description=f"`{IMMUTABLE}` for the current version, else `{REVALIDATE}`.",
    ),
]


def byte_read_schema(*, summary: str, description: str = "", parameters=()):
    """Document a byte read: its optional version, caching headers, 200 and 304."""
    return extend_schema(
        summary=summary,
        description=f"{description} {CACHING}".strip(),
        parameters=[*parameters, VERSION, *BYTE_RESPONSE_HEADERS],
        responses=BINARY_RESPONSE,
    )


def image_viewset_schema(*, image_id, list_summary: str, create):
    """Document a `ThumbnailedImageViewSet`: its list, upload (`create`), bytes and thumbnail."""
    return extend_schema_view(
        list=extend_schema(summary=list_summary),
        create=create,
        retrieve=byte_read_schema(summary="Get the image bytes", parameters=[image_id]),
        destroy=extend_schema(
            summary="Delete an image", parameters=[image_id], responses={204: None}
        ),
        thumbnail=byte_read_schema(
            summary="Get the JPEG thumbnail (the full image when it has none)",
            description="Its version is that of the bytes served: the thumbnail's, or the image's.",
            parameters=[image_id],
        ),
    )
