"""OpenAPI descriptions of byte bodies: uploads (multipart or raw) and byte responses."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import serializers


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


def image_viewset_schema(*, image_id, list_summary: str, create):
    """Document a `ThumbnailedImageViewSet`: its list, upload (`create`), bytes and thumbnail."""
    return extend_schema_view(
        list=extend_schema(summary=list_summary),
        create=create,
        retrieve=extend_schema(
            summary="Get the image bytes", parameters=[image_id], responses=BINARY_RESPONSE
        ),
        destroy=extend_schema(
            summary="Delete an image", parameters=[image_id], responses={204: None}
        ),
        thumbnail=extend_schema(
            summary="Get the JPEG thumbnail (the full image when it has none)",
            parameters=[image_id],
            responses=BINARY_RESPONSE,
        ),
    )
