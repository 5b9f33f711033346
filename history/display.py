"""What versions changed, as a curator reads it: each field old → new, each list's items removed
and added (the admin's history, revert and recover pages).

A version's changes hold ids (states, publications, fruits, images); a `Reader` made for the
versions of a page looks up the labels they need once, a query a kind.
"""

from collections import Counter
from dataclasses import dataclass, field

from django.template.defaultfilters import filesizeformat
from django.utils.translation import gettext, gettext_lazy

from blobs.rights import ImageRole, License
from catalog.models import Fruit, FruitType, NameKind, RelationKind
from history.models import Action
from identification.models import Characteristic, CharacteristicState
from publications.models import Publication

LABELS = {
    "catalog_number": gettext_lazy("Catalog number"),
    "name": gettext_lazy("Name"),
    "type": gettext_lazy("Type"),
    "names": gettext_lazy("Other names"),
    "relations": gettext_lazy("Relations"),
    "characteristics": gettext_lazy("Characteristic values"),
    "images": gettext_lazy("Images"),
    "card_image_id": gettext_lazy("Card image"),
    "title": gettext_lazy("Title"),
    "authors": gettext_lazy("Authors"),
    "year": gettext_lazy("Year"),
    "description": gettext_lazy("Description"),
    "cover_sha256": gettext_lazy("Cover"),
    "citations": gettext_lazy("Linked fruits"),
}
LISTS = {"names", "relations", "characteristics", "images", "citations"}
NONE = "—"
# The door a version came through, as a sentence names it ("through the admin").
VIA = {
    "api": gettext_lazy("the API"),
    "admin": gettext_lazy("the admin"),
    "import": gettext_lazy("an import"),
    "command": gettext_lazy("a command"),
}


@dataclass
class Difference:
    """One changed field (`old` → `new`) or list (items `removed` and `added`, `kept` unchanged;
    `reordered` when only the order changed)."""

    key: str
    label: str
    is_list: bool = False
    old: str = ""
    new: str = ""
    removed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    kept: int = 0
    reordered: bool = False


@dataclass
class Part:
    """One part of an object's state, as read: a field's value or a list's items."""

    key: str
    label: str
    is_list: bool
    value: str = ""
    items: list[str] = field(default_factory=list)


class Reader:
    """Reads the states and changes of the given states (`{part: value}` dicts): the labels of the
    characteristics, states, publications and fruits they name, each kind in one query."""

    def __init__(self, states):
        characteristics, state_ids, publications, fruits = set(), set(), set(), set()
        for state in states:
            for value in state.get("characteristics") or []:
                characteristics.add(value["characteristic_id"])
                state_ids.update(value["state_ids"])
                if value["source_publication_id"] is not None:
                    publications.add(value["source_publication_id"])
            for citation in state.get("citations") or []:
                fruits.add(citation["fruit_id"])
        self.characteristics = (
            dict(Characteristic.objects.filter(pk__in=characteristics).values_list("pk", "name"))
            if characteristics
            else {}
        )
        self.states = (
            {
                pk: f"{value} {label}"
                for pk, value, label in CharacteristicState.objects.filter(
                    pk__in=state_ids
                ).values_list("pk", "value", "label")
            }
            if state_ids
            else {}
        )
        self.publications = (
            dict(Publication.objects.filter(pk__in=publications).values_list("pk", "title"))
            if publications
            else {}
        )
        self.fruits = (
            dict(Fruit.objects.filter(pk__in=fruits).values_list("pk", "name")) if fruits else {}
        )

    def differences(self, changes: dict) -> list[Difference]:
        """A version's changes (`{part: {"from": old, "to": new}}`), in the order of `LABELS`."""
        found = []
        for key in sorted(changes, key=_position):
            old, new = changes[key]["from"], changes[key]["to"]
            if key not in LISTS:
                found.append(
                    Difference(key, _label(key), old=self.value(key, old), new=self.value(key, new))
                )
                continue
            if not old and not new:
                continue  # an empty list becoming none, or none an empty list
            before = [self.item(key, item) for item in old or []]
            after = [self.item(key, item) for item in new or []]
            removed, added = _unmatched(before, after), _unmatched(after, before)
            found.append(
                Difference(
                    key,
                    _label(key),
                    is_list=True,
                    removed=removed,
                    added=added,
                    kept=len(after) - len(added),
                    reordered=not removed and not added and before != after,
                )
            )
        return found

    def parts(self, state: dict, keys=None) -> list[Part]:
        """A state's parts (`keys`, else all it has), each read."""
        parts = []
        for key in sorted(keys or state, key=_position):
            if key not in LABELS:
                continue
            if key in LISTS:
                items = [self.item(key, item) for item in state.get(key) or []]
                parts.append(Part(key, _label(key), True, items=items))
            else:
                parts.append(Part(key, _label(key), False, value=self.value(key, state.get(key))))
        return parts

    def value(self, key: str, value) -> str:
        """A field's value, readable ("—" for none)."""
        if value is None or value == "":
            return NONE
        if key == "type":
            return _choice(FruitType, value)
        if key == "card_image_id":
            return gettext("image %(id)s") % {"id": value}
        if key == "cover_sha256":
            return f"SHA-256 {value[:12]}…"
        return str(value)

    def item(self, key: str, item: dict) -> str:
        """One item of a list, readable."""
        if key == "names":
            details = ", ".join(
                part for part in (_choice(NameKind, item["kind"]), item["language"]) if part
            )
            return _joined(f"{item['name']} ({details})", item["note"])
        if key == "relations":
            target = (
                gettext("fruit %(id)s") % {"id": item["other_id"]}
                if item["other_id"] is not None
                else gettext("by name only")
            )
            text = f"{_choice(RelationKind, item['kind'])}: {item['name']} ({target})"
            return _joined(text, item["note"])
        if key == "characteristics":
            char = self.characteristics.get(item["characteristic_id"], item["code"])
            states = ", ".join(
                self.states.get(pk, gettext("state %(id)s") % {"id": pk})
                for pk in item["state_ids"]
            )
            text = f"{char} ({item['code']}): {states or NONE}"
            source = item["source_publication_id"]
            if source is not None:
                title = self.publications.get(
                    source, gettext("publication %(id)s") % {"id": source}
                )
                text += gettext("; source: %(title)s") % {"title": title}
                if item["pages"]:
                    text += gettext(", pp. %(pages)s") % {"pages": item["pages"]}
            return _joined(text, item["note"])
        if key == "images":
            details = [
                filesizeformat(item["size"]),
                _choice(ImageRole, item["role"]),
                _choice(License, item["license"]) if item["license"] else gettext("no licence"),
            ]
            if item["creator"]:
                details.append(gettext("by %(creator)s") % {"creator": item["creator"]})
            image = gettext("image %(id)s") % {"id": item["id"]}
            text = f"{image} ({', '.join(details)}; SHA-256 {item['sha256'][:12]}…)"
            alt = gettext("alt text: %(text)s") % {"text": item["alt_text"]}
            return _joined(text, alt if item["alt_text"] else "")
        if key == "citations":
            fruit = self.fruits.get(item["fruit_id"], gettext("a deleted fruit"))
            details = [
                gettext("pp. %(pages)s") % {"pages": item["pages"]} if item["pages"] else "",
                gettext("plate %(plate)s") % {"plate": item["plate"]} if item["plate"] else "",
                gettext("as “%(name)s”") % {"name": item["name_in_source"]}
                if item["name_in_source"]
                else "",
                gettext("first description") if item["is_first_description"] else "",
                gettext("with a PDF") if item["description_sha256"] else "",
            ]
            text = f"{fruit} ({gettext('fruit %(id)s') % {'id': item['fruit_id']}})"
            return ", ".join([text, *(detail for detail in details if detail)])
        return str(item)


def _unmatched(items: list[str], others: list[str]) -> list[str]:
    """The items, in their order, that `others` does not have (as many times as they occur)."""
    left, unmatched = Counter(others), []
    for item in items:
        if left[item]:
            left[item] -= 1
        else:
            unmatched.append(item)
    return unmatched


def _position(key: str) -> int:
    return list(LABELS).index(key) if key in LABELS else len(LABELS)


def _label(key: str) -> str:
    return LABELS.get(key, key.replace("_", " ").capitalize())


def action_label(action: str) -> str:
    """What a version did, as the admin names it ("Changed")."""
    return _choice(Action, action)


def _choice(choices, value) -> str:
    try:
        return str(choices(value).label)
    except ValueError:
        return str(value)


def _joined(text: str, note: str) -> str:
    return f"{text} — {note}" if note else text
