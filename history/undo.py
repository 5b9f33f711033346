"""Undoing an import: the fruits it created are deleted, the fruits it changed are put back as
they were before it, in one transaction.

An applied import is one revision whose historical rows name its batch (`ImportBatch`), so the
fruits it touched and what each was before it are read from the historical tables: a query per
table for every 500 fruits, however many rows the import had. A fruit that something changed
after the import (a later version of the fruit or of its names, relations, images or values) is
a conflict, unless it is again what the import left (the later change was itself taken back, as
undoing a later import does): undoing it would throw that change away, so it is left as it is,
and only `force` undoes the others. So is a created fruit a publication cites (its deletion is
refused), and a changed fruit whose state before the import was never recorded.

The changed fruits are put back through the catalog's and identification's services inside a
door of action `reverted`; the created ones are deleted through `fruits_delete`, as `fruit_delete`
deletes any fruit, a few hundred at a time, and so are listed among the deleted fruits and can
be restored.
"""

from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import ProtectedError
from django.utils import timezone

from catalog.models import Fruit, FruitImage, FruitName, FruitRelation, ImportBatch
from catalog.services import fruit_update, fruits_delete, fruits_update
from core.history import current_door, door
from history.services import restorable
from history.versions import FRUITS_PER_QUERY, Version, fruits_versions
from identification.models import FruitCharacteristic
from identification.services import fruit_set_characteristics
from publications.models import PublicationFruit

# What undoing puts back of a fruit: images are never reverted (an import does not touch them).
RESTORED = ["name", "type", "catalog_number", "names", "relations", "characteristics"]


class AlreadyUndone(Exception):
    """The import was undone before."""


class UndoConflict(Exception):
    """Fruits the import touched that cannot be undone without losing a later change."""

    def __init__(self, fruit_ids):
        self.fruit_ids = sorted(fruit_ids)
        super().__init__(f"Changed since the import: fruits {self.fruit_ids}.")


@dataclass
class FruitUndo:
    """What undoing the import does to one fruit it touched."""

    fruit_id: int
    name: str  # as it is now (as the import left it, for a fruit since deleted)
    catalog_number: int | None
    created: bool  # the import created it: it is deleted; else it is put back
    # What putting it back changes: `{key: {"from": now, "to": before the import}}`.
    changes: dict = field(default_factory=dict)
    conflict: str = ""  # why it is left as it is; "" when it can be undone
    later: Version | None = None  # the first version after the import's, if any
    before: Version | None = field(default=None, repr=False)  # the version it is put back to


@dataclass
class UndoPlan:
    """What undoing an import would do: each fruit it touched, in catalog order."""

    batch: ImportBatch
    fruits: list[FruitUndo]

    @property
    def deleted(self) -> list[FruitUndo]:
        """The fruits the import created, to be deleted."""
        return [item for item in self.fruits if item.created and not item.conflict]

    @property
    def reverted(self) -> list[FruitUndo]:
        """The fruits the import changed, to be put back."""
        return [item for item in self.fruits if not item.created and not item.conflict]

    @property
    def conflicts(self) -> list[FruitUndo]:
        """The fruits left as they are (only with `force`)."""
        return [item for item in self.fruits if item.conflict]


@dataclass
class UndoReport:
    """What undoing an import did: fruits deleted, put back, left (forced), and what of the
    put back fruits could not come back as it was."""

    batch: ImportBatch
    deleted: list[int] = field(default_factory=list)
    reverted: list[int] = field(default_factory=list)
    left: list[int] = field(default_factory=list)
    not_restored: list[str] = field(default_factory=list)


def undo_plan(*, batch_id: int) -> UndoPlan:
    """What undoing the import would do, read without writing (the admin's preview).

    Raises `ImportBatch.DoesNotExist`.
    """
    return _plan(ImportBatch.objects.select_related("user").get(pk=batch_id))


def import_undo(*, batch_id: int, force: bool = False) -> UndoReport:
    """Undo the import in one transaction: delete the fruits it created, put back the fruits it
    changed (their fields, names, relations and characteristic values), and mark it undone.

    The fruits it touched are locked first, so no write of them slips in between the check and
    the undo. Raises `ImportBatch.DoesNotExist`, `AlreadyUndone`, and `UndoConflict` naming the
    fruits changed since (nothing is written) unless `force`, which leaves those as they are.
    """
    with transaction.atomic():
        batch = ImportBatch.objects.select_for_update().filter(pk=batch_id).first()
        if batch is None:
            raise ImportBatch.DoesNotExist(f"Import {batch_id} does not exist.")
        if batch.undone_at is not None:
            raise AlreadyUndone(batch_id)
        touched, created = _touched(batch.pk)
        fruits = _lock(touched)
        plan = _plan(batch, touched=touched, created=created)
        if plan.conflicts and not force:
            raise UndoConflict(item.fruit_id for item in plan.conflicts)
        report = UndoReport(batch=batch, left=[item.fruit_id for item in plan.conflicts])
        if plan.reverted:
            with _door("reverted"):
                together = [item for item in plan.reverted if _together(item)]
                for start in range(0, len(together), PUT_BACK_PER_CALL):
                    chunk = together[start : start + PUT_BACK_PER_CALL]
                    changes = [(fruits[item.fruit_id], _fields(item)) for item in chunk]
                    fruits_update(changes=changes)
                written = {item.fruit_id for item in together}
                for item in plan.reverted:
                    report.not_restored += _put_back(
                        item, fruits[item.fruit_id], fields_written=item.fruit_id in written
                    )
                    report.reverted.append(item.fruit_id)
        with _door(""):
            created = [fruits[item.fruit_id] for item in plan.deleted]
            for start in range(0, len(created), DELETED_PER_CALL):
                chunk = created[start : start + DELETED_PER_CALL]
                report.deleted += _delete(chunk, force=force, left=report.left)
        batch.undone_at = timezone.now()
        batch.save(update_fields=["undone_at"])
    report.left.sort()
    return report


# Created fruits deleted by one call of `fruits_delete`: a few statements for them all, each
# naming at most this many ids (within every database's limit of parameters).
DELETED_PER_CALL = 500


def _delete(fruits: list[Fruit], *, force: bool, left: list[int]) -> list[int]:
    """Delete the fruits (`fruits_delete`); returns their ids. A publication citing some since
    the check (`ProtectedError`) is a conflict, unless `force`: those are added to `left`
    and the others deleted."""
    while fruits:
        try:
            with transaction.atomic():
                fruits_delete(fruits=fruits)
        except ProtectedError as error:
            cited = {getattr(row, "fruit_id", None) for row in error.protected_objects}
            cited &= {fruit.pk for fruit in fruits}
            if not cited:
                raise
            if not force:
                raise UndoConflict(cited) from None
            left += sorted(cited)
            fruits = [fruit for fruit in fruits if fruit.pk not in cited]
            continue
        return [fruit.pk for fruit in fruits]
    return []


def _door(action: str):
    """A door of the action, through the door the request came in by (else a command's)."""
    outer = current_door()
    return door(outer.via if outer is not None else "command", action=action)


def _touched(batch_id: int) -> tuple[set[int], set[int]]:
    """The fruits the import wrote (itself or its parts), and those it created: a query per
    table. A value's states are written with the value, so the values' rows name them all."""
    created, touched = set(), set()
    for pk, kind in Fruit.history.filter(batch=batch_id).values_list("id", "history_type"):
        touched.add(pk)
        if kind == "+":
            created.add(pk)
    for model in (FruitName, FruitRelation, FruitImage, FruitCharacteristic):
        rows = model.history.filter(batch=batch_id).values_list("fruit_id", flat=True)
        touched.update(rows.distinct())
    return touched, created


def _lock(fruit_ids: set[int]) -> dict[int, Fruit]:
    """Lock the fruits still there until the transaction ends (`FOR UPDATE`: some are deleted);
    returns them by id."""
    ids, fruits = sorted(fruit_ids), {}
    for start in range(0, len(ids), FRUITS_PER_QUERY):
        chunk = ids[start : start + FRUITS_PER_QUERY]
        locked = Fruit.objects.select_for_update().filter(pk__in=chunk).order_by("pk")
        fruits.update((fruit.pk, fruit) for fruit in locked)
    return fruits


def _plan(batch: ImportBatch, *, touched=None, created=None) -> UndoPlan:
    """Each fruit the import touched: deleted, put back, or a conflict and why."""
    if touched is None:
        touched, created = _touched(batch.pk)
    versions = fruits_versions(touched)
    cited = _cited(created)
    fruits = []
    for pk in sorted(touched):
        history = versions.get(pk, [])
        index = next((i for i, version in enumerate(history) if version.batch == batch.pk), None)
        if index is None:
            continue  # no row of the fruit itself: nothing to undo
        mine = history[index]
        state = history[-1].state
        item = FruitUndo(
            fruit_id=pk,
            name=state.get("name", ""),
            catalog_number=state.get("catalog_number"),
            created=pk in created,
        )
        if index + 1 < len(history) and _differs(history[-1], mine):
            item.later = history[index + 1]
            item.conflict = "changed since"
        elif item.created and pk in cited:
            item.conflict = "a publication cites it"
        elif not item.created and (index == 0 or not history[index - 1].state):
            item.conflict = "its state before the import was never recorded"
        if not item.created and index > 0 and history[index - 1].state:
            item.before = history[index - 1]
            after, back = mine.state, item.before.state
            item.changes = {
                key: {"from": after.get(key), "to": back.get(key)}
                for key in RESTORED
                if after.get(key) != back.get(key)
            }
        fruits.append(item)
    fruits.sort(key=lambda item: (item.catalog_number is None, item.catalog_number, item.fruit_id))
    return UndoPlan(batch=batch, fruits=fruits)


def _differs(now: Version, mine: Version) -> bool:
    """Whether the fruit is no longer what the import left: changed since (and not put back,
    as undoing a later import puts it back), or deleted."""
    if now.action == "deleted":
        return True
    return any(now.state.get(key) != mine.state.get(key) for key in RESTORED)


def _cited(fruit_ids) -> set[int]:
    """The fruits a publication cites: their deletion is refused (`PROTECT`)."""
    ids, cited = sorted(fruit_ids or ()), set()
    for start in range(0, len(ids), FRUITS_PER_QUERY):
        links = PublicationFruit.objects.filter(fruit_id__in=ids[start : start + FRUITS_PER_QUERY])
        cited.update(links.values_list("fruit_id", flat=True))
    return cited


# What `fruit_update` writes back; the name, type and other names of many fruits together
# (`fruits_update`, this many a call) when nothing else of theirs changes.
FIELDS = {"name", "type", "catalog_number", "names", "relations"}
TOGETHER = {"name", "type", "names"}
PUT_BACK_PER_CALL = 500


def _together(item: FruitUndo) -> bool:
    """Whether the fruit's fields and names are put back with others' (`fruits_update`)."""
    changed = item.changes.keys() & FIELDS
    return bool(changed) and changed <= TOGETHER


def _fields(item: FruitUndo) -> dict:
    """What `fruits_update` writes back of the fruit: other names only when they changed."""
    state = item.before.state
    names = state["names"] if "names" in item.changes else None
    return {"name": state["name"], "type": state["type"], "names": names}


def _put_back(item: FruitUndo, fruit: Fruit, *, fields_written: bool = False) -> list[str]:
    """Write back what the import changed of the fruit (its fields and names unless already
    `fields_written`); returns what could not come back. Nothing unchanged is written."""
    target, changed = item.before, item.changes
    state = target.state
    relations, values, missing = [], [], []
    if changed.keys() & {"relations", "characteristics", "type"}:
        relations, values, missing = restorable(target, item.fruit_id)
    if changed.keys() & FIELDS and not fields_written:
        fruit_update(
            fruit=fruit,
            name=state["name"],
            type=state["type"],
            catalog_number=state["catalog_number"],
            names=state["names"] if "names" in changed else None,
            relations=relations if "relations" in changed else None,
        )
    # A fruit given back its type loses the values that do not apply to it: they are set again.
    if changed.keys() & {"characteristics", "type"}:
        fruit_set_characteristics(fruit=fruit, records=values)
    return [f"fruit {item.fruit_id}: {message}" for message in missing]
