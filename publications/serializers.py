"""JSON representations of publications, their fruit links and their fruit images."""

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from blobs.serializers import (
    IMAGE_INFO_FIELDS,
    NULLABLE_URL,
    VERSIONED,
    ImageDetailsSerializer,
    ThumbnailedImageSerializer,
    absolute_url,
)
from catalog.models import Fruit
from core.db.ids import ID_MAX
from core.rest.fields import TextField, TextModelSerializer
from publications.models import (
    CITATION_FIELDS,
    CITATION_PLACE_MAX,
    CITED_FIELDS,
    NAME_IN_SOURCE_MAX,
    TITLE_MAX,
    YEAR_MAX,
    YEAR_MIN,
    Publication,
    PublicationFruit,
    PublicationFruitImage,
)


class LinkedFruitSerializer(serializers.ModelSerializer):
    """The identity of a linked fruit."""

    class Meta:
        model = Fruit
        fields = ["id", "catalog_number", "name", "type"]
        read_only_fields = fields


class CitationSerializer(TextModelSerializer):
    """Where and under which name a publication describes a fruit (a link's citation fields).

    The body of `PUT` and `PATCH` on a link: every field optional; text is trimmed, `""` when
    empty (`null` is not accepted).
    """

    class Meta:
        model = PublicationFruit
        fields = CITATION_FIELDS
        extra_kwargs = {
            "pages": {
                "help_text": (
                    "Where the publication describes the fruit, free text up to "
                    f'{CITATION_PLACE_MAX} characters ("112\u2013114", "Bd. 2, S. 40"); '
                    '"" when empty.'
                )
            },
            "plate": {
                "help_text": (
                    f"The plate (Tafel) number or label, up to {CITATION_PLACE_MAX} characters; "
                    '"" when empty.'
                )
            },
            "name_in_source": {
                "help_text": (
                    "The name under which the publication describes the fruit, up to "
                    f'{NAME_IN_SOURCE_MAX} characters; "" when empty. Search finds the fruit by it.'
                )
            },
            "is_first_description": {
                "help_text": "Whether this publication is the variety's first description."
            },
        }


class PublicationFruitSerializer(serializers.ModelSerializer):
    """A fruit a publication describes (a citation): the fruit, where and under which name the
    publication describes it, its PDF link and how many images it has."""

    fruit = LinkedFruitSerializer(read_only=True)
    has_description = serializers.BooleanField(read_only=True)
    description_url = serializers.SerializerMethodField(
        help_text=f"The PDF describing the fruit, null without one. {VERSIONED}"
    )
    image_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = PublicationFruit
        fields = ["fruit", *CITATION_FIELDS, "has_description", "description_url", "image_count"]
        read_only_fields = fields
        extra_kwargs = CitationSerializer.Meta.extra_kwargs

    @extend_schema_field(NULLABLE_URL)
    def get_description_url(self, link) -> str | None:
        path = link.get_description_url()
        return None if path is None else absolute_url(self, path)


class PublicationSerializer(TextModelSerializer):
    """A publication with the fruits it describes.

    `authors` and `description` are `""` when empty; `null` is not accepted for them.
    """

    title = TextField(max_length=TITLE_MAX, trim_whitespace=True)
    year = serializers.IntegerField(
        min_value=YEAR_MIN,
        max_value=YEAR_MAX,
        allow_null=True,
        required=False,
        help_text=f"Year of publication, {YEAR_MIN} to {YEAR_MAX}, or null when unknown.",
    )
    has_cover = serializers.BooleanField(read_only=True)
    cover_url = serializers.SerializerMethodField(
        help_text=f"The cover image, null without one. {VERSIONED}"
    )
    cover_thumbnail_url = serializers.SerializerMethodField(
        help_text=(
            "The cover's JPEG thumbnail (at most 300 px a side; the cover itself while it has "
            f"none), null without a cover. {VERSIONED}"
        )
    )
    fruits = PublicationFruitSerializer(source="links", many=True, read_only=True)

    class Meta:
        model = Publication
        fields = [
            "id",
            "title",
            "authors",
            "year",
            "description",
            "has_cover",
            "cover_url",
            "cover_width",
            "cover_height",
            "cover_thumbnail_url",
            "fruits",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "cover_width", "cover_height", "created_at", "updated_at"]
        extra_kwargs = {
            "cover_width": {
                "help_text": "The cover's width in pixels as displayed; 0 without one."
            },
            "cover_height": {
                "help_text": "The cover's height in pixels as displayed; 0 without one."
            },
            "authors": {"help_text": 'Free text, e.g. "Müller, Bißmann, Lucas"; "" when unknown.'},
            "description": {"help_text": 'Free text; "" when empty.'},
        }

    @extend_schema_field(NULLABLE_URL)
    def get_cover_url(self, publication) -> str | None:
        path = publication.get_cover_url()
        return None if path is None else absolute_url(self, path)

    @extend_schema_field(NULLABLE_URL)
    def get_cover_thumbnail_url(self, publication) -> str | None:
        path = publication.get_cover_thumbnail_url()
        return None if path is None else absolute_url(self, path)


class PublicationFruitImageSerializer(ThumbnailedImageSerializer):
    """Metadata and links of a publication's image of one of its fruits."""

    fruit_id = serializers.IntegerField(source="link.fruit_id", read_only=True)

    class Meta(ThumbnailedImageSerializer.Meta):
        model = PublicationFruitImage
        fields = ["id", "fruit_id", *IMAGE_INFO_FIELDS[1:]]
        read_only_fields = fields


class PublicationFruitImageUploadSerializer(ImageDetailsSerializer):
    """Multipart body of a fruit-image upload: a linked fruit, the image file and, optionally,
    the image's details.

    `fruit` validates to the link of that fruit in the publication given in the context.
    """

    fruit = serializers.IntegerField(
        min_value=1, max_value=ID_MAX, help_text="Id of a fruit the publication links."
    )
    image = serializers.FileField(help_text="A JPEG, PNG, GIF or WebP image, at most 5 MiB.")

    def validate_fruit(self, value) -> PublicationFruit:
        link = (
            PublicationFruit.objects.without_blobs()
            .filter(publication=self.context["publication"], fruit_id=value)
            .first()
        )
        if link is None:
            raise serializers.ValidationError(
                _("The fruit %(id)s is not linked to this publication; link it first.")
                % {"id": value}
            )
        return link


class CitedPublicationSerializer(serializers.ModelSerializer):
    """The publication of a citation: enough to name it."""

    class Meta:
        model = Publication
        fields = CITED_FIELDS  # what the citations' query reads of it
        read_only_fields = fields


class FruitCitationSerializer(serializers.ModelSerializer):
    """A publication that describes a fruit, with where and under which name."""

    publication = CitedPublicationSerializer(read_only=True)

    class Meta:
        model = PublicationFruit
        fields = ["publication", *CITATION_FIELDS]
        read_only_fields = fields
        extra_kwargs = CitationSerializer.Meta.extra_kwargs
