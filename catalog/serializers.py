"""JSON representations of fruits and their images."""

from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.validators import UniqueValidator

from blobs.serializers import (
    NULLABLE_URL,
    VERSIONED,
    ThumbnailedImageSerializer,
    absolute_url,
)
from catalog.models import (
    CATALOG_NUMBER_MAX,
    NAME_NOTE_MAX,
    RELATED_KIND,
    RELATION_NOTE_MAX,
    Fruit,
    FruitImage,
    NameKind,
    RelationKind,
)
from catalog.validators import (
    ISO_639_1,
    NAMES_MAX,
    RELATIONS_MAX,
    TEXT_MAX,
    clean_names,
    clean_relations,
    names_from_synonyms,
    validate_name_text,
)
from core.db.ids import ID_MAX
from core.rest.fields import TextField, TextModelSerializer, WholeEntrySerializer


class BoundedListField(serializers.ListField):
    """A list refused for its length before any item is validated (a huge list costs nothing)."""

    def to_internal_value(self, data):
        if self.max_length is not None and isinstance(data, list) and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        return super().to_internal_value(data)


class NameTextsField(BoundedListField):
    """The texts of a fruit's other names (`Fruit.name_list`), in their order; written, the
    texts a validation turns into names (`FruitSerializer.validate`)."""

    def get_attribute(self, instance):
        return [name["name"] for name in instance.name_list]


class ImageInfoSerializer(ThumbnailedImageSerializer):
    """Metadata and links of a fruit's image (never its bytes)."""

    class Meta(ThumbnailedImageSerializer.Meta):
        model = FruitImage


class NameSerializer(WholeEntrySerializer):
    """One of a fruit's other names: its text, kind, language and a note."""

    name = TextField(max_length=TEXT_MAX, trim_whitespace=True)
    kind = serializers.ChoiceField(
        choices=NameKind.choices,
        default=NameKind.SYNONYM,
        help_text=(
            "`synonym`; `trade_name`, a marketing name; `translation`, the name in another "
            "language; `historic`, an older name or spelling; `misapplied`, a name wrongly used "
            "for this variety (search finds it, pages label it)."
        ),
    )
    language = serializers.ChoiceField(
        choices=sorted(ISO_639_1),
        allow_blank=True,
        default="",
        error_messages={
            "invalid_choice": gettext_lazy(
                '"{input}" is not a two-letter lowercase ISO 639-1 language code.'
            )
        },
        help_text='"" or a two-letter lowercase ISO 639-1 code, e.g. `de`.',
    )
    note = TextField(max_length=NAME_NOTE_MAX, allow_blank=True, default="", trim_whitespace=True)


class FruitSerializer(TextModelSerializer):
    """A fruit as listed: identity, names, type, card thumbnail and image count.

    Reads need `Fruit.objects.with_list_data().with_card_choice()`.
    """

    catalog_number = serializers.IntegerField(
        min_value=1,
        max_value=CATALOG_NUMBER_MAX,
        allow_null=True,
        required=False,
        validators=[UniqueValidator(queryset=Fruit.objects.all())],
        help_text=(
            "Unique. Omit it (or send null) on create to get the next automatic number: one "
            "more than any number assigned automatically so far or held now, so a deleted "
            "fruit's number never names another variety. An explicit number raises the next "
            "automatic one only while a fruit holds it."
        ),
    )
    name = TextField(max_length=TEXT_MAX, trim_whitespace=True, validators=[validate_name_text])
    synonyms = NameTextsField(
        child=TextField(max_length=TEXT_MAX, trim_whitespace=True),
        max_length=NAMES_MAX,
        required=False,
        help_text=(
            "The texts of `names`, in their order. Writing it replaces the names, keeping the "
            "kind, language and note of every name whose text is unchanged (new ones are "
            "`synonym`). Not together with `names` (400)."
        ),
    )
    names = BoundedListField(
        source="name_list",
        child=NameSerializer(),
        max_length=NAMES_MAX,
        required=False,
        help_text=(
            "The fruit's other names, in their order, each unique within the fruit and not its "
            "`name` (compared ignoring case); writing the field replaces the whole list."
        ),
    )
    thumbnail_url = serializers.SerializerMethodField(
        help_text=(
            "The thumbnail of the fruit's card image (`card_image_id`, else its oldest image); "
            f"null when it has no image. {VERSIONED}"
        )
    )
    card_image_id = serializers.IntegerField(
        source="chosen_card_image_id",
        allow_null=True,
        required=False,
        min_value=1,
        max_value=ID_MAX,
        help_text=(
            "The image curators chose for the fruit's card: one of this fruit's images (a 400 "
            "otherwise), checked under the fruit's lock. Null when none is chosen: the card "
            "shows the oldest image. Omitting it keeps the choice."
        ),
    )
    display_name = serializers.CharField(
        source="heading_name",
        read_only=True,
        help_text=(
            "The name that heads the fruit in the answer's language (`Accept-Language` or "
            "`?lang`): in German its first other name of kind `translation` with language `de`, "
            "else its first `trade_name` with language `de`, else `name`; in English always "
            "`name`, the accepted name."
        ),
    )
    image_count = serializers.IntegerField(read_only=True)
    matched_name = serializers.SerializerMethodField(
        help_text=(
            "With `search`: the other name through which the fruit matched (say "
            '"Belle de Boskoop"), null when it matched through its own name or number. Always '
            "null without `search`."
        )
    )

    class Meta:
        model = Fruit
        fields = [
            "id",
            "catalog_number",
            "name",
            "display_name",
            "type",
            "synonyms",
            "names",
            "thumbnail_url",
            "card_image_id",
            "image_count",
            "matched_name",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "created_at", "updated_at"]

    def get_matched_name(self, fruit) -> str | None:
        return getattr(fruit, "matched_name", None)

    @extend_schema_field(NULLABLE_URL)
    def get_thumbnail_url(self, fruit) -> str | None:
        thumbnail = fruit.card_thumbnail
        return None if thumbnail is None else absolute_url(self, thumbnail.url)

    def validate_catalog_number(self, value):
        if value is None and self.instance is not None and self.instance.catalog_number is not None:
            raise serializers.ValidationError(_("A catalog number cannot be set back to null."))
        return value

    def validate(self, attrs):
        """Both kinds of write become `names` records, checked as a whole (`clean_names`)."""
        if "synonyms" in attrs and "name_list" in attrs:
            raise serializers.ValidationError(
                {"names": [_("Send either `names` or `synonyms`, not both.")]}
            )
        name = attrs.get("name", getattr(self.instance, "name", ""))
        current = self.instance.name_list if self.instance is not None else []
        if "synonyms" in attrs:
            field = "synonyms"
            records = names_from_synonyms(attrs.pop("synonyms"), current=current)
        elif "name_list" in attrs:
            field = "names"
            records = [dict(record) for record in attrs.pop("name_list")]
        elif self.instance is not None and "name" in attrs:
            field, records = "synonyms", current  # a rename must not collide with another name
        else:
            return attrs
        try:
            cleaned = clean_names(records, fruit_name=name)
        except DjangoValidationError as error:
            raise serializers.ValidationError({field: error.messages}) from None
        if records is not current:
            attrs["names"] = cleaned
        return attrs


class RelatedFruitSerializer(serializers.Serializer):
    """A fruit of the catalog another relates to."""

    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(read_only=True)
    catalog_number = serializers.IntegerField(read_only=True, allow_null=True)


class RelationSerializer(WholeEntrySerializer):
    """What the fruit is to another variety: by `fruit_id` (in the catalog) or by `name`."""

    kind = serializers.ChoiceField(choices=RelationKind.choices)
    fruit_id = serializers.IntegerField(
        write_only=True,
        required=False,
        allow_null=True,
        min_value=1,
        max_value=ID_MAX,
        help_text="A fruit of the catalog; or give `name` instead.",
    )
    fruit = RelatedFruitSerializer(
        read_only=True,
        allow_null=True,
        help_text="The related fruit, null when not in the catalog.",
    )
    name = TextField(
        max_length=TEXT_MAX,
        required=False,
        allow_blank=True,
        help_text="A variety not in the catalog (1-200 characters); read: the related name.",
    )
    note = TextField(
        max_length=RELATION_NOTE_MAX, required=False, allow_blank=True, trim_whitespace=True
    )


class RelatedSerializer(serializers.Serializer):
    """What another fruit says of this one."""

    kind = serializers.ChoiceField(
        choices=sorted(set(RELATED_KIND.values())),
        help_text="`child` (of a mother, father or parent), `sport`, `seedling`, `confused_with`.",
    )
    fruit = RelatedFruitSerializer()


class FruitDetailSerializer(FruitSerializer):
    """A fruit with the metadata of its images and its relations to other varieties."""

    images = ImageInfoSerializer(many=True, read_only=True)
    relations = BoundedListField(
        source="relation_records",
        child=RelationSerializer(),
        max_length=RELATIONS_MAX,
        required=False,
        help_text=(
            "What the fruit is to other varieties (mother, father, parent, sport_of, "
            "seedling_of, confused_with); writing the field replaces the set. Refused (400): a "
            "relation to the fruit itself, more than one mother, father or sport_of, the same "
            "relation twice, an unknown fruit, a parentage loop."
        ),
    )
    related = serializers.ListField(
        source="related_records",
        child=RelatedSerializer(),
        read_only=True,
        help_text="What other fruits say of this one: their relations to it, seen from here.",
    )

    class Meta(FruitSerializer.Meta):
        fields = [*FruitSerializer.Meta.fields, "images", "relations", "related"]

    def validate(self, attrs):
        attrs = super().validate(attrs)
        if "relation_records" in attrs:
            fruit_id = self.instance.pk if self.instance is not None else None
            try:
                attrs["relations"] = clean_relations(
                    [dict(record) for record in attrs.pop("relation_records")], fruit_id=fruit_id
                )
            except DjangoValidationError as error:
                raise serializers.ValidationError({"relations": error.messages}) from None
        return attrs
