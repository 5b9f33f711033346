"""The admin: characteristics with their states, and the fruit's characteristics as rows."""

import pytest
from django.urls import reverse

from catalog.tests.test_admin import fruit_change_url, fruit_form_data
from fruitcatalog.tests.admin_pages import form_errors, management_form
from identification.models import Characteristic, FruitCharacteristic
from publications.services import publication_link_fruit
from publications.tests.factories import PublicationFactory

pytestmark = pytest.mark.django_db

COLOURS = [{"value": 1, "label": "green"}, {"value": 3, "label": "red"}]


def characteristic_form_data(**fields):
    data = {
        "code": "t_shape",
        "name": "Fruit: test shape",
        "types": ["apple", "pear"],
        "scale": "nominal",
        "reliability": "high",
        "position": "7",
        "reference": "UPOV TG/14/10",
    }
    data.update(fields)
    return data


def states_form(states, *, initial=()):
    data = management_form("states", total=len(initial) + len(states), initial=len(initial))
    for index, state in enumerate([*initial, *states]):
        for key, value in state.items():
            data[f"states-{index}-{key}"] = value
        data[f"states-{index}-characteristic"] = state.get("characteristic", "")
    return data


def test_a_characteristic_is_added_with_its_states(admin_client):
    data = characteristic_form_data() | states_form(
        [{"value": 1, "label": "globose"}, {"value": 2, "label": "conical"}]
    )
    response = admin_client.post(reverse("admin:identification_characteristic_add"), data)
    assert response.status_code == 302, form_errors(response)
    char = Characteristic.objects.get(code="t_shape")
    assert char.type_list == ["apple", "pear"]
    assert [(s.value, s.label) for s in char.states.all()] == [(1, "globose"), (2, "conical")]


def test_the_characteristics_list_shows_types_and_reliability(admin_client):
    response = admin_client.get(reverse("admin:identification_characteristic_changelist"))
    assert response.status_code == 200
    assert "Fruit: size" in response.text and "Apple, Pear" in response.text


def test_a_state_in_use_cannot_be_deleted(admin_client, fruit_factory, characteristic_factory):
    char = characteristic_factory("t_colour", scale="nominal", states=COLOURS)
    fruit = fruit_factory(name="Topaz")
    from identification.services import fruit_set_characteristics
    from identification.validators import clean_fruit_characteristics

    fruit_set_characteristics(
        fruit=fruit,
        records=clean_fruit_characteristics(
            [{"code": "t_colour", "values": [3]}], fruit_type="apple"
        ),
    )
    states = list(char.states.all())
    rows = [
        {"id": state.pk, "value": state.value, "label": state.label, "characteristic": char.pk}
        for state in states
    ]
    rows[1]["DELETE"] = "on"
    data = characteristic_form_data(code="t_colour", types=["apple"]) | states_form(
        [], initial=rows
    )
    response = admin_client.post(
        reverse("admin:identification_characteristic_change", args=[char.pk]), data
    )
    assert response.status_code == 200
    assert "protected" in form_errors(response)
    assert char.states.count() == 2


def characteristics_rows(response):
    """The characteristic ids of the fruit page's rows, in their order."""
    import re

    return [
        int(value)
        for value in re.findall(
            r'name="characteristics-\d+-characteristic" value="(\d+)"', response.text
        )
    ]


def test_the_fruit_page_has_a_row_per_characteristic_of_its_type_to_tick(
    admin_client, fruit_factory
):
    fruit = fruit_factory(name="Elstar", catalog_number=1)
    publication = PublicationFactory(title="Obstsortenwerk")
    publication_link_fruit(publication=publication, fruit=fruit)
    page = admin_client.get(fruit_change_url(fruit))
    rows = characteristics_rows(page)
    apple = list(Characteristic.objects.of_type("apple").in_question_order())
    assert rows == [char.pk for char in apple]
    assert len(rows) >= 20
    assert "Obstsortenwerk" in page.text
    size = next(char for char in apple if char.code == "fruit_size")
    index = rows.index(size.pk)
    data = fruit_form_data(name="Elstar", catalog_number=1)
    data |= management_form("characteristics", total=len(rows), initial=0)
    for number, char_id in enumerate(rows):
        data[f"characteristics-{number}-characteristic"] = char_id
    data[f"characteristics-{index}-values"] = ["5", "7"]
    data[f"characteristics-{index}-source_publication"] = publication.pk
    data[f"characteristics-{index}-pages"] = "112"
    response = admin_client.post(fruit_change_url(fruit), data)
    assert response.status_code == 302, form_errors(response)
    row = FruitCharacteristic.objects.get(fruit=fruit)
    assert row.characteristic_id == size.pk and row.pages == "112"
    assert sorted(row.states.values_list("value", flat=True)) == [5, 7]
    # The page shows what is stored, ticked.
    page = admin_client.get(fruit_change_url(fruit))
    assert f'name="characteristics-{index}-values" value="7"' in page.text.replace(" checked", "")
    assert page.text.count("checked") >= 2


def test_few_characteristics_filter(admin_client, fruit_factory, characteristic_factory):
    described = fruit_factory(name="Described")
    fruit_factory(name="Bare")
    from identification.services import fruit_set_characteristics
    from identification.validators import clean_fruit_characteristics

    fruit_set_characteristics(
        fruit=described,
        records=clean_fruit_characteristics(
            [{"code": "fruit_size", "values": [5]}], fruit_type="apple"
        ),
    )
    changelist = reverse("admin:catalog_fruit_changelist")
    none = admin_client.get(changelist, {"described": "none"}).text
    assert "Bare" in none and "Described" not in none
    few = admin_client.get(changelist, {"described": "few"}).text
    assert "Bare" in few and "Described" in few
    assert "Described" not in admin_client.get(changelist, {"described": "enough"}).text
