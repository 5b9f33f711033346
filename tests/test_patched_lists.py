"""A PATCH that writes a list replaces it whole, so each entry is checked as a PUT checks it:
a missing field is a 400 naming the entry, never a 500, and an optional one takes its default."""

import pytest

from identification.models import Characteristic

pytestmark = pytest.mark.django_db


@pytest.fixture
def characteristic():
    return Characteristic.objects.of_type("apple").with_states().first()


def states_of(characteristic):
    return list(characteristic.states.order_by("value").values_list("value", "label"))


@pytest.mark.parametrize(
    ("states", "error"),
    [
        (
            [{"label": "x"}, {"value": 1, "label": "y"}],
            {"states": {"0": {"value": ["This field is required."]}}},
        ),
        (
            [{"value": 1, "label": "y"}, {"value": 3}],
            {"states": {"1": {"label": ["This field is required."]}}},
        ),
    ],
)
def test_a_state_without_a_required_field_is_a_400_naming_it(
    curator_client, characteristic, states, error
):
    path = f"/api/v1/characteristics/{characteristic.pk}"
    before = states_of(characteristic)
    whole = {**curator_client.get(path).json(), "states": states}

    patched = curator_client.patch(path, {"states": states}, format="json")
    put = curator_client.put(path, whole, format="json")

    assert (patched.status_code, patched.json()) == (400, error)
    assert (put.status_code, put.json()) == (400, error)
    assert states_of(characteristic) == before


@pytest.mark.parametrize(
    ("entry", "error"),
    [
        ({"values": [5]}, {"characteristics": {"0": {"code": ["This field is required."]}}}),
        (
            {"code": "fruit_size"},
            {"characteristics": {"0": {"values": ["This field is required."]}}},
        ),
    ],
)
def test_a_fruits_characteristic_without_a_required_field_is_a_400_naming_it(
    curator_client, fruit_factory, entry, error
):
    fruit = fruit_factory(type="apple")

    response = curator_client.patch(
        f"/api/v1/fruits/{fruit.pk}", {"characteristics": [entry]}, format="json"
    )

    assert (response.status_code, response.json()) == (400, error)


def test_a_patched_characteristic_entry_takes_the_defaults_it_leaves_out(
    curator_client, fruit_factory
):
    fruit = fruit_factory(type="apple")
    path = f"/api/v1/fruits/{fruit.pk}"
    full = {"code": "fruit_size", "values": [5], "note": "large crop"}
    assert curator_client.patch(path, {"characteristics": [full]}, format="json").status_code == 200

    response = curator_client.patch(
        path, {"characteristics": [{"code": "fruit_size", "values": [7]}]}, format="json"
    )

    assert response.status_code == 200
    (written,) = response.json()["characteristics"]
    assert (written["values"], written["note"], written["source"]) == ([7], "", None)


@pytest.mark.parametrize(
    ("field", "entries", "error"),
    [
        ("names", [{"kind": "synonym"}], {"names": {"0": {"name": ["This field is required."]}}}),
        (
            "relations",
            [{"name": "Cox"}],
            {"relations": {"0": {"kind": ["This field is required."]}}},
        ),
    ],
)
def test_a_fruits_name_or_relation_without_a_required_field_is_a_400_naming_it(
    curator_client, fruit_factory, field, entries, error
):
    fruit = fruit_factory(type="apple", synonyms=["Kept"])
    path = f"/api/v1/fruits/{fruit.pk}"

    response = curator_client.patch(path, {field: entries}, format="json")

    assert (response.status_code, response.json()) == (400, error)
    assert [name["name"] for name in curator_client.get(path).json()["names"]] == ["Kept"]


def test_a_patched_name_takes_the_defaults_it_leaves_out(curator_client, fruit_factory):
    fruit = fruit_factory(type="apple")
    path = f"/api/v1/fruits/{fruit.pk}"

    response = curator_client.patch(path, {"names": [{"name": "Reinette"}]}, format="json")

    assert response.status_code == 200
    (written,) = response.json()["names"]
    assert (written["kind"], written["language"], written["note"]) == ("synonym", "", "")
