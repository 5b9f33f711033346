"""The characteristics API, a fruit's characteristics, and identify, through HTTP."""

import math

import pytest

from catalog.models import Fruit
from identification.models import Characteristic, FruitCharacteristic, ValuesVersion
from publications.services import publication_link_fruit
from publications.tests.factories import PublicationFactory

pytestmark = pytest.mark.django_db

CHARS = "/api/v1/characteristics"
IDENTIFY = "/api/v1/identify"
COLOURS = [
    {"value": 1, "label": "green"},
    {"value": 2, "label": "yellow"},
    {"value": 3, "label": "red"},
]


def new_characteristic(**fields):
    body = {
        "code": "t_size",
        "name": "Test: size",
        "fruit_types": ["apple", "pear"],
        "scale": "ordinal",
        "reliability": "high",
        "position": 5,
        "reference": "UPOV TG/14/10, 22",
        "states": [
            {"value": 5, "label": "medium"},
            {"value": 1, "label": "small"},
            {"value": 9, "label": "large"},
        ],
    }
    body.update(fields)
    return body


def put_values(client, fruit, entries, **extra):
    return client.patch(
        f"/api/v1/fruits/{fruit.pk}", {"characteristics": entries, **extra}, format="json"
    )


# --- characteristics -------------------------------------------------------------------------


def test_a_curator_creates_a_characteristic_and_anyone_reads_it(curator_client, anon_client):
    response = curator_client.post(CHARS, new_characteristic(), format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["fruit_types"] == ["apple", "pear"]
    assert [state["value"] for state in body["states"]] == [1, 5, 9]
    assert body["states"][0] == {"value": 1, "label": "small", "label_de": "", "image": None}
    assert response["Location"].endswith(f"{CHARS}/{body['id']}")
    read = anon_client.get(f"{CHARS}/{body['id']}").json()
    assert read == body
    listed = anon_client.get(CHARS, {"type": "pear"}).json()
    assert body["id"] in [item["id"] for item in listed["results"]]
    cherries = anon_client.get(CHARS, {"type": "cherry"}).json()
    assert body["id"] not in [item["id"] for item in cherries["results"]]


def test_writing_characteristics_needs_the_permission(anon_client, reader_client):
    assert anon_client.post(CHARS, new_characteristic(), format="json").status_code == 401
    assert reader_client.post(CHARS, new_characteristic(), format="json").status_code == 403


def test_an_unknown_type_filter_is_a_400(anon_client):
    response = anon_client.get(CHARS, {"type": "banana"})
    assert response.status_code == 400
    assert "type" in response.json()


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"code": "limit"}, "code"),
        ({"code": "9lives"}, "code"),
        ({"code": "Size"}, "code"),
        ({"code": "a" * 51}, "code"),
        ({"name": ""}, "name"),
        ({"fruit_types": []}, "fruit_types"),
        ({"fruit_types": ["apple", "apple"]}, "fruit_types"),
        ({"fruit_types": ["banana"]}, "fruit_types"),
        ({"scale": "interval"}, "scale"),
        ({"reliability": "total"}, "reliability"),
        ({"position": -1}, "position"),
        ({"reference": "r" * 201}, "reference"),
        ({"states": [{"value": 1, "label": "one"}]}, "states"),
        ({"states": [{"value": 1, "label": "a"}, {"value": 1, "label": "b"}]}, "states"),
        ({"states": [{"value": 0, "label": "a"}, {"value": 1, "label": "b"}]}, "states"),
        ({"states": [{"value": 100, "label": "a"}, {"value": 1, "label": "b"}]}, "states"),
        ({"states": [{"value": 2, "label": ""}, {"value": 1, "label": "b"}]}, "states"),
        ({"states": [{"value": v, "label": str(v)} for v in range(1, 22)]}, "states"),
        (
            {
                "states": [
                    {"value": 2, "label": "a", "image": {"image_id": 99999}},
                    {"value": 1, "label": "b"},
                ]
            },
            "states",
        ),
    ],
)
def test_a_bad_characteristic_is_a_400_naming_the_field(curator_client, fields, field):
    before = Characteristic.objects.count()
    response = curator_client.post(CHARS, new_characteristic(**fields), format="json")
    assert response.status_code == 400, response.json()
    assert field in response.json()
    assert Characteristic.objects.count() == before


def test_a_code_is_unique(curator_client, characteristic_factory):
    characteristic_factory("t_size")
    response = curator_client.post(CHARS, new_characteristic(), format="json")
    assert response.status_code == 400
    assert "code" in response.json()


def test_a_state_is_illustrated_by_a_fruit_image(curator_client, fruit_factory, add_image):
    image = add_image(fruit_factory(name="Boskoop"))
    states = [
        {"value": 1, "label": "small", "image": {"image_id": image.pk}},
        {"value": 3, "label": "large"},
    ]
    body = curator_client.post(CHARS, new_characteristic(states=states), format="json").json()
    shown = body["states"][0]["image"]
    assert shown["fruit_id"] == image.fruit_id and shown["image_id"] == image.pk
    assert shown["thumbnail_url"].startswith("http://testserver/api/v1/fruits/")


def test_removing_a_state_in_use_is_a_409_and_changes_nothing(
    curator_client, fruit_factory, characteristic_factory
):
    char = characteristic_factory("t_colour", scale="nominal", states=COLOURS)
    fruit = fruit_factory(name="Topaz")
    assert (
        put_values(curator_client, fruit, [{"code": "t_colour", "values": [3]}]).status_code == 200
    )
    response = curator_client.patch(
        f"{CHARS}/{char.pk}", {"states": COLOURS[:2], "name": "Renamed"}, format="json"
    )
    assert response.status_code == 409
    assert "3 (red)" in response.json()["detail"]
    char.refresh_from_db()
    assert char.name != "Renamed"
    assert [s.value for s in char.states.all()] == [1, 2, 3]
    # A state no fruit uses goes; labels change in place and values stay.
    relabelled = [{"value": 1, "label": "green"}, {"value": 3, "label": "crimson"}]
    response = curator_client.patch(f"{CHARS}/{char.pk}", {"states": relabelled}, format="json")
    assert response.status_code == 200
    detail = curator_client.get(f"/api/v1/fruits/{fruit.pk}").json()
    assert detail["characteristics"][0]["labels"] == ["crimson"]


def test_deleting_a_characteristic_deletes_its_values(
    curator_client, fruit_factory, characteristic_factory
):
    characteristic_factory("t_colour", scale="nominal", states=COLOURS)
    char = characteristic_factory("t_size")
    fruit = fruit_factory(name="Topaz")
    put_values(
        curator_client,
        fruit,
        [{"code": "t_colour", "values": [1]}, {"code": "t_size", "values": [5]}],
    )
    assert curator_client.delete(f"{CHARS}/{char.pk}").status_code == 204
    detail = curator_client.get(f"/api/v1/fruits/{fruit.pk}").json()
    assert [entry["code"] for entry in detail["characteristics"]] == ["t_colour"]


def test_narrowing_the_types_drops_the_other_types_values(
    curator_client, fruit_factory, characteristic_factory
):
    char = characteristic_factory("t_size", types=("apple", "pear"))
    pear = fruit_factory(name="Conference", type="pear")
    put_values(curator_client, pear, [{"code": "t_size", "values": [5]}])
    response = curator_client.patch(f"{CHARS}/{char.pk}", {"fruit_types": ["apple"]}, format="json")
    assert response.status_code == 200
    assert not FruitCharacteristic.objects.filter(fruit=pear).exists()


# --- a fruit's characteristics ---------------------------------------------------------------


def test_a_fruits_characteristics_are_written_and_read_in_question_order(
    curator_client, fruit_factory, characteristic_factory
):
    characteristic_factory("t_colour", scale="nominal", states=COLOURS, position=2)
    characteristic_factory("t_size", position=1)
    fruit = fruit_factory(name="Elstar")
    publication = PublicationFactory(title="Lucas, Handbuch")
    publication_link_fruit(publication=publication, fruit=fruit)
    response = put_values(
        curator_client,
        fruit,
        [
            {"code": "t_colour", "values": [3, 2], "note": "red over yellow"},
            {
                "code": "t_size",
                "values": [5, 7],
                "source_publication": publication.pk,
                "pages": "112",
            },
        ],
    )
    assert response.status_code == 200, response.json()
    assert response.json()["characteristics"] == [
        {
            "code": "t_size",
            "name": "T size",
            "values": [5, 7],
            "labels": ["medium", "large"],
            "source": {
                "publication_id": publication.pk,
                "title": "Lucas, Handbuch",
                "pages": "112",
            },
            "note": "",
        },
        {
            "code": "t_colour",
            "name": "T colour",
            "values": [2, 3],
            "labels": ["yellow", "red"],
            "source": None,
            "note": "red over yellow",
        },
    ]
    # Deleting the publication clears the source; the values stay.
    publication.links.all().delete()
    publication.delete()
    detail = curator_client.get(f"/api/v1/fruits/{fruit.pk}").json()
    assert detail["characteristics"][0]["source"] is None
    assert detail["characteristics"][0]["values"] == [5, 7]


@pytest.mark.parametrize(
    "entry",
    [
        {"code": "t_nope", "values": [1]},
        {"code": "t_pear_only", "values": [1]},
        {"code": "t_size", "values": [4]},
        {"code": "t_size", "values": []},
        {"code": "t_size", "values": [5], "pages": "p" * 51},
        {"code": "t_size", "values": [5], "note": "n" * 501},
        {"code": "t_size", "values": [5], "source_publication": "unlinked"},
        "twice",
    ],
)
def test_a_bad_entry_is_a_400_and_nothing_changes(
    curator_client, fruit_factory, characteristic_factory, entry
):
    characteristic_factory("t_size")
    characteristic_factory("t_pear_only", types=("pear",))
    fruit = fruit_factory(name="Elstar")
    put_values(curator_client, fruit, [{"code": "t_size", "values": [3]}])
    if entry == "twice":
        entries = [{"code": "t_size", "values": [5]}, {"code": "t_size", "values": [7]}]
    else:
        if entry.get("source_publication") == "unlinked":
            entry = {**entry, "source_publication": PublicationFactory().pk}
        entries = [entry]
    response = put_values(curator_client, fruit, entries, name="Renamed")
    assert response.status_code == 400, response.json()
    assert "characteristics" in response.json()
    fruit.refresh_from_db()
    assert fruit.name == "Elstar"
    values = FruitCharacteristic.objects.get(fruit=fruit).states.values_list("value", flat=True)
    assert list(values) == [3]


def test_changing_the_type_drops_values_that_do_not_apply(
    curator_client, fruit_factory, characteristic_factory
):
    characteristic_factory("t_size", types=("apple", "pear"))
    characteristic_factory("t_colour", scale="nominal", states=COLOURS)
    fruit = fruit_factory(name="Odd one")
    put_values(
        curator_client,
        fruit,
        [{"code": "t_size", "values": [5]}, {"code": "t_colour", "values": [1]}],
    )
    response = curator_client.patch(f"/api/v1/fruits/{fruit.pk}", {"type": "pear"}, format="json")
    assert [entry["code"] for entry in response.json()["characteristics"]] == ["t_size"]


def test_a_fruit_is_created_with_its_characteristics(curator_client, characteristic_factory):
    characteristic_factory("t_size")
    response = curator_client.post(
        "/api/v1/fruits",
        {"name": "New", "type": "apple", "characteristics": [{"code": "t_size", "values": [9]}]},
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert response.json()["characteristics"][0]["labels"] == ["very large"]


def test_the_fruit_list_reads_no_characteristics(anon_client, fruit_factory):
    fruit_factory(name="Listed")
    assert "characteristics" not in anon_client.get("/api/v1/fruits").json()["results"][0]


# --- identify --------------------------------------------------------------------------------


@pytest.fixture
def orchard(fruit_factory, characteristic_factory, curator_client):
    """Four apples described by size (ordinal, high), colour (nominal, low) and eye (high)."""
    characteristic_factory("t_size", reliability="high", position=1)
    characteristic_factory(
        "t_colour", scale="nominal", reliability="low", states=COLOURS, position=2
    )
    characteristic_factory(
        "t_eye",
        scale="nominal",
        reliability="high",
        position=3,
        states=[{"value": 1, "label": "open"}, {"value": 2, "label": "closed"}],
    )
    described = {
        "Match": {"t_size": [7], "t_colour": [3], "t_eye": [1]},
        "Near": {"t_size": [5], "t_colour": [3], "t_eye": [1]},
        "Miss": {"t_size": [1], "t_colour": [3], "t_eye": [1]},
        "Colourless": {"t_size": [7], "t_colour": [1], "t_eye": [2]},
    }
    fruits = {}
    for name, values in described.items():
        fruit = fruit_factory(name=name)
        put_values(
            curator_client, fruit, [{"code": code, "values": v} for code, v in values.items()]
        )
        fruits[name] = fruit
    fruit_factory(name="Undescribed")
    return fruits


def names(body):
    return [candidate["fruit"]["name"] for candidate in body["candidates"]]


def test_a_match_ranks_above_near_above_a_mismatch(anon_client, orchard):
    body = anon_client.get(IDENTIFY, {"type": "apple", "t_size": "7", "t_colour": "3"}).json()
    # Near, Miss and Match differ in size only; Colourless mismatches the unreliable colour,
    # Miss the reliable size (where Colourless goes against Near is the model's: it differs
    # from Near in both answers).
    ranked = names(body)
    assert ranked[0] == "Match" and ranked[-1] == "Miss"
    assert ranked.index("Near") < ranked.index("Miss")
    assert ranked.index("Colourless") < ranked.index("Miss")
    assert body["answered"] == 2 and body["count"] == 4
    by_name = {candidate["fruit"]["name"]: candidate for candidate in body["candidates"]}
    first = body["candidates"][0]
    assert first["matches"] == ["t_size", "t_colour"]
    assert first["fruit"]["url"] == f"http://testserver/fruits/{orchard['Match'].pk}/"
    near = by_name["Near"]
    assert near["near"] == ["t_size"] and near["mismatches"] == []
    miss = by_name["Miss"]
    assert miss["mismatches"] == [{"code": "t_size", "answer": [7], "fruit": [1]}]
    assert math.isclose(sum(c["score"] for c in body["candidates"]), 1.0)
    scores = [c["score"] for c in body["candidates"]]
    assert scores == sorted(scores, reverse=True)


def test_a_mismatch_of_an_unreliable_answer_costs_less(anon_client, orchard):
    # Near mismatches colour (low); Colourless mismatches the eye (high) ... compare two fruits
    # alike but for one mismatch each: Miss-size is ordinal; use colour vs eye instead.
    body = anon_client.get(
        IDENTIFY, {"type": "apple", "t_size": "7", "t_colour": "1", "t_eye": "1"}
    ).json()
    ranked = names(body)
    # Match mismatches colour (low); Colourless mismatches the eye (high).
    assert ranked.index("Match") < ranked.index("Colourless")


def test_wrong_answers_never_empty_the_candidates(anon_client, orchard):
    body = anon_client.get(IDENTIFY, {"type": "apple", "t_size": "3", "t_colour": "2"}).json()
    assert body["count"] == 4 and len(body["candidates"]) == 4


def test_several_values_and_cant_tell(anon_client, orchard):
    body = anon_client.get(IDENTIFY, {"type": "apple", "t_size": "5,7", "t_colour": ""}).json()
    assert body["answered"] == 1
    assert set(names(body)[:3]) == {"Match", "Near", "Colourless"}


def test_unknown_is_reported_for_a_fruit_without_the_value(
    anon_client, orchard, characteristic_factory, curator_client, fruit_factory
):
    sparse = fruit_factory(name="Sparse")
    put_values(curator_client, sparse, [{"code": "t_size", "values": [7]}])
    body = anon_client.get(IDENTIFY, {"type": "apple", "t_size": "7", "t_eye": "2"}).json()
    by_name = {c["fruit"]["name"]: c for c in body["candidates"]}
    assert by_name["Sparse"]["unknown"] == ["t_eye"]
    assert by_name["Sparse"]["matches"] == ["t_size"]


def test_next_questions_separate_the_listed_candidates(anon_client, orchard):
    body = anon_client.get(IDENTIFY, {"type": "apple", "t_size": "7"}).json()
    codes = [question["code"] for question in body["next_questions"]]
    assert "t_size" not in codes and codes
    colour = next(q for q in body["next_questions"] if q["code"] == "t_colour")
    counts = {state["value"]: state["candidates"] for state in colour["states"]}
    assert counts == {1: 1, 2: 0, 3: 3}
    # Limited to the fruits that all share one eye, nothing about the eye separates them.
    body = anon_client.get(
        IDENTIFY, {"type": "apple", "t_colour": "3", "t_eye": "1", "limit": "3"}
    ).json()
    assert names(body) == ["Match", "Near", "Miss"]
    assert [q["code"] for q in body["next_questions"]] == ["t_size"]


def test_without_answers_the_first_questions_come_by_position(anon_client, orchard):
    body = anon_client.get(IDENTIFY, {"type": "apple"}).json()
    assert body["candidates"] == [] and body["count"] == 0 and body["answered"] == 0
    assert len(body["next_questions"]) == 3
    positions = [
        Characteristic.objects.get(code=q["code"]).position for q in body["next_questions"]
    ]
    assert positions == sorted(positions)


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ({}, "type"),
        ({"type": "banana"}, "type"),
        ({"type": "apple", "limit": "0"}, "limit"),
        ({"type": "apple", "limit": "51"}, "limit"),
        ({"type": "apple", "limit": "x"}, "limit"),
        ({"type": "apple", "t_nope": "1"}, "t_nope"),
        ({"type": "apple", "t_pear_only": "1"}, "t_pear_only"),
        ({"type": "apple", "t_size": "4"}, "t_size"),
        ({"type": "apple", "t_size": "five"}, "t_size"),
        ({"type": "apple", "t_size": "-1"}, "t_size"),
    ],
)
def test_a_bad_query_is_a_400_naming_the_parameter(
    anon_client, characteristic_factory, query, parameter
):
    characteristic_factory("t_size")
    characteristic_factory("t_pear_only", types=("pear",))
    response = anon_client.get(IDENTIFY, query)
    assert response.status_code == 400
    assert parameter in response.json()


def test_identify_reads_a_bounded_number_of_queries(
    anon_client, orchard, fruit_factory, curator_client, django_assert_max_num_queries
):
    query = {"type": "apple", "t_size": "7", "t_colour": "3", "limit": "50"}
    anon_client.get(IDENTIFY, query)
    with django_assert_max_num_queries(3):  # the version, the listed fruits (and a session)
        assert anon_client.get(IDENTIFY, query).status_code == 200
    for number in range(30):
        fruit = fruit_factory(name=f"More {number}")
        put_values(curator_client, fruit, [{"code": "t_size", "values": [number % 5 * 2 + 1]}])
    with django_assert_max_num_queries(6):  # the values read again, once
        assert len(anon_client.get(IDENTIFY, query).json()["candidates"]) == 34
    with django_assert_max_num_queries(3):
        anon_client.get(IDENTIFY, query)


def test_a_deleted_or_retyped_fruit_leaves_the_candidates(curator_client, anon_client, orchard):
    query = {"type": "apple", "t_size": "7"}
    assert "Match" in names(anon_client.get(IDENTIFY, query).json())
    assert curator_client.delete(f"/api/v1/fruits/{orchard['Match'].pk}").status_code == 204
    curator_client.patch(f"/api/v1/fruits/{orchard['Near'].pk}", {"type": "pear"}, format="json")
    body = anon_client.get(IDENTIFY, query).json()
    assert "Match" not in names(body) and "Near" not in names(body)
    assert not Fruit.objects.filter(name="Match").exists()


def test_ties_follow_a_renumbered_fruit_into_its_new_catalog_order(
    curator_client, anon_client, orchard
):
    # Match and Colourless tie on size; ties keep catalog order, also after a renumbering.
    query = {"type": "apple", "t_size": "7"}
    assert names(anon_client.get(IDENTIFY, query).json())[:2] == ["Match", "Colourless"]
    last = Fruit.objects.order_by("-catalog_number").first().catalog_number
    response = curator_client.patch(
        f"/api/v1/fruits/{orchard['Match'].pk}", {"catalog_number": last + 1}, format="json"
    )
    assert response.status_code == 200
    assert names(anon_client.get(IDENTIFY, query).json())[:2] == ["Colourless", "Match"]


def test_writing_a_fruit_without_values_keeps_what_identify_holds(curator_client, orchard):
    # A fruit without values is not among the kept ones: renumbering, retyping or deleting it
    # leaves them current (no reload of the type's values in every process).
    def versions():
        return dict(ValuesVersion.objects.values_list("fruit_type", "version"))

    before = versions()
    undescribed = Fruit.objects.get(name="Undescribed")
    url = f"/api/v1/fruits/{undescribed.pk}"
    last = Fruit.objects.order_by("-catalog_number").first().catalog_number
    assert curator_client.patch(url, {"catalog_number": last + 1}, format="json").status_code == 200
    assert curator_client.patch(url, {"type": "pear"}, format="json").status_code == 200
    assert curator_client.delete(url).status_code == 204
    assert versions() == before


def test_unlinking_the_source_publication_clears_the_citation(
    curator_client, fruit_factory, characteristic_factory
):
    characteristic_factory("t_size")
    fruit = fruit_factory(name="Elstar")
    publication = PublicationFactory(title="Lucas")
    publication_link_fruit(publication=publication, fruit=fruit)
    entries = [
        {"code": "t_size", "values": [5], "source_publication": publication.pk, "pages": "12"}
    ]
    assert put_values(curator_client, fruit, entries).status_code == 200
    unlink = curator_client.delete(f"/api/v1/publications/{publication.pk}/fruits/{fruit.pk}")
    assert unlink.status_code == 204
    detail = curator_client.get(f"/api/v1/fruits/{fruit.pk}").json()
    assert detail["characteristics"][0]["source"] is None
    assert detail["characteristics"][0]["values"] == [5]


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ({"type": "apple", "limit": "²"}, "limit"),
        ({"type": "apple", "t_size": "²"}, "t_size"),
        ({"type": ["apple", "pear"]}, "type"),
        ({"type": "apple", "t_size": "9" * 40}, "t_size"),
    ],
)
def test_odd_numbers_in_the_query_are_400s(anon_client, characteristic_factory, query, parameter):
    characteristic_factory("t_size")
    response = anon_client.get(IDENTIFY, query)
    assert response.status_code == 400
    assert parameter in response.json()


@pytest.mark.parametrize(
    "body",
    [
        {
            "states": [
                {"value": 1, "label": "a", "image": {"image_id": 10**20}},
                {"value": 2, "label": "b"},
            ]
        },
        {"states": [{"value": 1, "label": "a", "image": "7"}, {"value": 2, "label": "b"}]},
        {"states": "many"},
        {"fruit_types": "apple"},
    ],
)
def test_odd_characteristic_bodies_are_400s(curator_client, body):
    response = curator_client.post(CHARS, new_characteristic(**body), format="json")
    assert response.status_code == 400


@pytest.mark.parametrize(
    "entries",
    [
        [{"code": "t_size", "values": [5], "source_publication": 10**20}],
        [{"code": "t_size", "values": [10**20]}],
        [{"code": "t_size", "values": "5"}],
        {"code": "t_size"},
        ["t_size"],
    ],
)
def test_odd_fruit_characteristics_are_400s(
    curator_client, fruit_factory, characteristic_factory, entries
):
    characteristic_factory("t_size")
    fruit = fruit_factory(name="Elstar")
    assert put_values(curator_client, fruit, entries).status_code == 400
