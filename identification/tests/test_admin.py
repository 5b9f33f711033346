"""The admin: characteristics with their states, and the fruit's characteristics as rows."""

import re

import pytest
from django.urls import reverse

from catalog.tests.test_admin import fruit_change_url, fruit_form_data
from core.testing.admin_pages import form_errors, management_form
from identification.models import Characteristic, FruitCharacteristic
from identification.tests.helpers import describe
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
    three = [*COLOURS, {"value": 2, "label": "yellow"}]
    char = characteristic_factory("t_colour", scale="nominal", states=three)
    fruit = fruit_factory(name="Topaz")
    from identification.services import fruit_set_characteristics
    from identification.validators import clean_fruit_characteristics

    fruit_set_characteristics(
        fruit=fruit,
        records=clean_fruit_characteristics(
            [{"code": "t_colour", "values": [3]}], fruit_type="apple"
        ),
    )
    states = list(char.states.all())  # green, yellow, red
    rows = [
        {"id": state.pk, "value": state.value, "label": state.label, "characteristic": char.pk}
        for state in states
    ]
    rows[2]["DELETE"] = "on"
    data = characteristic_form_data(code="t_colour", types=["apple"]) | states_form(
        [], initial=rows
    )
    response = admin_client.post(
        reverse("admin:identification_characteristic_change", args=[char.pk]), data
    )
    assert response.status_code == 200
    assert "protected" in form_errors(response)
    assert char.states.count() == 3


def characteristics_rows(response):
    """The characteristic ids of the fruit page's rows, in their order."""
    return [
        int(value)
        for value in re.findall(r'name="characteristics-\d+-question" value="(\d+)"', response.text)
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
        data[f"characteristics-{number}-question"] = char_id
    data[f"characteristics-{index}-values"] = ["5", "7"]
    data[f"characteristics-{index}-source"] = publication.pk
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


def page_rows_data(page, fruit, **changes):
    """The fruit page's characteristics rows as a browser posts them (what is ticked stays),
    with `changes` ({row index: {field: value}}) applied."""
    rows = characteristics_rows(page)
    data = fruit_form_data(name=fruit.name, catalog_number=fruit.catalog_number or "")
    data |= management_form("characteristics", total=len(rows), initial=0)
    for number, char_id in enumerate(rows):
        data[f"characteristics-{number}-question"] = char_id
        ticked = re.findall(
            rf'name="characteristics-{number}-values" value="(\d+)"[^>]*checked', page.text
        )
        if ticked:
            data[f"characteristics-{number}-values"] = ticked
    for number, fields in changes.items():
        for field, value in fields.items():
            data[f"characteristics-{number}-{field}"] = value
    return rows, data


def stored_values(fruit) -> dict[str, list[int]]:
    return {
        row.characteristic.code: sorted(state.value for state in row.states.all())
        for row in FruitCharacteristic.objects.filter(fruit=fruit).select_related("characteristic")
    }


def test_ticking_one_row_keeps_the_other_rows(admin_client, fruit_factory):
    fruit = fruit_factory(name="Elstar", catalog_number=1)
    describe(fruit, {"fruit_size": [5], "shape": [3]})
    page = admin_client.get(fruit_change_url(fruit))
    rows = characteristics_rows(page)
    russet = rows.index(Characteristic.objects.get(code="russet_amount").pk)
    _, data = page_rows_data(page, fruit, **{str(russet): {"values": ["1"]}})
    response = admin_client.post(fruit_change_url(fruit), data)
    assert response.status_code == 302, form_errors(response)
    assert stored_values(fruit) == {"fruit_size": [5], "shape": [3], "russet_amount": [1]}


def test_a_new_type_keeps_what_applies_to_both(admin_client, fruit_factory):
    fruit = fruit_factory(name="Odd", catalog_number=1)
    describe(fruit, {"fruit_size": [5], "shape": [3], "ground_colour": [2]})
    page = admin_client.get(fruit_change_url(fruit))
    _, data = page_rows_data(page, fruit)
    data["type"] = "pear"
    response = admin_client.post(fruit_change_url(fruit), data)
    assert response.status_code == 302, form_errors(response)
    assert stored_values(fruit) == {"fruit_size": [5], "ground_colour": [2]}  # shape: apple's


def test_a_row_of_a_characteristic_deleted_meanwhile_is_left_out(
    admin_client, fruit_factory, characteristic_factory
):
    extra = characteristic_factory("t_gone", position=1)
    fruit = fruit_factory(name="Elstar", catalog_number=1)
    describe(fruit, {"fruit_size": [5]})
    page = admin_client.get(fruit_change_url(fruit))
    rows = characteristics_rows(page)
    _, data = page_rows_data(page, fruit, **{str(rows.index(extra.pk)): {"values": ["3"]}})
    data["name"] = "Elstar renamed"
    extra.delete()
    response = admin_client.post(fruit_change_url(fruit), data)
    assert response.status_code == 302, form_errors(response)
    fruit.refresh_from_db()
    assert fruit.name == "Elstar renamed" and stored_values(fruit) == {"fruit_size": [5]}


def test_a_row_id_that_is_not_a_number_is_a_form_error(admin_client, fruit_factory):
    fruit = fruit_factory(name="Elstar", catalog_number=1)
    page = admin_client.get(fruit_change_url(fruit))
    _, data = page_rows_data(page, fruit, **{"0": {"question": "²"}})
    response = admin_client.post(fruit_change_url(fruit), data)
    assert response.status_code == 200
    assert "whole number" in form_errors(response)


def test_a_characteristic_keeps_two_states_at_least(admin_client, characteristic_factory):
    char = characteristic_factory("t_two", scale="nominal", states=COLOURS)
    rows = [
        {"id": s.pk, "value": s.value, "label": s.label, "characteristic": char.pk}
        for s in char.states.all()
    ]
    rows[0]["DELETE"] = "on"
    data = characteristic_form_data(code="t_two", types=["apple"]) | states_form([], initial=rows)
    response = admin_client.post(
        reverse("admin:identification_characteristic_change", args=[char.pk]), data
    )
    assert response.status_code == 200
    assert char.states.count() == 2


def test_saving_the_page_unchanged_rewrites_no_value(admin_client, fruit_factory):
    fruit = fruit_factory(name="Elstar", catalog_number=1)
    describe(fruit, {"fruit_size": [5]})
    before = list(FruitCharacteristic.objects.values_list("pk", "updated_at"))
    page = admin_client.get(fruit_change_url(fruit))
    _, data = page_rows_data(page, fruit)
    assert admin_client.post(fruit_change_url(fruit), data).status_code == 302
    assert list(FruitCharacteristic.objects.values_list("pk", "updated_at")) == before


def test_a_characteristic_page_shows_its_state_pictures_without_reading_bytes(
    admin_client, fruit_factory, add_image, characteristic_factory, reads_no_bytes
):
    char = characteristic_factory("t_pictured", scale="nominal", states=COLOURS)
    image = add_image(fruit_factory(name="Boskoop"))
    char.states.update(image=image)
    with reads_no_bytes():
        page = admin_client.get(
            reverse("admin:identification_characteristic_change", args=[char.pk])
        )
    assert page.status_code == 200
    assert f'value="{image.pk}" selected' in page.text
