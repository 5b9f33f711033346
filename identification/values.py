"""What identification reads of a fruit type, kept in the process under its `ValuesVersion`.

Ranking weighs every candidate of the type, so a request needs the values of all its fruits
for the answered characteristics: at 10,000 fruits and 10 answers that is some 130,000 rows,
which alone takes longer than the endpoint's budget (docs/performance.md, "Identify"). The
values of a type are read whole once and kept; each request then reads only the type's version
(one indexed row) and, while no write has bumped it, uses what it holds.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from django.db.models import F, Prefetch

from core.translated import in_language
from identification import scoring
from identification.models import (
    Characteristic,
    CharacteristicState,
    FruitCharacteristicState,
    ValuesVersion,
)


@dataclass(frozen=True)
class Question:
    """A characteristic as the pages and the API ask it: its name in English and German, its
    states with their labels in both."""

    code: str
    name: str
    states: tuple  # CharacteristicState rows (no image), in value order
    name_de: str = ""

    @property
    def localized_name(self) -> str:
        """The name in the active language (German where it is active and written)."""
        return in_language(self.name, de=self.name_de)

    def label(self, value: int) -> str:
        """The label of a state in the active language."""
        return next(
            (state.localized_label for state in self.states if state.value == value), str(value)
        )


@dataclass
class TypeValues:
    """A fruit type's characteristics (in question order) and its fruits' values."""

    fruit_type: str
    version: int
    questions: dict[str, Question] = field(default_factory=dict)
    characteristics: dict[str, scoring.Characteristic] = field(default_factory=dict)
    # fruit id -> {code: values}, the fruits in catalog order (ties in ranking keep it)
    fruits: dict[int, dict[str, tuple[int, ...]]] = field(default_factory=dict)


_kept: dict[str, TypeValues] = {}
_loading = threading.Lock()


def current_version(fruit_type: str) -> int:
    version = (
        ValuesVersion.objects.filter(fruit_type=fruit_type)
        .values_list("version", flat=True)
        .first()
    )
    return version or 0


def type_values(fruit_type: str) -> TypeValues:
    """The type's characteristics and values: one query while they are current, four when a
    write has changed them since they were read. Versions only grow: values read under a newer
    version than a request saw are current enough for it, and are never replaced by older."""
    version = current_version(fruit_type)
    kept = _kept.get(fruit_type)
    if kept is not None and kept.version >= version:
        return kept
    with _loading:
        kept = _kept.get(fruit_type)
        if kept is None or kept.version < version:
            # Read after the version: a write committed in between makes the next request
            # read again, never keeps older values under a newer version.
            kept = load(fruit_type, version)
            _kept[fruit_type] = kept
    return kept


def load(fruit_type: str, version: int) -> TypeValues:
    loaded = TypeValues(fruit_type=fruit_type, version=version)
    codes = {}
    # The states without their pictures: an image changes without a bump (the page reads them).
    states_only = CharacteristicState.objects.only(
        "id", "characteristic_id", "value", "label", "label_de"
    )
    chars = (
        Characteristic.objects.of_type(fruit_type)
        .in_question_order()
        .prefetch_related(Prefetch("states", queryset=states_only))
    )
    for char in chars:
        states = tuple(char.states.all())
        codes[char.pk] = char.code
        loaded.questions[char.code] = Question(
            code=char.code, name=char.name, name_de=char.name_de, states=states
        )
        loaded.characteristics[char.code] = scoring.Characteristic(
            code=char.code,
            states=tuple(state.value for state in states),
            ordinal=char.scale == "ordinal",
            reliability=char.reliability,
        )
    loaded.fruits = fruit_values(fruit_type, codes)
    return loaded


def fruit_values(fruit_type: str, codes: dict[int, str]) -> dict[int, dict[str, tuple[int, ...]]]:
    """The values the type's fruits hold for the characteristics `codes` (id -> code), in one
    query: fruit id -> {code: values}, the fruits in catalog order (ties in ranking keep it)."""
    rows = (
        FruitCharacteristicState.objects.filter(
            fruit_characteristic__fruit__type=fruit_type,
            fruit_characteristic__characteristic_id__in=list(codes),
        )
        .order_by(
            F("fruit_characteristic__fruit__catalog_number").asc(nulls_last=True),
            "fruit_characteristic__fruit_id",
            "fruit_characteristic__characteristic_id",
            "state__value",
        )
        .values_list(
            "fruit_characteristic__fruit_id",
            "fruit_characteristic__characteristic_id",
            "state__value",
        )
    )
    fruits: dict[int, dict[str, tuple[int, ...]]] = {}
    for fruit_id, char_id, value in rows.iterator(chunk_size=10_000):
        values = fruits.setdefault(fruit_id, {})
        code = codes[char_id]
        values[code] = (*values.get(code, ()), value)
    return fruits


def forget() -> None:
    """Drop what is kept (tests that change rows behind the services' back)."""
    _kept.clear()
