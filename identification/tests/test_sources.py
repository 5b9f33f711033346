"""A value's source: the publications the admin offers, why the list may be empty, and pages
that need a source (the admin's fruit page and the API)."""

import pytest

from catalog.tests.test_admin import fruit_change_url
from core.testing.admin_pages import form_errors
from identification.models import Characteristic, FruitCharacteristic
from identification.tests.helpers import describe
from identification.tests.test_admin import characteristics_rows, page_rows_data
from publications.services import publication_link_fruit
from publications.tests.factories import PublicationFactory

pytestmark = pytest.mark.django_db

PAGES_NEED_A_SOURCE = "Pages need a source"


def row_of(page, code: str) -> str:
    """The index of a characteristic's row on the fruit page, as the form names it."""
    return str(characteristics_rows(page).index(Characteristic.objects.get(code=code).pk))


def characteristics_errors(response) -> list[dict]:
    """The errors of the fruit page's characteristics rows, by field."""
    (formset,) = [
        inline.formset
        for inline in response.context["inline_admin_formsets"]
        if inline.formset.prefix == "characteristics"
    ]
    return [errors for errors in formset.errors if errors]


def test_the_source_list_says_why_it_is_empty_and_how_to_link_a_publication(
    admin_client, fruit_factory
):
    fruit = fruit_factory(name="Elstar", catalog_number=1)
    page = admin_client.get(fruit_change_url(fruit)).text
    assert '<option value="" selected>— no publication linked —</option>' in page
    assert (
        "No publication links this fruit yet, so there is no source to choose: add the fruit to "
        "a publication&#x27;s linked fruits"
    ) in page


def test_with_a_linked_publication_the_source_list_offers_it(admin_client, fruit_factory):
    fruit = fruit_factory(name="Elstar", catalog_number=1)
    publication_link_fruit(publication=PublicationFactory(title="Obstsortenwerk"), fruit=fruit)
    page = admin_client.get(fruit_change_url(fruit)).text
    assert "Obstsortenwerk</option>" in page
    assert "no publication linked" not in page
    assert "A publication is offered here once it links the fruit" in page


def test_pages_without_a_source_are_a_form_error_on_pages_and_nothing_is_stored(
    admin_client, fruit_factory
):
    fruit = fruit_factory(name="Elstar", catalog_number=1)
    page = admin_client.get(fruit_change_url(fruit))
    size = row_of(page, "fruit_size")
    _, data = page_rows_data(page, fruit, **{size: {"values": ["5"], "pages": "112"}})
    response = admin_client.post(fruit_change_url(fruit), data)
    assert response.status_code == 200
    (errors,) = characteristics_errors(response)
    assert list(errors) == ["pages"] and PAGES_NEED_A_SOURCE in errors["pages"][0]
    assert not FruitCharacteristic.objects.filter(fruit=fruit).exists()


def test_pages_with_their_source_and_a_note_without_one_are_stored(admin_client, fruit_factory):
    fruit = fruit_factory(name="Elstar", catalog_number=1)
    publication = PublicationFactory(title="Obstsortenwerk")
    publication_link_fruit(publication=publication, fruit=fruit)
    page = admin_client.get(fruit_change_url(fruit))
    size, shape = row_of(page, "fruit_size"), row_of(page, "shape")
    changes = {
        size: {"values": ["5"], "source": publication.pk, "pages": "112"},
        shape: {"values": ["3"], "note": "flatter in hot summers"},
    }
    _, data = page_rows_data(page, fruit, **changes)
    response = admin_client.post(fruit_change_url(fruit), data)
    assert response.status_code == 302, form_errors(response)
    stored = {
        row.characteristic.code: (row.source_publication_id, row.pages, row.note)
        for row in FruitCharacteristic.objects.filter(fruit=fruit).select_related("characteristic")
    }
    assert stored == {
        "fruit_size": (publication.pk, "112", ""),
        "shape": (None, "", "flatter in hot summers"),
    }


def test_a_row_stored_with_pages_and_no_source_does_not_block_the_page_until_changed(
    admin_client, fruit_factory
):
    fruit = fruit_factory(name="Elstar", catalog_number=1)
    describe(fruit, {"fruit_size": [5]}, fruit_size={"pages": "112"})  # stored before the rule
    page = admin_client.get(fruit_change_url(fruit))
    size = row_of(page, "fruit_size")
    _, data = page_rows_data(page, fruit, **{size: {"pages": "112"}})  # as the page shows it
    data["name"] = "Elstar (Ingrid Marie x Golden Delicious)"
    response = admin_client.post(fruit_change_url(fruit), data)
    assert response.status_code == 302, form_errors(response)
    assert FruitCharacteristic.objects.get(fruit=fruit).pages == "112"

    page = admin_client.get(fruit_change_url(fruit))
    _, data = page_rows_data(page, fruit, **{size: {"pages": "112-113"}})
    response = admin_client.post(fruit_change_url(fruit), data)
    assert response.status_code == 200
    assert PAGES_NEED_A_SOURCE in form_errors(response)
    assert FruitCharacteristic.objects.get(fruit=fruit).pages == "112"


# --- the API ---------------------------------------------------------------------------------


def patch_characteristics(client, fruit, entries):
    return client.patch(f"/api/v1/fruits/{fruit.pk}", {"characteristics": entries}, format="json")


@pytest.mark.parametrize("source", [None, "left out"])
def test_pages_without_a_source_publication_are_a_400_naming_pages(
    curator_client, fruit_factory, characteristic_factory, source
):
    characteristic_factory("t_size")
    characteristic_factory("t_shape")
    fruit = fruit_factory(name="Elstar")
    entry = {"code": "t_size", "values": [5], "pages": "112"}
    if source is None:
        entry["source_publication"] = None
    response = patch_characteristics(
        curator_client, fruit, [{"code": "t_shape", "values": [3]}, entry]
    )
    assert response.status_code == 400, response.json()
    assert list(response.json()["characteristics"]) == ["1"]  # the entry's index
    errors = response.json()["characteristics"]["1"]
    assert list(errors) == ["pages"] and PAGES_NEED_A_SOURCE in errors["pages"][0]
    assert not FruitCharacteristic.objects.filter(fruit=fruit).exists()


def test_a_note_needs_no_source_and_pages_with_one_are_kept(
    curator_client, fruit_factory, characteristic_factory
):
    characteristic_factory("t_size")
    fruit = fruit_factory(name="Elstar")
    publication = PublicationFactory(title="Lucas")
    publication_link_fruit(publication=publication, fruit=fruit)
    response = patch_characteristics(
        curator_client,
        fruit,
        [
            {
                "code": "t_size",
                "values": [5],
                "source_publication": publication.pk,
                "pages": "12",
                "note": "in good years",
            }
        ],
    )
    assert response.status_code == 200, response.json()
    (entry,) = response.json()["characteristics"]
    assert entry["source"]["pages"] == "12" and entry["note"] == "in good years"
    response = patch_characteristics(
        curator_client, fruit, [{"code": "t_size", "values": [5], "note": "in good years"}]
    )
    assert response.status_code == 200, response.json()
