"""What a revert would change, read before it is done: the admin's confirmation page shows it."""

import pytest

from catalog.models import Fruit
from catalog.services import fruit_delete, fruit_update
from catalog.services import fruit_save as save
from core.history import door
from history.services import fruit_revert, fruit_revert_preview
from history.versions import fruit_versions

pytestmark = pytest.mark.django_db


def fruit_save(**kwargs):
    with door("command"):  # one revision
        return save(**kwargs)


def name(text):
    return {"name": text, "kind": "synonym", "language": "", "note": ""}


def test_the_preview_is_the_fruit_now_against_what_the_revert_makes_of_it_and_writes_nothing():
    fruit = fruit_save(
        fruit=Fruit(name="Boskop", type="apple", catalog_number=7),
        names=[name("Renette de Montfort")],
    )
    with door("command"):
        fruit_update(fruit=fruit, name="Boskoop", names=[name("Belle de Boskoop")])
    first = fruit_versions(fruit.pk)[0]

    preview = fruit_revert_preview(fruit_id=fruit.pk, version_id=first.id)

    assert set(preview.changes) == {"name", "names"}
    assert preview.changes["name"] == {"from": "Boskoop", "to": "Boskop"}
    assert [n["name"] for n in preview.changes["names"]["from"]] == ["Belle de Boskoop"]
    assert [n["name"] for n in preview.changes["names"]["to"]] == ["Renette de Montfort"]
    assert (preview.not_restored, preview.refused) == ([], None)
    assert Fruit.objects.get(pk=fruit.pk).name == "Boskoop"
    assert len(fruit_versions(fruit.pk)) == 2

    fruit_revert(fruit_id=fruit.pk, version_id=first.id)
    assert fruit_revert_preview(fruit_id=fruit.pk, version_id=first.id).changes == {}


def test_the_preview_names_what_cannot_come_back_and_a_number_held_by_another_fruit():
    mother = fruit_save(fruit=Fruit(name="Cox Orange", type="apple"))
    fruit = fruit_save(
        fruit=Fruit(name="Alkmene", type="apple", catalog_number=10),
        relations=[{"kind": "mother", "other_id": mother.pk, "name": "Cox Orange", "note": ""}],
    )
    first = fruit_versions(fruit.pk)[0]
    with door("command"):
        fruit_update(fruit=fruit, catalog_number=11, relations=[])
    with door("command"):
        fruit_delete(fruit=mother)
    fruit_save(fruit=Fruit(name="Rubinola", type="apple", catalog_number=10))

    preview = fruit_revert_preview(fruit_id=fruit.pk, version_id=first.id)

    assert preview.refused is not None and preview.refused.catalog_number == 10
    assert [(r["kind"], r["other_id"], r["name"]) for r in preview.changes["relations"]["to"]] == [
        ("mother", None, "Cox Orange")
    ]
    assert len(preview.not_restored) == 1 and "Cox Orange" in preview.not_restored[0]
