"""OpenAPI descriptions of byte bodies: uploads (multipart or raw) and byte responses."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse
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
