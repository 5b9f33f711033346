"""Writes of fruits: the API and the admin both store through these."""

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import Max, QuerySet
from django.db.models.functions import Now
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from catalog.models import (
    ANCESTRY,
    CATALOG_NUMBER_MAX,
    NAME_FIELDS,
    CatalogNumberMark,
    Fruit,
    FruitImage,
    FruitName,
    FruitRelation,
    FruitSpelling,
    KeptFruitImage,
    NameKind,
    add_spellings,
    searched_names_elsewhere,
)
from catalog.signals import fruit_written
from catalog.validators import LOOP_MESSAGE, descends_from
from core.db.copies import insert_select
from core.db.locks import lock_row
from core.db.search import fold, name_key
from core.history import announce

# Creates that assign a number take this transaction-scoped advisory lock on PostgreSQL, so they
# run one after another instead of colliding and retrying (on SQLite, IMMEDIATE transactions
# already serialise every writer); explicitly numbered creates never wait for it. The lock also
# guards the high-water mark (`CatalogNumberMark`), whose row a flushed database may lack.
CATALOG_NUMBER_LOCK = 0x46_52_55_49_54  # "FRUIT": any constant the application owns will do
# A create racing a fruit stored with an explicit number can still meet the unique constraint.
CATALOG_NUMBER_ATTEMPTS = 3
NUMBER_TAKEN = gettext_lazy("fruit with this catalog number already exists.")
# What a write leaves alone when it does not name it (a fruit's card image).
UNCHANGED = object()


def lock_catalog_numbers() -> None:
    """Serialise automatic number assignments until the transaction ends (PostgreSQL)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [CATALOG_NUMBER_LOCK])


# Writes of descent (mother, father, parent, sport_of, seedling_of) take this lock, so two
# fruits cannot become each other's ancestors at once; SQLite serialises writers anyway.
DESCENT_LOCK = 0x44_45_53_43  # "DESC"


def lock_descent() -> None:
    """Take the transaction-scoped lock under which descent is written (PostgreSQL)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [DESCENT_LOCK])


def next_catalog_number() -> int:
    """One more than every number assigned automatically so far and every number held now."""
    held = Fruit.objects.aggregate(highest=Max("catalog_number"))["highest"] or 0
    assigned = CatalogNumberMark.objects.values_list("highest_assigned", flat=True).first() or 0
    current = max(held, assigned)
    if current >= CATALOG_NUMBER_MAX:
        raise ValidationError(
            {"catalog_number": [gettext("No free catalog number is left; give one.")]}
        )
    return current + 1


def assign_catalog_number() -> int:
    """The next automatic number, recorded as assigned (in the caller's transaction)."""
    lock_catalog_numbers()
    number = next_catalog_number()
    CatalogNumberMark.objects.update_or_create(pk=1, defaults={"highest_assigned": number})
    return number


def fruit_set_relations(*, fruit: Fruit, relations: list[dict], new: bool = False) -> None:
    """Replace the fruit's relations with `relations` (records checked by `clean_relations`);
    a `new` fruit, just created, has none to replace.

    Call it in the transaction that holds the fruit's lock. The related fruits are locked too: a
    fruit deleted since the check is kept by its name, as its deletion keeps what others say of
    it. Writes of descent are serialised and the loop check is made again under that lock, so
    two fruits cannot become each other's ancestors at once (`ValidationError` on `relations`).
    A loop closed by a link that the same write made by name (`fruit_save` links before the
    admin's relations are stored) undoes that link instead: a link by name yields to the
    relations a curator writes.
    """
    ids = sorted({record["other_id"] for record in relations if record["other_id"] is not None})
    present = set(
        Fruit.objects.select_for_update()
        .filter(pk__in=ids)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    relations = [
        record
        if record["other_id"] in present or record["other_id"] is None
        else {**record, "other_id": None}
        for record in relations
    ]
    ancestors = [r["other_id"] for r in relations if r["kind"] in ANCESTRY and r["other_id"]]
    made_by_name = fruit.__dict__.pop("relations_linked_by_name", [])
    if ancestors:
        lock_descent()
        if descends_from(ancestors, fruit.pk):
            _yield_links_by_name(fruit, made_by_name, ancestors)
            if descends_from(ancestors, fruit.pk):
                raise ValidationError({"relations": [LOOP_MESSAGE]})
    if not new:
        stored = FruitRelation.objects.filter(fruit=fruit).order_by("position")
        fields = ("kind", "other_id", "name", "note")
        wanted = [tuple(record[field] for field in fields) for record in relations]
        if [tuple(getattr(row, field) for field in fields) for row in stored] == wanted:
            return  # the same relations: nothing to write
        stored.delete()
    made = FruitRelation.objects.bulk_create(
        FruitRelation(
            fruit=fruit,
            kind=record["kind"],
            other_id=record["other_id"],
            name=record["name"],
            name_key=name_key(record["name"]),
            note=record["note"],
            position=index,
        )
        for index, record in enumerate(relations)
    )
    announce(FruitRelation, made, "created")


# Names looked up per query when linking relations given by name: well within every
# database's limit of parameters.
NAMES_PER_QUERY = 500


@dataclass
class RelationLinks:
    """What linking relations given by name did: how many it linked, and what it left by name
    and why."""

    linked: int = 0
    # Names several fruits of the catalog hold: which one is meant, only a curator can tell.
    ambiguous: set[str] = field(default_factory=set)
    # "Elstar: mother Golden Delicious": links that would make a fruit its own ancestor.
    loops: list[str] = field(default_factory=list)
    # Relations whose fruit already holds that relation to the named fruit.
    duplicates: int = 0
    # Relations whose name no fruit of the catalog holds (yet).
    unknown: int = 0
    # (relation id, its fruit's id, kind, the name it was given) of each link made.
    made: list[tuple[int, int, str, str]] = field(default_factory=list)


def fruits_holding_names(names: Iterable[str]) -> dict[str, set[int]]:
    """The fruits holding each name (by its `name_key`) as their own name or as another name,
    misapplied names excepted (a name used wrongly for a variety is no name of it).

    The fruits' spellings (one index) narrow the candidates; their names' keys decide.
    """
    names = list(names)
    keys = {name_key(name) for name in names}
    folded = sorted({fold(text) for text in [*names, *keys]} - {""})
    held: dict[str, set[int]] = defaultdict(set)
    for start in range(0, len(folded), NAMES_PER_QUERY):
        chunk = folded[start : start + NAMES_PER_QUERY]
        candidates = set(
            FruitSpelling.objects.filter(spelling__in=chunk).values_list("fruit_id", flat=True)
        )
        for pk, name in Fruit.objects.filter(pk__in=candidates).values_list("pk", "name"):
            if name_key(name) in keys:
                held[name_key(name)].add(pk)
        other_names = (
            FruitName.objects.filter(fruit_id__in=candidates, name_key__in=keys)
            .exclude(kind=NameKind.MISAPPLIED)
            .values_list("name_key", "fruit_id")
        )
        for key, fruit_id in other_names:
            held[key].add(fruit_id)
    return held


def _link_by_name(rows: list[FruitRelation], report: RelationLinks) -> None:
    """Link each relation given by name to the one fruit holding that name, in the caller's
    transaction; leave it by name when several fruits hold the name, when its fruit already
    has that relation to the named fruit, or when it would make a parentage loop.

    The named fruits are locked first, as a relation to a fruit is written: one deleted
    meanwhile is left out. Descent is linked under the descent lock, and each link is checked
    against those made before it.
    """
    held = fruits_holding_names(row.name for row in rows)
    single = {key: next(iter(pks)) for key, pks in held.items() if len(pks) == 1}
    targets = dict(
        Fruit.objects.select_for_update(no_key=True)
        .filter(pk__in=set(single.values()))
        .order_by("pk")
        .values_list("pk", "name")
    )
    holders = {row.fruit_id for row in rows}
    taken = set(
        FruitRelation.objects.filter(fruit_id__in=holders, other_id__in=targets).values_list(
            "fruit_id", "kind", "other_id"
        )
    )
    holder_names = None
    linked: list[int] = []
    for row in rows:
        key = name_key(row.name)
        if len(held.get(key, ())) > 1:
            report.ambiguous.add(row.name)
            continue
        target = single.get(key)
        if target not in targets or target == row.fruit_id:
            report.unknown += 1
            continue
        if (row.fruit_id, row.kind, target) in taken:
            report.duplicates += 1
            continue
        if row.kind in ANCESTRY:
            lock_descent()
            if descends_from([target], row.fruit_id):
                if holder_names is None:
                    holder_names = dict(
                        Fruit.objects.filter(pk__in=holders).values_list("pk", "name")
                    )
                report.loops.append(f"{holder_names.get(row.fruit_id)}: {row.kind} {row.name}")
                continue
        name = targets[target]
        if FruitRelation.objects.filter(pk=row.pk, other__isnull=True).update(
            other_id=target, name=name, name_key=name_key(name)
        ):
            linked.append(row.pk)
            taken.add((row.fruit_id, row.kind, target))
            report.linked += 1
            report.made.append((row.pk, row.fruit_id, row.kind, row.name))
    # The history and the feed learn of them all at once: a statement, not two a relation.
    announce(FruitRelation, FruitRelation.objects.filter(pk__in=linked), "changed")


def _yield_links_by_name(fruit: Fruit, made: list[tuple], ancestors: list[int]) -> None:
    """Give back their names the relations this write linked by name to `fruit` (`made`: the
    `RelationLinks.made` of its `fruit_save`) whose fruit the new `ancestors` descend from."""
    for relation_id, holder_id, kind, given in made:
        if kind in ANCESTRY and descends_from(ancestors, holder_id):
            given_back = FruitRelation.objects.filter(pk=relation_id, other=fruit)
            if given_back.update(other=None, name=given, name_key=name_key(given)):
                announce(FruitRelation, FruitRelation.objects.filter(pk=relation_id), "changed")


def relations_link_to(*, fruit: Fruit, names: list[str]) -> RelationLinks:
    """Link the relations of other fruits given by one of `names` (the fruit's name and other
    names) to `fruit`, unless another fruit holds that name too or a loop would follow.

    Call it in the transaction that wrote the fruit, its names and its spellings, holding its
    lock. One indexed probe when no relation names it.
    """
    return _link_to_names(names, exclude=fruit)


def _link_to_names(names: Iterable[str], *, exclude: Fruit | None = None) -> RelationLinks:
    """Link the relations given by one of `names` (of the fruits just written, which hold
    them; `exclude`: a fruit whose own relations are left) to the fruit holding that name, as
    `relations_link_to` does: an indexed probe for every `NAMES_PER_QUERY` names."""
    report = RelationLinks()
    keys = sorted({name_key(name) for name in names})
    rows = []
    for start in range(0, len(keys), NAMES_PER_QUERY):
        # Unordered: an ORDER BY leads SQLite's planner to the foreign key's index instead.
        found = FruitRelation.objects.filter(
            other__isnull=True, name_key__in=keys[start : start + NAMES_PER_QUERY]
        )
        if exclude is not None:
            found = found.exclude(fruit=exclude)
        rows.extend(found.order_by().only("pk", "fruit_id", "kind", "name"))
    rows = sorted(rows, key=lambda row: row.pk)
    if rows:
        _link_by_name(rows, report)
    return report


# Relations linked per transaction by `relations_link_by_name`: a long run keeps its progress
# and holds its locks briefly.
LINK_BATCH_SIZE = 500


def relations_link_by_name(*, fruits: QuerySet | None = None) -> RelationLinks:
    """Link the relations given by name that the `fruits` hold (every fruit's when None) to the
    fruit of the catalog holding that name, as a fruit's creation links those naming it.

    A name several fruits hold stays a name (`ambiguous`), as does a link that would make a
    parentage loop (`loops`) or repeat a relation its fruit holds (`duplicates`); names no fruit
    holds are counted (`unknown`). Runs in batches, a transaction each.
    """
    report = RelationLinks()
    rows = FruitRelation.objects.filter(other__isnull=True).order_by("pk")
    if fruits is not None:
        rows = rows.filter(fruit__in=fruits.values("pk"))
    rows = rows.only("pk", "fruit_id", "kind", "name")
    last_pk = 0
    while True:
        with transaction.atomic():
            batch = list(rows.filter(pk__gt=last_pk)[:LINK_BATCH_SIZE])
            if not batch:
                return report
            _link_by_name(batch, report)
        last_pk = batch[-1].pk


def _name_rows(fruit: Fruit, names: list[dict]) -> list[FruitName]:
    """The rows of the fruit's other names, in order."""
    return [
        FruitName(
            fruit=fruit,
            name=record["name"],
            name_key=name_key(record["name"]),
            position=index,
            kind=record["kind"],
            language=record["language"],
            note=record["note"],
        )
        for index, record in enumerate(names)
    ]


def fruit_set_names(*, fruit: Fruit, names: list[dict], new: bool = False) -> None:
    """Replace the fruit's other names with `names` (records checked by `clean_names`), in
    order; a `new` fruit, just created, has none to replace."""
    if not new:
        stored = FruitName.objects.filter(fruit=fruit).order_by("position")
        wanted = [{field: record[field] for field in NAME_FIELDS} for record in names]
        if [name.as_record() for name in stored] == wanted:
            return  # the same names: nothing to write (a re-import of an unchanged row)
        stored.delete()
    announce(FruitName, FruitName.objects.bulk_create(_name_rows(fruit, names)), "created")
    fruit.__dict__.pop("name_list", None)  # what `with_list_data()` read is stale now


def fruit_save(
    *,
    fruit: Fruit,
    names: list[dict] | None = None,
    relations: list[dict] | None = None,
    card_image_id=UNCHANGED,
) -> Fruit:
    """Store a new or changed fruit; an empty catalog number gets the next, never used before.

    Assignments are serialised (`lock_catalog_numbers`). A changed fruit is locked first and
    updated, never inserted again: a fruit deleted meanwhile raises `Fruit.DoesNotExist`.
    `names`, when given, replace the other names; the search column follows name, number and
    names. `card_image_id`, when given, chooses the card image (`fruit_set_card_image`).
    """
    wants_number = fruit.catalog_number is None
    adding = fruit._state.adding
    for attempt in range(CATALOG_NUMBER_ATTEMPTS):
        try:
            with transaction.atomic():
                previous_type = previous_number = None
                previous_name = None
                if not adding:
                    previous_type, previous_number, previous_name = lock_row(
                        Fruit, fruit.pk, read=("type", "catalog_number", "name")
                    )
                if wants_number:
                    fruit.catalog_number = assign_catalog_number()
                fruit.save(force_insert=adding, force_update=not adding)
                if names is not None:
                    fruit_set_names(fruit=fruit, names=names, new=adding)
                if relations is not None:
                    fruit_set_relations(fruit=fruit, relations=relations, new=adding)
                if card_image_id is not UNCHANGED:
                    _set_card_image(fruit_id=fruit.pk, image_id=card_image_id)
                fruit.refresh_search_text(
                    None if names is None else [record["name"] for record in names], new=adding
                )
                if names is not None or fruit.name != previous_name:
                    links = relations_link_to(fruit=fruit, names=_names_of(fruit, names))
                    # What `fruit_set_relations` undoes when relations written after this call
                    # (the admin's inline) would close a loop through them.
                    fruit.relations_linked_by_name = links.made
                fruit_written.send(
                    sender=Fruit,
                    fruit=fruit,
                    previous_type=previous_type,
                    renumbered=not adding and previous_number != fruit.catalog_number,
                    deleted=False,
                )
                return fruit
        except IntegrityError:
            if adding:
                fruit.pk = None  # the failed INSERT must not leave an id behind for the retry
                fruit._state.adding = True
            # Only the catalog number's race is expected here; any other refusal is a bug.
            taken = Fruit.objects.filter(catalog_number=fruit.catalog_number).exclude(pk=fruit.pk)
            if not taken.exists():
                raise
            if not wants_number or attempt == CATALOG_NUMBER_ATTEMPTS - 1:
                raise ValidationError({"catalog_number": [NUMBER_TAKEN]}) from None
    raise AssertionError("unreachable")


def _names_of(fruit: Fruit, names: list[dict] | None) -> list[str]:
    """The fruit's name and its other names (`names` as written, else as stored), misapplied
    names excepted: what relations given by name may mean it by."""
    if names is None:
        stored = fruit.names.exclude(kind=NameKind.MISAPPLIED).values_list("name", flat=True)
        return [fruit.name, *stored]
    return [fruit.name, *(r["name"] for r in names if r.get("kind") != NameKind.MISAPPLIED)]


def fruit_create(
    *,
    names: list[dict] | None = None,
    relations: list[dict] | None = None,
    card_image_id=UNCHANGED,
    **fields,
) -> Fruit:
    """Create a fruit with its names and relations (a new fruit has no image to choose: only
    None passes)."""
    return fruit_save(
        fruit=Fruit(**fields),
        names=names or [],
        relations=relations or [],
        card_image_id=card_image_id,
    )


class CatalogNumberTaken(ValidationError):
    """A number given to a new fruit that another fruit took after it was checked."""

    def __init__(self, catalog_number: int):
        super().__init__({"catalog_number": [NUMBER_TAKEN]})
        self.catalog_number = catalog_number


@transaction.atomic
def fruits_create(*, records: list[dict]) -> list[Fruit]:
    """Create fruits as `fruit_create` creates each (their numbers given; other names, no
    relations, no image), a few statements for them all: a bulk insert of the fruits with
    their search text, one of their other names, one of their spellings and words, the
    relations given by their names linked, and `fruit_written` sent for each.

    `records`: `catalog_number`, `name`, `type` and `names` (checked by `clean_names`). A
    number another fruit holds now raises `CatalogNumberTaken` naming it, and nothing is
    stored. Returns the fruits, saved, in the order of `records`.
    """
    fruits = [
        Fruit(catalog_number=record["catalog_number"], name=record["name"], type=record["type"])
        for record in records
    ]
    texts = [[name["name"] for name in record["names"]] for record in records]
    for fruit, names in zip(fruits, texts, strict=True):
        fruit.set_search_text(names)
    try:
        with transaction.atomic():
            Fruit.objects.bulk_create(fruits)
            announce(Fruit, fruits, "created")
    except IntegrityError:
        numbers = [fruit.catalog_number for fruit in fruits]
        taken = set(
            Fruit.objects.filter(catalog_number__in=numbers).values_list(
                "catalog_number", flat=True
            )
        )
        first = next((number for number in numbers if number in taken), None)
        if first is None:
            raise  # only the catalog number's race is expected here; any other is a bug
        raise CatalogNumberTaken(first) from None
    names = FruitName.objects.bulk_create(
        row
        for fruit, record in zip(fruits, records, strict=True)
        for row in _name_rows(fruit, record["names"])
    )
    announce(FruitName, names, "created")
    add_spellings(zip(fruits, texts, strict=True))
    _link_to_names(
        name
        for fruit, record in zip(fruits, records, strict=True)
        for name in _names_of(fruit, record["names"])
    )
    for fruit in fruits:
        fruit_written.send(
            sender=Fruit, fruit=fruit, previous_type=None, renumbered=False, deleted=False
        )
    return fruits


def fruit_update(
    *,
    fruit: Fruit,
    names: list[dict] | None = None,
    relations: list[dict] | None = None,
    card_image_id=UNCHANGED,
    **fields,
) -> Fruit:
    """Update a fruit's fields and, when given, replace its names and relations and choose its
    card image."""
    for name, value in fields.items():
        setattr(fruit, name, value)
    return fruit_save(fruit=fruit, names=names, relations=relations, card_image_id=card_image_id)


@transaction.atomic
def fruits_update(*, changes: list[tuple[Fruit, dict]]) -> None:
    """Update fruits' names and types and, when given, replace their other names, as
    `fruit_update` does for each: an UPDATE a fruit and a few statements for them all (give a
    few hundred at a time), the relations given by their names linked as `relations_link_to`
    links them (a probe for every `NAMES_PER_QUERY` names).

    `changes`: `(fruit, {"name": ..., "type": ..., "names": [...] or None})`, a fruit once;
    its catalog number is left as it is. Raises `Fruit.DoesNotExist` when one is gone.
    """
    ids = sorted(fruit.pk for fruit, _ in changes)
    previous = {
        pk: (fruit_type, name)
        for pk, fruit_type, name in Fruit._base_manager.filter(pk__in=ids)
        .select_for_update(no_key=True)
        .order_by("pk")
        .values_list("pk", "type", "name")
    }
    missing = [pk for pk in ids if pk not in previous]
    if missing:
        raise Fruit.DoesNotExist(f"Fruits {missing} do not exist.")
    stored = defaultdict(list)
    for row in FruitName.objects.filter(fruit_id__in=ids).order_by("fruit_id", "position", "pk"):
        stored[row.fruit_id].append(row)
    replaced, texts = [], {}
    for fruit, change in changes:
        fruit.name, fruit.type = change["name"], change["type"]
        names = change.get("names")
        if names is not None:
            wanted = [{field: record[field] for field in NAME_FIELDS} for record in names]
            if [row.as_record() for row in stored[fruit.pk]] != wanted:
                replaced.append((fruit, names))
            texts[fruit.pk] = [record["name"] for record in names]
        else:
            texts[fruit.pk] = [row.name for row in stored[fruit.pk]]
    FruitName.objects.filter(fruit_id__in=[fruit.pk for fruit, _ in replaced]).delete()
    made = FruitName.objects.bulk_create(
        row for fruit, names in replaced for row in _name_rows(fruit, names)
    )
    announce(FruitName, made, "created")
    elsewhere = searched_names_elsewhere(ids)
    now = timezone.now()
    fruits = [fruit for fruit, _ in changes]
    searched = []
    for fruit in fruits:
        fruit.__dict__.pop("name_list", None)
        names = [*texts[fruit.pk], *elsewhere.get(fruit.pk, [])]
        fruit.set_search_text(names)
        fruit.updated_at = now
        searched.append((fruit, names))
    # An UPDATE a fruit: `bulk_update`'s CASE over every row costs more to build and to run
    # than the statements it saves (some 8 s against 3 for 3,000 fruits on PostgreSQL).
    for fruit in fruits:
        Fruit.objects.filter(pk=fruit.pk).update(
            name=fruit.name, type=fruit.type, search_text=fruit.search_text, updated_at=now
        )
    announce(Fruit, Fruit.objects.filter(pk__in=ids), "changed")
    FruitSpelling.objects.filter(fruit_id__in=ids).delete()
    add_spellings(searched)
    linking = []  # the names of the fruits whose names changed: relations may name them now
    for fruit, change in changes:
        records = change.get("names")
        if records is not None or fruit.name != previous[fruit.pk][1]:
            if records is None:
                records = [row.as_record() for row in stored[fruit.pk]]
            linking.extend(_names_of(fruit, records))
    _link_to_names(linking)
    for fruit, _ in changes:
        previous_type, _ = previous[fruit.pk]
        fruit_written.send(
            sender=Fruit,
            fruit=fruit,
            previous_type=previous_type,
            renumbered=False,
            deleted=False,
        )


@transaction.atomic
def fruit_touch(*, fruit: Fruit) -> Fruit:
    """Lock the fruit for another app's write of what it holds (a bulk import's characteristic
    columns) and date the change (`updated_at`, the exports' per-fruit date), leaving its own
    fields, names and search as they are. Raises `Fruit.DoesNotExist` when it is gone."""
    lock_row(Fruit, fruit.pk)
    fruit.updated_at = timezone.now()
    Fruit.objects.filter(pk=fruit.pk).update(updated_at=fruit.updated_at)
    return fruit


def _set_card_image(*, fruit_id: int, image_id: int | None) -> None:
    """Make one of the fruit's images its card image, or none (`None`: the oldest is shown).

    Call it in a transaction holding the fruit's lock. The previous choice is cleared first, so
    the partial unique constraint (one card image per fruit) never sees two. An image that is
    not the fruit's (or was deleted meanwhile) is a `ValidationError` on `card_image_id`.
    """
    images = FruitImage.objects.filter(fruit_id=fruit_id)
    cleared = list(
        images.filter(is_card_image=True).exclude(pk=image_id).values_list("pk", flat=True)
    )
    images.filter(pk__in=cleared).update(is_card_image=False)
    if image_id is not None and not images.filter(pk=image_id).update(is_card_image=True):
        raise ValidationError(
            {
                "card_image_id": [
                    gettext("Image %(id)s is not an image of this fruit.") % {"id": image_id}
                ]
            }
        )
    changed = [*cleared, *([] if image_id is None else [image_id])]
    announce(FruitImage, images.filter(pk__in=changed).without_blobs(), "changed")


@transaction.atomic
def fruit_set_card_image(*, fruit: Fruit, image_id: int | None) -> None:
    """Choose the fruit's card image (`None`: the oldest), locking the fruit as its writes do.

    Raises `Fruit.DoesNotExist` when the fruit is gone, `ValidationError` when the image is not
    one of its images.
    """
    lock_row(Fruit, fruit.pk)
    _set_card_image(fruit_id=fruit.pk, image_id=image_id)


@transaction.atomic
def fruit_delete(*, fruit: Fruit) -> None:
    """Delete a fruit with its other names and images; its images are kept, bytes and all, for
    its restore (`KeptFruitImage`, `fruit_images_restore`).

    The fruit is locked first, as every write of it does, so a concurrent update waits and then
    finds it gone, and a concurrent link waits and then finds it gone, or blocks the delete with
    `ProtectedError` (a 409). Raises `Fruit.DoesNotExist` when it is already gone.
    """
    # What other fruits say of it stays, by the name it has now (read under the lock).
    name, fruit.type = lock_row(Fruit, fruit.pk, for_delete=True, read=("name", "type"))
    pointing = list(FruitRelation.objects.filter(other=fruit).values_list("pk", flat=True))
    FruitRelation.objects.filter(pk__in=pointing).update(
        name=name, name_key=name_key(name), other=None
    )
    announce(FruitRelation, FruitRelation.objects.filter(pk__in=pointing), "changed")
    fruit_written.send(
        sender=Fruit, fruit=fruit, previous_type=fruit.type, renumbered=False, deleted=True
    )
    images = FruitImage.objects.filter(fruit=fruit)
    insert_select(KeptFruitImage, images, {**_kept_columns(), "kept_at": Now()})
    # The images first, without their bytes: the history records each deleted image, and the
    # deletion collector would otherwise load the bytes of every image it hands to it.
    images.without_blobs().delete()
    fruit.delete()


@transaction.atomic
def fruits_delete(*, fruits: list[Fruit]) -> None:
    """Delete fruits as `fruit_delete` deletes each, in a few statements for them all (give a
    few hundred at a time): they are locked, the relations of other fruits pointing at them
    keep the names they have now, `fruit_written` is sent for each, their images are kept,
    and they go with their names, relations and values.

    Raises `Fruit.DoesNotExist` when one is already gone, `ProtectedError` when a publication
    cites one (nothing is deleted then).
    """
    ids = sorted({fruit.pk for fruit in fruits})
    locked = {
        pk: (name, fruit_type)
        for pk, name, fruit_type in Fruit._base_manager.filter(pk__in=ids)
        .select_for_update()
        .order_by("pk")
        .values_list("pk", "name", "type")
    }
    missing = [pk for pk in ids if pk not in locked]
    if missing:
        raise Fruit.DoesNotExist(f"Fruits {missing} do not exist.")
    # What other fruits say of them stays, by the name each has now (read under the lock).
    pointing = defaultdict(list)
    for pk, other_id in (
        FruitRelation.objects.filter(other_id__in=ids)
        .exclude(fruit_id__in=ids)
        .values_list("pk", "other_id")
    ):
        pointing[other_id].append(pk)
    for other_id, relation_ids in pointing.items():
        name = locked[other_id][0]
        FruitRelation.objects.filter(pk__in=relation_ids).update(
            name=name, name_key=name_key(name), other=None
        )
    changed = [pk for relation_ids in pointing.values() for pk in relation_ids]
    announce(FruitRelation, FruitRelation.objects.filter(pk__in=changed), "changed")
    for fruit in fruits:
        fruit.type = locked[fruit.pk][1]
        fruit_written.send(
            sender=Fruit, fruit=fruit, previous_type=fruit.type, renumbered=False, deleted=True
        )
    images = FruitImage.objects.filter(fruit_id__in=ids)
    insert_select(KeptFruitImage, images, {**_kept_columns(), "kept_at": Now()})
    images.without_blobs().delete()  # as `fruit_delete` does: never their bytes
    Fruit.objects.filter(pk__in=ids).delete()


def _kept_columns() -> dict[str, str]:
    """Every column of a fruit's image, each kept in the kept image's column of that name."""
    return {field.attname: field.attname for field in FruitImage._meta.concrete_fields}


def fruit_images_restore(*, fruit_id: int) -> list[int]:
    """Give a deleted fruit just saved again its kept images, under their own ids, bytes,
    details and card choice as they were; returns their ids.

    Call it in the transaction that restores the fruit. The rows move inside the database, and
    the history records them as created again (without their bytes).
    """
    kept = KeptFruitImage.objects.filter(fruit_id=fruit_id)
    insert_select(FruitImage, kept, _kept_columns())
    kept.delete()
    restored = list(FruitImage.objects.filter(fruit_id=fruit_id).without_blobs().order_by("pk"))
    announce(FruitImage, restored, "created")
    return [image.pk for image in restored]
