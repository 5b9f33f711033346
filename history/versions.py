"""A fruit's or a publication's versions: the states its rows had after each revision, and what
each revision changed (old → new), read from the historical tables.

A version is one revision's rows about the object and its parts (a fruit's names, relations,
images and characteristic values; a publication's citations). Its state is found by replaying
the object's historical rows in order, so a version says the whole list of names before and
after, not the rows written.
"""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef

from catalog.models import Fruit, FruitImage, FruitName, FruitRelation
from history.models import PurgedFruit
from identification.models import Characteristic, FruitCharacteristic, FruitCharacteristicState
from publications.models import Publication, PublicationFruit

FRUIT_FIELDS = ["name", "type", "catalog_number"]
PUBLICATION_FIELDS = ["title", "authors", "year", "description", "cover_sha256"]
IMAGE_FIELDS = ["size", "sha256", "role", "license", "creator", "source", "alt_text"]


@dataclass
class Version:
    """One revision of an object: when, who, which door, which import, what it did and changed."""

    id: str
    at: datetime
    user: str | None
    via: str
    batch: int | None
    action: str
    changes: dict
    state: dict = field(repr=False)


def _rows(model, **filters) -> list:
    return list(model.history.filter(**filters).order_by("history_date", "history_id"))


# Fruits whose historical rows one query reads (`fruits_versions`): well within every database's
# limit of parameters.
FRUITS_PER_QUERY = 500


def fruit_versions(fruit_id: int) -> list[Version]:
    """The fruit's versions, oldest first (one query per historical table and one for users)."""
    return fruits_versions([fruit_id]).get(fruit_id, [])


def fruits_versions(fruit_ids) -> dict[int, list[Version]]:
    """Several fruits' versions, oldest first, by fruit id (a fruit without any is left out):
    a query per historical table for every `FRUITS_PER_QUERY` fruits, and one for the
    characteristics' codes and one for the users however many fruits."""
    ids = sorted(set(fruit_ids))
    tables = [
        ("fruit", Fruit, "id"),
        ("names", FruitName, "fruit_id"),
        ("relations", FruitRelation, "fruit_id"),
        ("images", FruitImage, "fruit_id"),
        ("characteristics", FruitCharacteristic, "fruit_id"),
    ]
    found = {kind: defaultdict(list) for kind, _, _ in [*tables, ("states", None, None)]}
    for start in range(0, len(ids), FRUITS_PER_QUERY):
        chunk = ids[start : start + FRUITS_PER_QUERY]
        for kind, model, key in tables:
            for row in _rows(model, **{f"{key}__in": chunk}):
                found[kind][getattr(row, key)].append(row)
        values = FruitCharacteristic.history.filter(fruit_id__in=chunk).values("id")
        holder = {row.id: pk for pk in chunk for row in found["characteristics"].get(pk, [])}
        for row in _rows(FruitCharacteristicState, fruit_characteristic_id__in=values):
            found["states"][holder[row.fruit_characteristic_id]].append(row)
    codes = dict(
        Characteristic.objects.filter(
            pk__in={
                row.characteristic_id for rows in found["characteristics"].values() for row in rows
            }
        ).values_list("pk", "code")
    )
    users = _usernames(row for kind in found.values() for rows in kind.values() for row in rows)
    return {
        fruit_id: _replay(
            [(kind, found[kind].get(fruit_id, [])) for kind in found],
            lambda rows: _fruit_state(rows, codes),
            root="fruit",
            users=users,
        )
        for fruit_id in ids
        if any(fruit_id in found[kind] for kind in found)
    }


def publication_versions(publication_id: int) -> list[Version]:
    """The publication's versions, oldest first."""
    parts = [
        ("publication", _rows(Publication, id=publication_id)),
        ("citations", _rows(PublicationFruit, publication_id=publication_id)),
    ]
    return _replay(parts, _publication_state, root="publication")


def deleted_fruits():
    """The historical rows of fruits deleted and neither restored nor purged (each one's
    deletion, with its user), the latest deletion first: the fruits that can be restored."""
    rows = Fruit.history.model.objects
    later = rows.filter(id=OuterRef("id"), history_id__gt=OuterRef("history_id"))
    return (
        rows.filter(history_type="-")
        .exclude(Exists(later))
        .exclude(id__in=Fruit.objects.values("pk"))
        .exclude(id__in=PurgedFruit.objects.values("fruit_id"))
        .select_related("history_user")
        .order_by("-history_date", "-history_id")
    )


def _replay(parts, state_of, *, root: str, users: dict | None = None) -> list[Version]:
    """Apply the rows revision by revision (in the order their first row was written) and
    compare each state with the one before (`users`: the usernames by id, read when None)."""
    events = sorted(
        ((row.history_date, kind, row.history_id, row) for kind, rows in parts for row in rows),
        key=lambda event: (event[0], event[2]),
    )
    order, groups = [], {}
    for _, kind, _, row in events:
        if row.revision not in groups:
            order.append(row.revision)
            groups[row.revision] = []
        groups[row.revision].append((kind, row))
    if users is None:
        users = _usernames(row for _, _, _, row in events)
    live = {kind: {} for kind, _ in parts}
    versions, before = [], state_of(live)
    for revision in order:
        rows = groups[revision]
        # A deletion's rows hold what was deleted: the state when it was deleted, even for rows
        # whose earlier states were never recorded (stored before the history was).
        deleting = {kind: dict(kept) for kind, kept in live.items()}
        for kind, row in rows:
            if row.history_type == "-":
                deleting[kind][row.id] = row
                live[kind].pop(row.id, None)
            else:
                deleting[kind][row.id] = row
                live[kind][row.id] = row
        after = state_of(live)
        last = rows[-1][1]
        root_types = {row.history_type for kind, row in rows if kind == root}
        if last.action:
            action = last.action
        elif "-" in root_types:
            action = "deleted"
        elif "+" in root_types and not versions:
            action = "created"
        else:
            action = "changed"
        changes = _changes(before, after) if action != "deleted" else {}
        if action == "changed" and not changes:
            continue  # a save that changed nothing (the same values written again)
        versions.append(
            Version(
                id=str(revision),
                at=max(row.history_date for _, row in rows),
                user=users.get(last.history_user_id),
                via=last.via,
                batch=last.batch,
                action=action,
                changes=changes,
                state=after if action != "deleted" else state_of(deleting),
            )
        )
        before = after
    return versions


def _usernames(rows) -> dict[int, str]:
    ids = {row.history_user_id for row in rows if row.history_user_id is not None}
    if not ids:
        return {}
    users = get_user_model().objects.filter(pk__in=ids)
    return dict(users.values_list("pk", get_user_model().USERNAME_FIELD))


def _changes(before: dict, after: dict) -> dict:
    """Each field or list whose value differs; nothing from nothing to empty (a new fruit's
    relations: none before it existed, none after)."""
    return {
        key: {"from": before.get(key), "to": after.get(key)}
        for key in after.keys() | before.keys()
        if before.get(key) != after.get(key) and (before.get(key) or after.get(key))
    }


def _fruit_state(live: dict, codes: dict) -> dict:
    """What a fruit is at one point: its fields, names, relations, images, card image and
    characteristic values; `{}` before it existed."""
    fruit = next(iter(live["fruit"].values()), None)
    if fruit is None:
        return {}
    states: dict[int, list[int]] = {}
    for link in live["states"].values():
        states.setdefault(link.fruit_characteristic_id, []).append(link.state_id)
    images = sorted(live["images"].values(), key=lambda row: row.id)
    card = next((row.id for row in images if row.is_card_image), None)
    return {
        **{name: getattr(fruit, name) for name in FRUIT_FIELDS},
        "names": [
            {"name": row.name, "kind": row.kind, "language": row.language, "note": row.note}
            for row in sorted(live["names"].values(), key=lambda row: row.position)
        ],
        "relations": [
            {"kind": row.kind, "other_id": row.other_id, "name": row.name, "note": row.note}
            for row in sorted(live["relations"].values(), key=lambda row: row.position)
        ],
        "images": [
            {"id": row.id, **{name: getattr(row, name) for name in IMAGE_FIELDS}} for row in images
        ],
        "card_image_id": card,
        "characteristics": [
            {
                "characteristic_id": row.characteristic_id,
                "code": codes.get(row.characteristic_id, ""),
                "state_ids": sorted(states.get(row.id, [])),
                "source_publication_id": row.source_publication_id,
                "pages": row.pages,
                "note": row.note,
            }
            for row in sorted(live["characteristics"].values(), key=lambda r: r.characteristic_id)
        ],
    }


def _publication_state(live: dict) -> dict:
    publication = next(iter(live["publication"].values()), None)
    if publication is None:
        return {}
    return {
        **{name: getattr(publication, name) for name in PUBLICATION_FIELDS},
        "citations": [
            {
                "fruit_id": row.fruit_id,
                "pages": row.pages,
                "plate": row.plate,
                "name_in_source": row.name_in_source,
                "is_first_description": row.is_first_description,
                "description_sha256": row.description_sha256,
            }
            for row in sorted(live["citations"].values(), key=lambda row: row.fruit_id)
        ],
    }
