"""JSON pieces of stored bytes: absolute links to byte endpoints and image metadata."""

from rest_framework import serializers

IMAGE_INFO_FIELDS = [
    "id",
    "url",
    "thumbnail_url",
    "content_type",
    "size",
    "width",
    "height",
    "has_thumbnail",
    "created_at",
]
NULLABLE_URL = {"type": "string", "format": "uri", "nullable": True}


def absolute_url(serializer, path: str) -> str:
    """Absolute URL of `path` for the request being served."""
    request = serializer.context.get("request")
    return request.build_absolute_uri(path) if request is not None else path


class ThumbnailedImageSerializer(serializers.ModelSerializer):
    """Metadata and links of a stored image (never its bytes); subclasses name the model."""

    url = serializers.SerializerMethodField()
    thumbnail_url = serializers.SerializerMethodField()
    has_thumbnail = serializers.BooleanField(read_only=True)

    class Meta:
        fields = IMAGE_INFO_FIELDS
        read_only_fields = fields

    def get_url(self, image) -> str:
        return absolute_url(self, image.get_absolute_url())

    def get_thumbnail_url(self, image) -> str:
        return absolute_url(self, image.get_thumbnail_url())
