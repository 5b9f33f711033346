"""Writing many fruits at once (`fruits_delete`, `fruits_update`): what writing each does, a few
statements for them all."""

import pytest
from django.db import connection
from django.db.models import ProtectedError
from django.test.utils import CaptureQueriesContext

from catalog.models import Fruit, FruitName, FruitRelation, KeptFruitImage
from catalog.services import fruit_update, fruits_delete
from catalog.signals import fruit_written
from core.history import door
from identification.models import FruitCharacteristic
from identification.services import fruit_set_characteristics
from identification.tests.factories import make_characteristic
from publications.models import Publication, PublicationFruit

pytestmark = pytest.mark.django_db


def _fruits(fruit_factory, count, size):
    fruits = []
    for index in range(count):
        fruit = fruit_factory(name=f"Fruit {index}", synonyms=[f"Other {index}"])
        fruit_update(
            fruit=fruit,
            relations=[{"kind": "mother", "other_id": None, "name": "Vanda", "note": ""}],
        )
        record = {"characteristic_id": size.pk, "state_ids": [size.states.get(value=3).pk]}
        record |= {"source_publication_id": None, "pages": "", "note": ""}
        fruit_set_characteristics(fruit=fruit, records=[record])
        fruits.append(fruit)
    return fruits


def test_fruits_go_with_their_parts_their_images_kept_and_each_recorded(fruit_factory, add_image):
    size = make_characteristic("X_BULK")
    doomed = _fruits(fruit_factory, 3, size)
    image = add_image(doomed[0])
    other = fruit_factory(name="Child")
    fruit_update(
        fruit=other,
        relations=[{"kind": "mother", "other_id": doomed[1].pk, "name": "Fruit 1", "note": ""}],
    )
    told = []

    def receiver(sender, *, fruit, deleted, previous_type, **kwargs):
        told.append((fruit.pk, deleted, previous_type))

    fruit_written.connect(receiver, sender=Fruit, dispatch_uid="test-fruits-delete")
    try:
        with door("command"):
            fruits_delete(fruits=doomed)
    finally:
        fruit_written.disconnect(sender=Fruit, dispatch_uid="test-fruits-delete")

    ids = [fruit.pk for fruit in doomed]
    assert not Fruit.objects.filter(pk__in=ids).exists()
    assert not FruitName.objects.filter(fruit_id__in=ids).exists()
    assert not FruitCharacteristic.objects.filter(fruit_id__in=ids).exists()
    assert sorted(told) == [(pk, True, "apple") for pk in ids]
    (kept,) = KeptFruitImage.objects.filter(fruit_id=ids[0])
    assert (kept.pk, kept.sha256) == (image.pk, image.sha256)
    (pointing,) = FruitRelation.objects.filter(fruit=other)
    assert (pointing.other_id, pointing.name) == (None, "Fruit 1")

    gone = Fruit.history.filter(history_type="-", id__in=ids)
    assert sorted(gone.values_list("id", flat=True)) == ids
    assert len({row.revision for row in gone}) == 1
    for model in (FruitName, FruitRelation, FruitCharacteristic):
        rows = model.history.filter(history_type="-", fruit_id__in=ids)
        assert sorted(rows.values_list("fruit_id", flat=True)) == ids
    (changed,) = FruitRelation.history.filter(fruit_id=other.pk, history_type="~")
    assert (changed.name, changed.other_id) == ("Fruit 1", None)


def test_the_statements_do_not_grow_with_the_fruits_and_their_parts(fruit_factory):
    size = make_characteristic("X_BULK_COUNT")
    few, many = _fruits(fruit_factory, 2, size), _fruits(fruit_factory, 12, size)
    counts = []
    for fruits in (few, many):
        with CaptureQueriesContext(connection) as queries, door("command"):
            fruits_delete(fruits=fruits)
        # Identification's receiver of `fruit_written`, for each fruit: did it hold values, and
        # (it did) its type's values changed: two statements each, the rest shared.
        counts.append(len(queries.captured_queries) - 2 * len(fruits))
    assert counts[0] == counts[1]


def test_a_cited_fruit_refuses_and_nothing_is_deleted(fruit_factory):
    fruits = [fruit_factory(name="Kept"), fruit_factory(name="Cited")]
    publication = Publication.objects.create(title="Pomona")
    PublicationFruit.objects.create(publication=publication, fruit=fruits[1])
    with pytest.raises(ProtectedError):
        fruits_delete(fruits=fruits)
    assert Fruit.objects.filter(pk__in=[fruit.pk for fruit in fruits]).count() == 2
    assert not Fruit.history.filter(history_type="-").exists()


def test_fruits_update_writes_names_types_and_search_as_fruit_update_does(fruit_factory):
    from catalog.services import fruits_update

    fruits = [fruit_factory(name=f"Fruit {index}", synonyms=["Old"]) for index in range(3)]
    linked = fruit_factory(name="Child")
    fruit_update(
        fruit=linked,
        relations=[{"kind": "mother", "other_id": None, "name": "Renamed 0", "note": ""}],
    )
    told = []

    def receiver(sender, *, fruit, previous_type, **kwargs):
        told.append((fruit.pk, previous_type, fruit.type))

    new = {"name": "Nouveau", "kind": "synonym", "language": "fr", "note": ""}
    changes = [
        (fruits[0], {"name": "Renamed 0", "type": "apple", "names": None}),
        (fruits[1], {"name": "Fruit 1", "type": "pear", "names": [new]}),
        (fruits[2], {"name": "Fruit 2", "type": "apple", "names": [new]}),
    ]
    fruit_written.connect(receiver, sender=Fruit, dispatch_uid="test-fruits-update")
    try:
        with door("command"):
            fruits_update(changes=changes)
    finally:
        fruit_written.disconnect(sender=Fruit, dispatch_uid="test-fruits-update")

    stored = {fruit.pk: fruit for fruit in Fruit.objects.filter(pk__in=[f.pk for f in fruits])}
    assert (stored[fruits[0].pk].name, stored[fruits[1].pk].type) == ("Renamed 0", "pear")
    assert [n.name for n in stored[fruits[0].pk].names.all()] == ["Old"]
    assert [n.name for n in stored[fruits[1].pk].names.all()] == ["Nouveau"]
    assert Fruit.objects.search("renamed").filter(pk=fruits[0].pk).exists()
    assert Fruit.objects.search("nouveau").filter(pk=fruits[2].pk).exists()
    assert not Fruit.objects.search("old").filter(pk=fruits[2].pk).exists()
    assert sorted(told) == sorted(
        [
            (fruits[0].pk, "apple", "apple"),
            (fruits[1].pk, "apple", "pear"),
            (fruits[2].pk, "apple", "apple"),
        ]
    )
    (relation,) = FruitRelation.objects.filter(fruit=linked)
    assert relation.other_id == fruits[0].pk
    changed = Fruit.history.filter(history_type="~", id__in=[f.pk for f in fruits])
    assert changed.count() == 3 and len({row.revision for row in changed}) == 1
    assert [
        row.name for row in FruitName.history.filter(history_type="-", fruit_id=fruits[0].pk)
    ] == []
