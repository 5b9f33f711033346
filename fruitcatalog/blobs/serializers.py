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
    "thumbnail_width",
    "thumbnail_height",
    "created_at",
]
NULLABLE_URL = {"type": "string", "format": "uri", "nullable": True}
# What every byte URL in a body says about caching (fruitcatalog.blobs.responses).
VERSIONED = (
    "It carries the content's version (`?v=`), so new bytes get a new URL and this one may be "
    "cached for good."
)


def absolute_url(serializer, path: str) -> str:
    """Absolute URL of `path` for the request being served."""
    request = serializer.context.get("request")
    return request.build_absolute_uri(path) if request is not None else path


class ThumbnailedImageSerializer(serializers.ModelSerializer):
    """Metadata and links of a stored image (never its bytes); subclasses name the model."""

    url = serializers.SerializerMethodField(help_text=f"The image's bytes. {VERSIONED}")
    thumbnail_url = serializers.SerializerMethodField(
        help_text=f"The JPEG thumbnail (the image itself while it has none). {VERSIONED}"
    )
    has_thumbnail = serializers.BooleanField(read_only=True)
    thumbnail_width = serializers.SerializerMethodField(
        help_text="Width in pixels of what `thumbnail_url` serves, for `<img width>`."
    )
    thumbnail_height = serializers.SerializerMethodField(
        help_text="Height in pixels of what `thumbnail_url` serves, for `<img height>`."
    )

    class Meta:
        fields = IMAGE_INFO_FIELDS
        read_only_fields = fields

    def get_url(self, image) -> str:
        return absolute_url(self, image.get_data_url())

    def get_thumbnail_url(self, image) -> str:
        return absolute_url(self, image.get_thumbnail_url())

    def get_thumbnail_width(self, image) -> int:
        return image.thumbnail_dimensions[0]

    def get_thumbnail_height(self, image) -> int:
        return image.thumbnail_dimensions[1]
