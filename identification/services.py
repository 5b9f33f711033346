"""Writes of characteristics and of the fruits' values, each in one transaction.

Every write that changes what identification reads bumps the fruit types' `ValuesVersion` in its
transaction, so the identify endpoint's kept values (`identification.values`) are never older
than the last commit it can see.
"""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext

from catalog.models import Fruit
from core.db.locks import lock_row
from core.history import announce
from identification.models import (
    Characteristic,
    CharacteristicState,
    FruitCharacteristic,
    FruitCharacteristicState,
    ValuesVersion,
    split_types,
)
from identification.signals import characteristic_written, fruit_values_written
from publications.models import PublicationFruit


class StateInUse(Exception):
    """Removing a state that fruits' values use (a 409)."""


def bump_versions(fruit_types) -> None:
    """Mark what identification reads of these types as changed (in the caller's transaction)."""
    for fruit_type in sorted(set(fruit_types)):
        version = ValuesVersion.objects.filter(fruit_type=fruit_type)
        bump = {"version": F("version") + 1, "updated_at": timezone.now()}
        if not version.update(**bump):  # the type's first write: its row made first
            ValuesVersion.objects.get_or_create(fruit_type=fruit_type)
            version.update(**bump)


@transaction.atomic
def characteristic_save(
    *, characteristic: Characteristic, fruit_types: list[str], states: list[dict] | None
) -> Characteristic:
    """Store a new or changed characteristic; `states`, when given, replace its states
    (`{"value", "label", "image_id"}`, and `"label_de"`: left out, a kept state keeps its German
    label and a new one has none).

    A state keeps its identity by its `value`, so values stored for it stay; removing one that
    fruits use raises `StateInUse` and changes nothing. Fruits of a type the characteristic no
    longer applies to lose their values for it. Raises `Characteristic.DoesNotExist` when a
    changed characteristic was deleted meanwhile.
    """
    adding = characteristic._state.adding
    previous_types = []
    if not adding:
        (stored,) = lock_row(Characteristic, characteristic.pk, read=("fruit_types",))
        previous_types = split_types(stored)
    characteristic.type_list = fruit_types
    characteristic.save(force_insert=adding, force_update=not adding)
    if states is not None:
        _replace_states(characteristic, states)
    dropped = set(previous_types) - set(fruit_types)
    if dropped:
        losing = FruitCharacteristic.objects.filter(
            characteristic=characteristic, fruit__type__in=dropped
        )
        values_written(list(losing.values_list("fruit_id", flat=True)))
        losing.delete()
    bump_versions([*previous_types, *fruit_types])
    characteristic_written.send(
        sender=Characteristic, characteristic=characteristic, created=adding, deleted=False
    )
    return characteristic


def _replace_states(characteristic: Characteristic, states: list[dict]) -> None:
    kept = {
        state.value: state
        for state in CharacteristicState.objects.filter(characteristic=characteristic)
    }
    wanted = {record["value"]: record for record in states}
    removed = sorted(set(kept) - set(wanted))
    if removed:
        in_use = sorted(
            FruitCharacteristicState.objects.filter(
                state__characteristic=characteristic, state__value__in=removed
            )
            .values_list("state__value", flat=True)
            .distinct()
        )
        if in_use:
            labels = ", ".join(f"{value} ({kept[value].label})" for value in in_use)
            raise StateInUse(
                gettext(
                    "State %(states)s of %(code)s is used by fruits' values; change those values "
                    "first."
                )
                % {"states": labels, "code": characteristic.code}
            )
        CharacteristicState.objects.filter(
            characteristic=characteristic, value__in=removed
        ).delete()
    changed, added = [], []
    for value, record in wanted.items():
        image_id = record.get("image_id")
        state = kept.get(value)
        if state is None:
            added.append(
                CharacteristicState(
                    characteristic=characteristic,
                    value=value,
                    label=record["label"],
                    label_de=record.get("label_de", ""),
                    image_id=image_id,
                )
            )
            continue
        # A record without a German label keeps the state's.
        label_de = record.get("label_de", state.label_de)
        if (state.label, state.label_de, state.image_id) != (record["label"], label_de, image_id):
            state.label, state.label_de, state.image_id = record["label"], label_de, image_id
            changed.append(state)
    CharacteristicState.objects.bulk_update(changed, ["label", "label_de", "image"])
    announce(CharacteristicState, changed, "changed")
    announce(CharacteristicState, CharacteristicState.objects.bulk_create(added), "created")


@transaction.atomic
def characteristic_delete(*, characteristic: Characteristic) -> None:
    """Delete a characteristic with its states and the values fruits hold for it."""
    (stored,) = lock_row(Characteristic, characteristic.pk, for_delete=True, read=("fruit_types",))
    types = split_types(stored)
    held = FruitCharacteristic.objects.filter(characteristic=characteristic)
    values_written(list(held.values_list("fruit_id", flat=True)))
    characteristic_written.send(
        sender=Characteristic, characteristic=characteristic, created=False, deleted=True
    )
    held.delete()
    characteristic.delete()
    bump_versions(types)


def values_written(fruit_ids: list[int]) -> None:
    """Tell the apps above that these fruits' values were written
    (`signals.fruit_values_written`), in the write's transaction."""
    if fruit_ids:
        fruit_values_written.send(sender=FruitCharacteristic, fruit_ids=sorted(set(fruit_ids)))


def _check_values(values: list[tuple[Fruit, list[dict]]]) -> None:
    """Check again, under a lock of the characteristics, that each fruit's records apply to
    its type and name states of their characteristic (`ValidationError` on `characteristics`):
    one retyped or losing a state since the entries were checked is a 400, never a value
    stored where it does not apply."""
    char_ids = sorted({r["characteristic_id"] for _, records in values for r in records})
    applying = {
        pk: joined
        for pk, joined in Characteristic.objects.select_for_update(no_key=True)
        .filter(pk__in=char_ids)
        .order_by("pk")
        .values_list("pk", "fruit_types")
    }
    state_ids = sorted({s for _, records in values for r in records for s in r["state_ids"]})
    states = dict(
        CharacteristicState.objects.filter(pk__in=state_ids).values_list("pk", "characteristic_id")
    )
    for fruit, records in values:
        for record in records:
            char_id = record["characteristic_id"]
            if f",{fruit.type}," not in applying.get(char_id, ""):
                raise ValidationError(
                    {
                        "characteristics": [
                            gettext("Characteristic %(id)s no longer applies to this fruit.")
                            % {"id": char_id}
                        ]
                    }
                )
            if any(states.get(state_id) != char_id for state_id in record["state_ids"]):
                raise ValidationError(
                    {
                        "characteristics": [
                            gettext("A state of characteristic %(id)s was removed.")
                            % {"id": char_id}
                        ]
                    }
                )


def _add_values(values: list[tuple[Fruit, list[dict]]]) -> None:
    """Insert the fruits' value rows and their states (two bulk inserts)."""
    pairs = [(fruit, record) for fruit, records in values for record in records]
    rows = FruitCharacteristic.objects.bulk_create(
        FruitCharacteristic(
            fruit=fruit,
            characteristic_id=record["characteristic_id"],
            source_publication_id=record["source_publication_id"],
            pages=record["pages"],
            note=record["note"],
        )
        for fruit, record in pairs
    )
    announce(FruitCharacteristic, rows, "created")
    links = FruitCharacteristicState.objects.bulk_create(
        FruitCharacteristicState(fruit_characteristic_id=row.pk, state_id=state_id)
        for row, (_, record) in zip(rows, pairs, strict=True)
        for state_id in record["state_ids"]
    )
    announce(FruitCharacteristicState, links, "created")


def fruit_set_characteristics(*, fruit: Fruit, records: list[dict]) -> None:
    """Replace the fruit's values with `records` (checked by `clean_fruit_characteristics`).

    Call it in the transaction that holds the fruit's lock. A source must be a publication
    that links the fruit: that is checked again here, where a concurrent unlink has either
    happened or waits (`ValidationError` on `characteristics`).
    """
    _check_values([(fruit, records)])
    sources = {r["source_publication_id"] for r in records if r["source_publication_id"]}
    if sources:
        linked = set(
            PublicationFruit.objects.filter(fruit=fruit, publication_id__in=sources)
            .select_for_update(no_key=True)
            .values_list("publication_id", flat=True)
        )
        missing = sorted(sources - linked)
        if missing:
            raise ValidationError(
                {
                    "characteristics": [
                        gettext("Publication %(id)s does not describe this fruit.")
                        % {"id": missing[0]}
                    ]
                }
            )
    FruitCharacteristic.objects.filter(fruit=fruit).delete()
    _add_values([(fruit, records)])
    bump_versions([fruit.type])
    values_written([fruit.pk])


def fruits_add_characteristics(*, values: list[tuple[Fruit, list[dict]]]) -> None:
    """Store the values of fruits just created, which hold none yet (an import's new fruits):
    `(fruit, records)` with records as `fruit_set_characteristics` takes them, citing no source
    (no publication links a fruit just created). The same checks, made once for them all, and
    two bulk inserts; a check that fails raises `ValidationError` before anything is written.
    """
    if any(r["source_publication_id"] for _, records in values for r in records):
        raise ValidationError(
            {
                "characteristics": [
                    gettext("No publication describes a fruit just created: cite none.")
                ]
            }
        )
    _check_values(values)
    _add_values(values)
    bump_versions({fruit.type for fruit, _ in values})
    values_written([fruit.pk for fruit, _ in values])


def after_fruit_write(
    sender, *, fruit: Fruit, previous_type: str | None, renumbered: bool, deleted: bool, **kwargs
) -> None:
    """A receiver of the catalog's `fruit_written`, in the write's transaction: a
    fruit that changes type loses the values of characteristics that do not apply to its new
    type; a deleted, retyped or renumbered fruit (ties keep catalog order) leaves its types'
    kept values stale. A fruit without values is not among the kept ones: it changes nothing."""
    retyped = previous_type is not None and previous_type != fruit.type
    if not (deleted or retyped or renumbered):
        return
    if not FruitCharacteristic.objects.filter(fruit=fruit).exists():
        return
    if retyped and not deleted:
        FruitCharacteristic.objects.filter(fruit=fruit).exclude(
            characteristic__in=Characteristic.objects.of_type(fruit.type)
        ).delete()
        bump_versions([previous_type, fruit.type])
        return
    bump_versions([fruit.type])


def forget_unlinked_source(sender, *, publication_id: int, fruit_ids: list[int], **kwargs) -> None:
    """The publication no longer describes these fruits: their values stop citing it (the
    values stay). A receiver of publications' `fruits_unlinked`; deleting the
    publication itself clears the citations by the foreign key (`SET_NULL`)."""
    citing = list(
        FruitCharacteristic.objects.filter(
            fruit_id__in=fruit_ids, source_publication_id=publication_id
        ).values_list("pk", flat=True)
    )
    FruitCharacteristic.objects.filter(pk__in=citing).update(source_publication=None, pages="")
    announce(FruitCharacteristic, FruitCharacteristic.objects.filter(pk__in=citing), "changed")
