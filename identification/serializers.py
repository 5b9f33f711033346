"""Characteristics, a fruit's values and the identify answer, as the API reads and writes them."""

from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.translation import gettext
from rest_framework import serializers

from blobs.serializers import absolute_url
from catalog.models import FruitImage, FruitType
from core.db.ids import ID_MAX
from core.rest.fields import (
    LocalizedTextField,
    TextField,
    TextModelSerializer,
    WholeEntrySerializer,
)
from core.translated import active_language
from identification.models import (
    LABEL_MAX,
    NAME_MAX,
    NOTE_MAX,
    PAGES_MAX,
    STATE_VALUE_MAX,
    STATE_VALUE_MIN,
    STATES_MAX,
    STATES_MIN,
    Characteristic,
)
from identification.validators import validate_pages_have_source


class StateSerializer(WholeEntrySerializer):
    """A state of a characteristic: its value, its label and the image that shows it."""

    value = serializers.IntegerField(min_value=STATE_VALUE_MIN, max_value=STATE_VALUE_MAX)
    label = serializers.CharField(
        max_length=LABEL_MAX,
        help_text="Read in the request's language (`Accept-Language` or `?lang`): the German "
        "label where the language is German and one is written, else the English one. Written, "
        "always the English label.",
    )
    label_de = TextField(
        max_length=LABEL_MAX,
        required=False,
        allow_blank=True,
        help_text='The German label, `""` when none is written (German answers then show the '
        "English one), whatever the request's language. Left out on write: a state kept "
        'keeps its German label, a new one has `""`.',
    )
    image = serializers.DictField(
        required=False,
        allow_null=True,
        help_text='Written as `{"image_id": N}` (a fruit image that shows the state), read as '
        "the image with its thumbnail, or null.",
    )

    def validate_image(self, value):
        if value is None:
            return None
        image_id = value.get("image_id")
        if (
            set(value) != {"image_id"}
            or not isinstance(image_id, int)
            or isinstance(image_id, bool)
            or not 1 <= image_id <= ID_MAX
        ):
            raise serializers.ValidationError(
                gettext('Expected {"image_id": <id of a fruit image>}.')
            )
        return image_id


def state_record(serializer, state) -> dict:
    image = state.image
    return {
        "value": state.value,
        "label": state.localized_label,
        "label_de": state.label_de,
        "image": None
        if image is None
        else {
            "fruit_id": image.fruit_id,
            "image_id": image.pk,
            "thumbnail_url": absolute_url(serializer, image.get_thumbnail_url()),
        },
    }


class StatesField(serializers.ListField):
    """A characteristic's states: read from the prefetched relation, written as a list."""

    def get_attribute(self, instance):
        return instance.states.all()

    def to_representation(self, data):
        return [state_record(self, state) for state in data]


class CharacteristicSerializer(TextModelSerializer):
    """A characteristic of fruits (UPOV, ECPGR) with its states."""

    fruit_types = serializers.ListField(
        source="type_list",
        child=serializers.ChoiceField(choices=FruitType.choices),
        min_length=1,
        max_length=len(FruitType.values),
        help_text="The fruit types it applies to (one or more, no duplicates).",
    )
    name = LocalizedTextField(
        max_length=NAME_MAX,
        help_text="Read in the request's language (`Accept-Language` or `?lang`): the German "
        "name where the language is German and one is written, else the English one. Written, "
        "always the English name (a body read in German and written back as it was keeps the "
        "English name and labels).",
    )
    states = StatesField(
        child=StateSerializer(),
        min_length=STATES_MIN,
        max_length=STATES_MAX,
        help_text=(
            f"{STATES_MIN}-{STATES_MAX} states with unique values, read back in value order. "
            "Writing them replaces the states; removing one that fruits' values use is a 409."
        ),
    )

    class Meta:
        model = Characteristic
        fields = [
            "id",
            "code",
            "name",
            "name_de",
            "fruit_types",
            "scale",
            "reliability",
            "position",
            "reference",
            "states",
        ]
        extra_kwargs = {
            "reference": {"required": False},
            "name_de": {
                "help_text": 'The German name, `""` when none is written (German answers then '
                "show the English one), whatever the request's language. Left out on write: "
                'unchanged (`""` for a new characteristic).'
            },
        }

    def validate(self, attrs):
        """A body read in another language and written back keeps the English texts: a `name`
        or a state's `label` equal to the stored translation of the active language (what the
        read showed in its place) is the stored English one."""
        language = active_language()
        if self.instance is None or language == settings.LANGUAGE_CODE.split("-")[0]:
            return attrs
        translated = getattr(self.instance, f"name_{language}", "")
        if translated and attrs.get("name") == translated:
            attrs["name"] = self.instance.name
        stored = {state.value: state for state in self.instance.states.all()}
        for state in attrs.get("states", []):
            old = stored.get(state["value"])
            shown = getattr(old, f"label_{language}", "") if old is not None else ""
            if shown and state["label"] == shown:
                state["label"] = old.label
        return attrs

    def validate_fruit_types(self, value):
        if len(set(value)) != len(value):
            raise serializers.ValidationError(gettext("A fruit type is named twice."))
        return value

    def validate_states(self, value):
        values = [state["value"] for state in value]
        if len(set(values)) != len(values):
            raise serializers.ValidationError(gettext("State values must be unique."))
        image_ids = {state["image"] for state in value if state.get("image")}
        found = set(FruitImage.objects.filter(pk__in=image_ids).values_list("pk", flat=True))
        if image_ids - found:
            missing = min(image_ids - found)
            raise serializers.ValidationError(
                gettext("Image %(id)s is not a fruit image.") % {"id": missing}
            )
        return [
            {
                "value": s["value"],
                "label": s["label"],
                "image_id": s.get("image"),
                **({"label_de": s["label_de"]} if "label_de" in s else {}),
            }
            for s in value
        ]


class SourceSerializer(serializers.Serializer):
    publication_id = serializers.IntegerField()
    title = serializers.CharField()
    pages = serializers.CharField()


class FruitCharacteristicSerializer(WholeEntrySerializer):
    """What a fruit shows of a characteristic, and the publication that says so."""

    code = serializers.CharField(max_length=50)
    name = serializers.CharField(read_only=True)
    values = serializers.ListField(
        child=serializers.IntegerField(),
        min_length=1,
        max_length=STATES_MAX,
        help_text="One or more of its states' values (a fruit may show several).",
    )
    labels = serializers.ListField(child=serializers.CharField(), read_only=True)
    source_publication = serializers.IntegerField(
        write_only=True,
        min_value=1,
        max_value=ID_MAX,
        required=False,
        allow_null=True,
        default=None,
        help_text="A publication that links the fruit, or null.",
    )
    pages = TextField(
        write_only=True,
        max_length=PAGES_MAX,
        required=False,
        allow_blank=True,
        default="",
        help_text="Where in the source; needs `source_publication` (else a 400 naming `pages`).",
    )
    source = SourceSerializer(read_only=True, allow_null=True)
    note = TextField(
        max_length=NOTE_MAX,
        required=False,
        allow_blank=True,
        default="",
        help_text="A remark of the curator's; needs no source.",
    )

    def validate(self, attrs):
        try:
            validate_pages_have_source(
                pages=attrs.get("pages", ""), source=attrs.get("source_publication")
            )
        except DjangoValidationError as error:
            raise serializers.ValidationError({"pages": error.messages}) from None
        return attrs
