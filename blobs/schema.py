"""OpenAPI descriptions of byte bodies: uploads (multipart or raw) and byte responses."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import serializers

from blobs.responses import IMMUTABLE, REVALIDATE, VERSION_LENGTH, VERSION_PARAMETER
from blobs.serializers import ImageDetailsSerializer


class ImageUploadSerializer(ImageDetailsSerializer):
    """Multipart body of an image upload: the file and, optionally, the image's details."""

    image = serializers.FileField(help_text="A JPEG, PNG, GIF or WebP image, at most 5 MiB.")


class PDFUploadSerializer(serializers.Serializer):
    """Multipart body of a PDF upload."""

    file = serializers.FileField(help_text="A PDF with at least one page, at most 5 MiB.")


# Uploads are declared as multipart or raw bytes (`application/octet-stream`), the two forms
# generated clients understand. The raw bytes may also be sent with their own type (`image/png`,
# `application/pdf`...): the bytes decide the type in every case, as the descriptions say.
IMAGE_UPLOAD_REQUEST = {
    "multipart/form-data": ImageUploadSerializer,
    "application/octet-stream": OpenApiTypes.BINARY,
}
IMAGE_UPLOAD_NOTE = (
    "Multipart field `image` (with the image's details as further fields, all optional), or the "
    "raw bytes as `application/octet-stream` (or with their own type: `image/jpeg`, "
    "`image/png`, `image/gif`, `image/webp`); the bytes decide the type. Bytes the parent "
    "already has as an image are a 409 whose `image_id` names that image; nothing is stored."
)

PDF_UPLOAD_REQUEST = {
    "multipart/form-data": PDFUploadSerializer,
    "application/octet-stream": OpenApiTypes.BINARY,
}

IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
PDF_TYPES = ("application/pdf",)


def binary_response(media_types: tuple[str, ...]) -> dict:
    """A byte read's 200 (each type it serves, and `application/octet-stream`) and its 304.

    The bytes are served with the type detected from them whatever the client accepts;
    `application/octet-stream` is listed too because generated clients read that as bytes.
    """
    described = OpenApiResponse(
        OpenApiTypes.BINARY,
        description=(
            "The stored bytes; `Content-Type` as detected from them, strong `ETag`. `HEAD` "
            "answers the same headers without a body."
        ),
    )
    served = (*media_types, "application/octet-stream")
    return {
        **{(200, media_type): described for media_type in served},
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


def byte_read_schema(
    *, summary: str, description: str = "", parameters=(), media_types=IMAGE_TYPES
):
    """Document a byte read: its optional version, caching headers, 200 (its types) and 304."""
    return extend_schema(
        summary=summary,
        description=f"{description} {CACHING}".strip(),
        parameters=[*parameters, VERSION, *BYTE_RESPONSE_HEADERS],
        responses=binary_response(media_types),
    )


def image_viewset_schema(*, image_id, list_summary: str, create, serializer):
    """Document a `ThumbnailedImageViewSet`: its list, upload (`create`), bytes, thumbnail and
    details (`serializer`: the image's representation)."""
    return extend_schema_view(
        list=extend_schema(summary=list_summary),
        create=create,
        retrieve=byte_read_schema(summary="Get the image bytes", parameters=[image_id]),
        destroy=extend_schema(
            summary="Delete an image", parameters=[image_id], responses={204: None}
        ),
        partial_update=extend_schema(
            summary="Change an image's details (alt text, role, creator, source, licence)",
            description="JSON; the fields sent change. A `GET` on the same path serves the bytes.",
            parameters=[image_id],
            request=ImageDetailsSerializer,
            responses=serializer,
        ),
        thumbnail=byte_read_schema(
            summary="Get the JPEG thumbnail (the full image when it has none)",
            description=(
                "`image/jpeg`; an image stored without a thumbnail serves its own bytes and type. "
                "Its version is that of the bytes served: the thumbnail's, or the image's."
            ),
            parameters=[image_id],
        ),
    )
