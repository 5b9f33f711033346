"""Taking changes back: revert a fruit to a version, restore a deleted fruit.

Each runs in one transaction through the catalog's and identification's services, inside a door
of its own action (`reverted`, `restored`), so what it writes is recorded as any change is.
"""

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from catalog.models import Fruit
from catalog.services import fruit_images_restore, fruit_save, fruit_update
from core.db.locks import lock_row
from core.history import current_door, door
from history.models import PurgedFruit
from history.purging import lock_deleted_fruits
from history.versions import Version, fruit_versions
from identification.models import Characteristic, CharacteristicState
from identification.services import fruit_set_characteristics
from publications.models import PublicationFruit


class VersionNotFound(Exception):
    """No such version of the object (or one that cannot be gone back to)."""


class CatalogNumberHeld(ValidationError):
    """The version's catalog number is another fruit's now."""

    def __init__(self, catalog_number: int, holder_id: int):
        super().__init__(
            {
                "catalog_number": [
                    _("Catalog number %(number)s is fruit %(fruit)s's now.")
                    % {"number": catalog_number, "fruit": holder_id}
                ]
            }
        )
        self.catalog_number, self.holder_id = catalog_number, holder_id


def fruit_revert(*, fruit_id: int, version_id: str) -> tuple[Fruit, list[str]]:
    """Make the fruit's fields, names, relations and characteristic values what they were after
    `version_id`; images stay. Returns the fruit and what could not be restored (a relation
    to a fruit since deleted comes back by its name; a value of a characteristic or state since
    removed stays out).

    Raises `Fruit.DoesNotExist`, `VersionNotFound`, `CatalogNumberHeld`.
    """
    target = _revertible(fruit_versions(fruit_id), version_id)
    with transaction.atomic(), _door_as("reverted"):
        lock_row(Fruit, fruit_id)
        fruit = Fruit.objects.get(pk=fruit_id)
        _check_number(target.state["catalog_number"], fruit_id)
        relations, values, missing = restorable(target, fruit_id)
        fruit_update(
            fruit=fruit,
            name=target.state["name"],
            type=target.state["type"],
            catalog_number=target.state["catalog_number"],
            names=target.state["names"],
            relations=relations,
        )
        fruit_set_characteristics(fruit=fruit, records=values)
    return fruit, missing


# What a revert writes of a version's state (images and the card image stay).
REVERTED = ["name", "type", "catalog_number", "names", "relations", "characteristics"]


@dataclass
class RevertPreview:
    """What `fruit_revert` would do: each part it changes (`{part: {"from": now, "to": after}}`,
    the parts of `REVERTED`), what it could not restore, and why it would be refused."""

    version: Version
    changes: dict
    not_restored: list[str]
    refused: CatalogNumberHeld | None


def fruit_revert_preview(*, fruit_id: int, version_id: str) -> RevertPreview:
    """What reverting the fruit to `version_id` would change, writing nothing: the fruit now (its
    latest version) against what the revert would make of it.

    Raises `Fruit.DoesNotExist`, `VersionNotFound`.
    """
    versions = fruit_versions(fruit_id)
    target = _revertible(versions, version_id)
    if not Fruit.objects.filter(pk=fruit_id).exists():
        raise Fruit.DoesNotExist
    try:
        _check_number(target.state["catalog_number"], fruit_id)
        refused = None
    except CatalogNumberHeld as error:
        refused = error
    relations, values, missing = restorable(target, fruit_id)
    codes = {value["characteristic_id"]: value["code"] for value in target.state["characteristics"]}
    after = {
        **{part: target.state[part] for part in REVERTED},
        "relations": relations,
        "characteristics": [
            {
                "characteristic_id": record["characteristic_id"],
                "code": codes[record["characteristic_id"]],
                **record,
            }
            for record in values
        ],
    }
    now = versions[-1].state
    changes = {
        part: {"from": now.get(part), "to": after[part]}
        for part in REVERTED
        if now.get(part) != after[part]
    }
    return RevertPreview(version=target, changes=changes, not_restored=missing, refused=refused)


def fruit_restore(*, fruit_id: int) -> tuple[Fruit, list[str]]:
    """Bring a deleted fruit back under its id and catalog number, as it was when deleted, its
    kept images (`catalog.services.fruit_images_restore`) and card image included.

    Raises `VersionNotFound` (never deleted, restored already, or purged), `CatalogNumberHeld`.
    """
    if Fruit.objects.filter(pk=fruit_id).exists():
        raise VersionNotFound(fruit_id)
    versions = fruit_versions(fruit_id)
    if not versions or versions[-1].action != "deleted":
        raise VersionNotFound(fruit_id)
    last = versions[-1]
    with transaction.atomic(), _door_as("restored"):
        lock_deleted_fruits()
        back = Fruit.objects.filter(pk=fruit_id).exists()
        if back or PurgedFruit.objects.filter(fruit_id=fruit_id).exists():
            raise VersionNotFound(fruit_id)
        _check_number(last.state["catalog_number"], fruit_id)
        relations, values, missing = restorable(last, fruit_id)
        fruit = Fruit(
            pk=fruit_id,
            name=last.state["name"],
            type=last.state["type"],
            catalog_number=last.state["catalog_number"],
        )
        fruit_save(fruit=fruit, names=last.state["names"], relations=relations)
        fruit_set_characteristics(fruit=fruit, records=values)
        restored = set(fruit_images_restore(fruit_id=fruit_id))
    lost = [image for image in last.state["images"] if image["id"] not in restored]
    if lost:
        missing.append(_("%(count)s image(s): their bytes were not kept") % {"count": len(lost)})
    return fruit, missing


def _revertible(versions: list[Version], version_id: str) -> Version:
    """The version a revert can go back to (not a deletion), else `VersionNotFound`."""
    target = next((v for v in versions if v.id == version_id and v.action != "deleted"), None)
    if target is None:
        raise VersionNotFound(version_id)
    return target


def _door_as(action: str):
    """A door of the action, through the door the request came in by (else a command's)."""
    outer = current_door()
    return door(outer.via if outer is not None else "command", action=action)


def _check_number(number: int | None, fruit_id: int) -> None:
    if number is None:
        return
    holder = Fruit.objects.filter(catalog_number=number).exclude(pk=fruit_id).first()
    if holder is not None:
        raise CatalogNumberHeld(number, holder.pk)


def restorable(version: Version, fruit_id: int) -> tuple[list[dict], list[dict], list[str]]:
    """The version's relations and values as the services take them, and what cannot be
    restored as it was."""
    state, missing = version.state, []
    others = {r["other_id"] for r in state["relations"] if r["other_id"] is not None}
    present = set(Fruit.objects.filter(pk__in=others).values_list("pk", flat=True))
    relations = []
    for record in state["relations"]:
        if record["other_id"] is not None and record["other_id"] not in present:
            missing.append(
                _("relation %(kind)s %(name)s: fruit %(fruit)s was deleted; kept by its name")
                % {"kind": record["kind"], "name": record["name"], "fruit": record["other_id"]}
            )
            record = {**record, "other_id": None}
        relations.append(record)
    wanted = state["characteristics"]
    characteristics = {
        char.pk: char
        for char in Characteristic.objects.filter(pk__in=[v["characteristic_id"] for v in wanted])
    }
    states = set(
        CharacteristicState.objects.filter(
            pk__in=[pk for value in wanted for pk in value["state_ids"]]
        ).values_list("pk", flat=True)
    )
    linked = set(
        PublicationFruit.objects.filter(fruit_id=fruit_id).values_list("publication_id", flat=True)
    )
    values = []
    for value in wanted:
        char = characteristics.get(value["characteristic_id"])
        if char is None or state["type"] not in char.type_list:
            missing.append(
                _("characteristic %(code)s: removed or no longer of this type")
                % {"code": value["code"]}
            )
            continue
        if not set(value["state_ids"]) <= states:
            missing.append(
                _("characteristic %(code)s: a state was removed") % {"code": value["code"]}
            )
            continue
        record = {key: value[key] for key in RECORD_KEYS}
        source = record["source_publication_id"]
        if source is not None and source not in linked:
            missing.append(
                _(
                    "characteristic %(code)s: publication %(publication)s no longer describes "
                    "the fruit; kept without its source"
                )
                % {"code": value["code"], "publication": source}
            )
            record |= {"source_publication_id": None, "pages": ""}
        values.append(record)
    return relations, values, missing


RECORD_KEYS = ["characteristic_id", "state_ids", "source_publication_id", "pages", "note"]
