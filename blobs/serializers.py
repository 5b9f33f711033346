"""JSON pieces of stored bytes: absolute links to byte endpoints and image metadata."""

from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from blobs.rights import (
    ALT_TEXT_MAX,
    CREATOR_MAX,
    SOURCE_MAX,
    ImageRole,
    License,
    validate_attribution,
)
from core.rest.fields import TextField

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
    "alt_text",
    "role",
    "creator",
    "source",
    "license",
    "license_url",
    "created_at",
]
NULLABLE_URL = {"type": "string", "format": "uri", "nullable": True}
# What every byte URL in a body says about caching (blobs.responses).
VERSIONED = (
    "It carries the content's version (`?v=`), so new bytes get a new URL and this one may be "
    "cached for good."
)


def absolute_url(serializer, path: str) -> str:
    """Absolute URL of `path` for the request being served."""
    request = serializer.context.get("request")
    return request.build_absolute_uri(path) if request is not None else path


LICENSE_HELP = (
    '`""` (unknown) or one of: '
    + ", ".join(f"`{code}`" for code in License.values)
    + ". The Creative Commons licences and CC0 have a deed (`license_url`). The `CC-BY-…` "
    "licences require attribution: writing one needs a `creator`."
)


ALT_TEXT_HELP = (
    f"What the image shows, for people who cannot see it; up to {ALT_TEXT_MAX} characters, "
    '"" when empty (pages then say "{fruit name}, {role}").'
)


class ImageDetailsSerializer(serializers.Serializer):
    """What an image shows and who may use it: the fields an upload may send and `PATCH` changes.

    Every field is optional; text is trimmed and `""` when empty (`null` is not accepted). A
    `PATCH` passes the image as the instance, so a licence that requires attribution is checked
    against the creator it keeps.
    """

    alt_text = TextField(
        max_length=ALT_TEXT_MAX,
        allow_blank=True,
        required=False,
        help_text=ALT_TEXT_HELP,
    )
    role = serializers.ChoiceField(
        choices=ImageRole.choices,
        required=False,
        help_text="What the image shows; `fruit` by default.",
    )
    creator = TextField(
        max_length=CREATOR_MAX,
        allow_blank=True,
        required=False,
        help_text=(
            f"Who made the photo or drawing, up to {CREATOR_MAX} characters. Required with a "
            "licence that requires attribution (every `CC-BY-…`): a write setting such a "
            "licence, or emptying the creator under one, is a 400 naming `creator`."
        ),
    )
    source = TextField(
        max_length=SOURCE_MAX,
        allow_blank=True,
        required=False,
        help_text=(
            f"Where it comes from (a book and plate, an archive, a URL), up to {SOURCE_MAX} "
            "characters."
        ),
    )
    license = serializers.ChoiceField(
        choices=[("", "Unknown"), *License.choices],
        allow_blank=True,
        required=False,
        help_text=LICENSE_HELP,
    )

    def validate(self, attrs):
        stored = self.instance
        try:
            validate_attribution(
                license=attrs.get("license", getattr(stored, "license", "")),
                creator=attrs.get("creator", getattr(stored, "creator", "")),
                changed=attrs,
            )
        except DjangoValidationError as error:
            raise serializers.ValidationError({"creator": error.messages}) from None
        return attrs


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
    alt_text = serializers.CharField(read_only=True, help_text=ALT_TEXT_HELP)
    role = serializers.ChoiceField(
        choices=ImageRole.choices, read_only=True, help_text="What the image shows."
    )
    creator = serializers.CharField(read_only=True, help_text="Who made the photo or drawing.")
    source = serializers.CharField(read_only=True, help_text="Where it comes from.")
    license = serializers.ChoiceField(
        choices=[("", "Unknown"), *License.choices], read_only=True, help_text=LICENSE_HELP
    )
    license_url = serializers.SerializerMethodField(
        help_text="The licence's deed for the Creative Commons licences and CC0, else null."
    )

    class Meta:
        fields = IMAGE_INFO_FIELDS
        read_only_fields = fields

    def get_url(self, image) -> str:
        return absolute_url(self, image.get_data_url())

    def get_thumbnail_url(self, image) -> str:
        return absolute_url(self, image.get_thumbnail_url())

    @extend_schema_field(NULLABLE_URL)
    def get_license_url(self, image) -> str | None:
        return image.license_url

    def get_thumbnail_width(self, image) -> int:
        return image.thumbnail_dimensions[0]

    def get_thumbnail_height(self, image) -> int:
        return image.thumbnail_dimensions[1]
