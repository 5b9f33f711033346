"""Relations between varieties through the API: parentage, sports, seedlings, confusions."""

import pytest

from catalog.models import FruitRelation

pytestmark = pytest.mark.django_db

FRUITS = "/api/v1/fruits"


def patch(client, fruit, relations):
    return client.patch(f"{FRUITS}/{fruit.pk}", {"relations": relations}, format="json")


@pytest.fixture
def apples(fruit_factory):
    return {
        name: fruit_factory(name=name, catalog_number=number)
        for number, name in enumerate(
            ["Jonagold", "Golden Delicious", "Jonathan", "Red Jonagold", "Elstar"], start=1
        )
    }


def test_relations_are_written_with_the_fruit_and_read_back_from_both_sides(
    curator_client, anon_client, apples
):
    jonagold, golden, jonathan = apples["Jonagold"], apples["Golden Delicious"], apples["Jonathan"]
    response = patch(
        curator_client,
        jonagold,
        [
            {"kind": "mother", "fruit_id": golden.pk},
            {"kind": "father", "fruit_id": jonathan.pk, "note": " crossed 1943 "},
            {"kind": "confused_with", "name": "Jonagored"},
        ],
    )
    assert response.status_code == 200, response.json()
    assert response.json()["relations"] == [
        {
            "kind": "mother",
            "fruit": {"id": golden.pk, "name": "Golden Delicious", "catalog_number": 2},
            "name": "Golden Delicious",
            "note": "",
        },
        {
            "kind": "father",
            "fruit": {"id": jonathan.pk, "name": "Jonathan", "catalog_number": 3},
            "name": "Jonathan",
            "note": "crossed 1943",
        },
        {"kind": "confused_with", "fruit": None, "name": "Jonagored", "note": ""},
    ]
    patch(curator_client, apples["Red Jonagold"], [{"kind": "sport_of", "fruit_id": jonagold.pk}])
    related = anon_client.get(f"{FRUITS}/{jonagold.pk}").json()["related"]
    assert related == [
        {
            "kind": "sport",
            "fruit": {"id": apples["Red Jonagold"].pk, "name": "Red Jonagold", "catalog_number": 4},
        }
    ]
    golden_related = anon_client.get(f"{FRUITS}/{golden.pk}").json()["related"]
    assert golden_related == [
        {"kind": "child", "fruit": {"id": jonagold.pk, "name": "Jonagold", "catalog_number": 1}}
    ]
    assert "relations" not in anon_client.get(FRUITS).json()["results"][0]
    # Writing replaces the set.
    assert patch(curator_client, jonagold, []).json()["relations"] == []
    assert not FruitRelation.objects.filter(fruit=jonagold).exists()


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda a: [{"kind": "mother", "fruit_id": a["Jonagold"].pk}], "itself"),
        (
            lambda a: [
                {"kind": "mother", "fruit_id": a["Golden Delicious"].pk},
                {"kind": "mother", "name": "Cox"},
            ],
            "one `mother` at most",
        ),
        (
            lambda a: [{"kind": "parent", "name": "Cox"}, {"kind": "parent", "name": " cox "}],
            "given twice",
        ),
        (lambda a: [{"kind": "parent", "fruit_id": 999_999}], "no fruit 999999"),
        (lambda a: [{"kind": "parent"}], "either `fruit_id` or `name`"),
        (
            lambda a: [{"kind": "parent", "fruit_id": a["Jonathan"].pk, "name": "Jonathan"}],
            "either `fruit_id` or `name`",
        ),
        (lambda a: [{"kind": "grandmother", "name": "Cox"}], "not a valid choice"),
        (lambda a: [{"kind": "parent", "name": "x" * 201}], "no more than 200"),
    ],
    ids=["itself", "two-mothers", "twice", "unknown", "neither", "both", "kind", "long"],
)
def test_bad_relations_are_a_400_and_change_nothing(curator_client, apples, make, words):
    jonagold = apples["Jonagold"]
    patch(curator_client, jonagold, [{"kind": "confused_with", "name": "Jonagored"}])
    response = patch(curator_client, jonagold, make(apples))
    assert response.status_code == 400
    assert words in str(response.json()["relations"]), response.json()
    assert list(FruitRelation.objects.values_list("kind", "name")) == [
        ("confused_with", "Jonagored")
    ]


def test_a_parentage_loop_is_refused(curator_client, apples):
    jonagold, golden = apples["Jonagold"], apples["Golden Delicious"]
    patch(curator_client, jonagold, [{"kind": "mother", "fruit_id": golden.pk}])
    patch(curator_client, apples["Red Jonagold"], [{"kind": "sport_of", "fruit_id": jonagold.pk}])
    # Golden Delicious a seedling of Red Jonagold: its own great-grandchild.
    response = patch(
        curator_client, golden, [{"kind": "seedling_of", "fruit_id": apples["Red Jonagold"].pk}]
    )
    assert response.status_code == 400
    assert "loop" in response.json()["relations"][0]
    # Confusion is no descent.
    ok = patch(curator_client, golden, [{"kind": "confused_with", "fruit_id": jonagold.pk}])
    assert ok.status_code == 200


def test_deleting_a_fruit_keeps_what_others_say_of_it_by_its_name(curator_client, apples):
    jonagold, golden = apples["Jonagold"], apples["Golden Delicious"]
    patch(curator_client, jonagold, [{"kind": "mother", "fruit_id": golden.pk}])
    curator_client.patch(
        f"{FRUITS}/{golden.pk}", {"name": "Golden Delicious Reinders"}, format="json"
    )
    assert curator_client.delete(f"{FRUITS}/{golden.pk}").status_code == 204
    (relation,) = curator_client.get(f"{FRUITS}/{jonagold.pk}").json()["relations"]
    assert relation == {
        "kind": "mother",
        "fruit": None,
        "name": "Golden Delicious Reinders",
        "note": "",
    }


def test_a_fruit_and_its_name_are_the_same_relation(curator_client, apples):
    jonathan = apples["Jonathan"]
    response = patch(
        curator_client,
        apples["Jonagold"],
        [{"kind": "parent", "fruit_id": jonathan.pk}, {"kind": "parent", "name": "jonathan"}],
    )
    assert response.status_code == 400 and "given twice" in str(response.json())


def test_a_related_fruit_deleted_after_the_check_is_kept_by_its_name(apples):
    from django.db import transaction

    from catalog.services import fruit_set_relations
    from catalog.validators import clean_relations

    jonagold, golden = apples["Jonagold"], apples["Golden Delicious"]
    records = clean_relations([{"kind": "mother", "fruit_id": golden.pk}], fruit_id=jonagold.pk)
    golden.delete()  # between the check and the write
    with transaction.atomic():
        fruit_set_relations(fruit=jonagold, relations=records)
    (relation,) = jonagold.relations.all()
    assert (relation.other_id, relation.name) == (None, "Golden Delicious")


def test_descent_is_checked_again_when_written(apples):
    from django.core.exceptions import ValidationError
    from django.db import transaction

    from catalog.services import fruit_set_relations
    from catalog.validators import clean_relations

    jonagold, golden = apples["Jonagold"], apples["Golden Delicious"]
    # Both checked before either is written, as two concurrent requests would be.
    first = clean_relations([{"kind": "mother", "fruit_id": golden.pk}], fruit_id=jonagold.pk)
    second = clean_relations([{"kind": "mother", "fruit_id": jonagold.pk}], fruit_id=golden.pk)
    with transaction.atomic():
        fruit_set_relations(fruit=jonagold, relations=first)
    with pytest.raises(ValidationError, match="loop"), transaction.atomic():
        fruit_set_relations(fruit=golden, relations=second)
    assert not golden.relations.exists()


def test_deleting_fruits_in_the_admin_keeps_what_others_say_of_them(admin_client, apples):
    from django.urls import reverse

    jonagold, golden = apples["Jonagold"], apples["Golden Delicious"]
    from catalog.services import fruit_update
    from catalog.validators import clean_relations

    fruit_update(
        fruit=jonagold,
        relations=clean_relations(
            [{"kind": "mother", "fruit_id": golden.pk}], fruit_id=jonagold.pk
        ),
    )
    fruit_update(fruit=golden, name="Golden Delicious Reinders")
    response = admin_client.post(
        reverse("admin:catalog_fruit_changelist"),
        {"action": "delete_selected", "_selected_action": [golden.pk], "post": "yes"},
    )
    assert response.status_code == 302
    (relation,) = jonagold.relations.all()
    assert (relation.other_id, relation.name) == (None, "Golden Delicious Reinders")
