"""Coded characteristics (UPOV, ECPGR), their states, and the states each fruit shows."""

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from blobs.models import blob_fields
from catalog.models import Fruit, FruitImage, FruitType
from core.history import AnnouncedDeletes, AnnouncedDeletesQuerySet
from core.translated import localized
from publications.models import Publication

CODE_PATTERN = r"^[a-z][a-z0-9_]{0,49}\Z"
CODE_RULE = "1-50 characters of a-z, 0-9 and _, starting with a letter."
# Identify's query parameters that are not answers (`format` is DRF's `?format=json`), and
# all the parameters a characteristic's code would shadow (those and the pages' own).
NOT_ANSWERS = frozenset({"type", "limit", "format"})
RESERVED_CODES = NOT_ANSWERS | {"page", "page_size", "fruits"}
STATES_MIN, STATES_MAX = 2, 20
NAME_MAX, LABEL_MAX = 200, 100


def validate_not_reserved(code: str) -> None:
    """A code is an identify parameter: it may not shadow the endpoint's own parameters."""
    if code in RESERVED_CODES:
        raise ValidationError(
            _("%(code)s is reserved (an identify parameter): choose another code.")
            % {"code": repr(code)}
        )


STATE_VALUE_MIN, STATE_VALUE_MAX = 1, 99
PAGES_MAX, NOTE_MAX = 50, 500


class Scale(models.TextChoices):
    ORDINAL = "ordinal", "Ordinal (states ordered; neighbours are near)"
    NOMINAL = "nominal", "Nominal (unordered)"


class Reliability(models.TextChoices):
    """How far a person's answer can be trusted (docs/characteristics.md says why for each)."""

    HIGH = "high", "High"
    MEDIUM = "medium", "Medium"
    LOW = "low", "Low"


def join_types(types) -> str:
    """The stored form of a characteristic's fruit types: `,apple,pear,` (sorted), so that one
    `LIKE '%,apple,%'` finds the characteristics of a type on every database."""
    return "," + ",".join(sorted(set(types))) + "," if types else ""


def split_types(joined: str) -> list[str]:
    """`join_types` undone."""
    return [value for value in joined.split(",") if value]


class CharacteristicQuerySet(AnnouncedDeletesQuerySet):
    def of_type(self, fruit_type: str):
        return self.filter(fruit_types__contains=f",{fruit_type},")

    def in_question_order(self):
        return self.order_by("position", "pk")

    def with_states(self):
        """The states, each with its image (never the image's bytes)."""
        return self.prefetch_related(
            models.Prefetch("states", queryset=CharacteristicState.objects.with_images())
        )


class Characteristic(AnnouncedDeletes):
    """A question a fruit answers: a UPOV/ECPGR characteristic with its states."""

    code = models.CharField(
        max_length=50,
        unique=True,
        validators=[RegexValidator(CODE_PATTERN, CODE_RULE), validate_not_reserved],
        help_text="The identify parameter and the `char:<code>` column: a-z, 0-9, _.",
    )
    name = models.CharField(max_length=NAME_MAX)
    name_de = models.CharField(
        _("name in German"),
        max_length=NAME_MAX,
        blank=True,
        default="",
        help_text=_("Shown on the German pages and answers; empty: the name is shown."),
    )
    fruit_types = models.CharField(
        max_length=200,
        editable=False,
        help_text=_("The fruit types it applies to, stored as `,apple,pear,`."),
    )
    scale = models.CharField(max_length=8, choices=Scale.choices, default=Scale.ORDINAL)
    reliability = models.CharField(
        max_length=8, choices=Reliability.choices, default=Reliability.MEDIUM
    )
    position = models.PositiveIntegerField(
        default=0, help_text=_("Questions are first asked in this order (ties by id).")
    )
    reference = models.CharField(max_length=200, blank=True, default="")
    updated_at = models.DateTimeField(auto_now=True)

    objects = CharacteristicQuerySet.as_manager()

    class Meta:
        ordering = ["position", "pk"]
        constraints = [
            models.CheckConstraint(condition=~Q(fruit_types=""), name="characteristic_has_types"),
            models.CheckConstraint(
                condition=Q(scale__in=Scale.values), name="characteristic_scale_valid"
            ),
            models.CheckConstraint(
                condition=Q(reliability__in=Reliability.values),
                name="characteristic_reliability_valid",
            ),
        ]

    def __str__(self):
        return self.name

    @property
    def localized_name(self) -> str:
        """The name in the active language: German where it is active and written."""
        return localized(self, "name")

    @property
    def type_list(self) -> list[str]:
        return split_types(self.fruit_types)

    @type_list.setter
    def type_list(self, types) -> None:
        self.fruit_types = join_types(types)


class CharacteristicStateQuerySet(AnnouncedDeletesQuerySet):
    def with_images(self):
        """Each state's image joined in, without its bytes."""
        return self.select_related("image").defer(*blob_fields(FruitImage, via="image"))

    def of_type(self, fruit_type: str):
        return self.filter(characteristic__in=Characteristic.objects.of_type(fruit_type))


class CharacteristicState(AnnouncedDeletes):
    """One state of a characteristic (`value` 1-99; ordinal ones noted 1/3/5/7/9), optionally
    shown by one of the catalog's fruit images."""

    characteristic = models.ForeignKey(
        Characteristic, on_delete=models.CASCADE, related_name="states"
    )
    value = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(STATE_VALUE_MIN), MaxValueValidator(STATE_VALUE_MAX)]
    )
    label = models.CharField(max_length=LABEL_MAX)
    label_de = models.CharField(
        _("label in German"),
        max_length=LABEL_MAX,
        blank=True,
        default="",
        help_text=_("Shown on the German pages and answers; empty: the label is shown."),
    )
    image = models.ForeignKey(
        FruitImage,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text=_("A fruit image that shows the state."),
    )

    objects = CharacteristicStateQuerySet.as_manager()

    class Meta:
        ordering = ["characteristic", "value"]
        constraints = [
            models.UniqueConstraint(
                fields=["characteristic", "value"], name="characteristicstate_value_unique"
            ),
            models.CheckConstraint(
                condition=Q(value__gte=STATE_VALUE_MIN, value__lte=STATE_VALUE_MAX),
                name="characteristicstate_value_range",
            ),
        ]

    def __str__(self):
        return f"{self.value}: {self.label}"

    @property
    def localized_label(self) -> str:
        """The label in the active language: German where it is active and written."""
        return localized(self, "label")


class FruitCharacteristic(AnnouncedDeletes):
    """What a fruit shows of a characteristic (one or several states), and where that is said:
    a publication that describes the fruit, with its pages."""

    fruit = models.ForeignKey(Fruit, on_delete=models.CASCADE, related_name="characteristics")
    characteristic = models.ForeignKey(
        Characteristic, on_delete=models.CASCADE, related_name="fruit_values"
    )
    states = models.ManyToManyField(
        CharacteristicState, through="FruitCharacteristicState", related_name="+"
    )
    source_publication = models.ForeignKey(
        Publication, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    pages = models.CharField(max_length=PAGES_MAX, blank=True, default="")
    note = models.TextField(max_length=NOTE_MAX, blank=True, default="")
    updated_at = models.DateTimeField(auto_now=True)

    objects = AnnouncedDeletesQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["fruit", "characteristic"], name="fruitcharacteristic_once"
            ),
        ]
        indexes = [
            # A characteristic's values across the catalog (the matrix, the "in use" check).
            models.Index(fields=["characteristic", "fruit"], name="fruitchar_char_fruit_idx"),
        ]

    def __str__(self):
        return f"{self.fruit_id}: {self.characteristic_id}"


class FruitCharacteristicState(AnnouncedDeletes):
    """One state a fruit shows. PROTECT: a state in use cannot be removed (a 409)."""

    fruit_characteristic = models.ForeignKey(
        FruitCharacteristic, on_delete=models.CASCADE, related_name="state_links"
    )
    state = models.ForeignKey(CharacteristicState, on_delete=models.PROTECT, related_name="+")

    objects = AnnouncedDeletesQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["fruit_characteristic", "state"], name="fruitcharacteristicstate_once"
            ),
        ]
        indexes = [models.Index(fields=["state"], name="fruitcharstate_state_idx")]

    def __str__(self):
        return f"{self.fruit_characteristic_id}: {self.state_id}"


class ValuesVersion(models.Model):
    """A counter per fruit type that every write of what identification reads bumps (in the
    write's transaction): the identify endpoint keeps the type's values in memory under it.

    `updated_at` dates the last bump (`bump_versions` sets it: its `update()` skips
    `auto_now`), so the exports' `Last-Modified` follows characteristics and values, removals
    included.
    """

    fruit_type = models.CharField(max_length=16, primary_key=True, choices=FruitType.choices)
    version = models.PositiveBigIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"{self.fruit_type}: {self.version}"
