"""Every save and delete in the admin, inlines included, is one entry per object it changes."""

import pytest
from django.urls import reverse

from catalog.models import Fruit, FruitImage
from catalog.services import fruit_create
from catalog.tests.test_admin import FRUIT_ADD, fruit_change_url, fruit_form_data
from core.testing.admin_pages import form_errors, management_form, pdf_upload, png_upload
from core.testing.media import make_image_bytes, make_object_png
from identification.models import Characteristic
from identification.tests.test_admin import characteristic_form_data, states_form
from publications.models import Publication, PublicationFruitImage
from publications.services import publication_link_fruit
from publications.tests.factories import PublicationFactory
from publications.tests.test_admin import (
    PUBLICATION_ADD,
    link_form_data,
    link_url,
    publication_form_data,
    publication_url,
)

pytestmark = pytest.mark.django_db


def delete_page(model, obj) -> str:
    meta = model._meta
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_delete", args=[obj.pk])


def delete_selected(admin_client, model, objects):
    meta = model._meta
    return admin_client.post(
        reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist"),
        {
            "action": "delete_selected",
            "_selected_action": [obj.pk for obj in objects],
            "post": "yes",
        },
    )


def add_image(fruit, data=None):
    return FruitImage.objects.create(fruit=fruit, data=data or make_object_png())


# --- fruits ----------------------------------------------------------------------------------


def test_a_fruit_added_with_its_names_and_first_image_is_one_created_entry(feed, admin_client):
    start = feed.mark()

    response = admin_client.post(
        FRUIT_ADD,
        fruit_form_data(name="Gravensteiner", names=[("Grafensteiner", 0)], uploads=[png_upload()]),
    )

    assert response.status_code == 302, form_errors(response)
    fruit = Fruit.objects.get(name="Gravensteiner")
    assert feed.entries(after=start) == [("fruit", fruit.pk, "created")]


def test_a_fruit_page_saved_with_an_upload_a_deleted_image_and_a_card_is_one_changed_entry(
    feed, admin_client
):
    fruit = fruit_create(name="Topaz", type="apple", catalog_number=9)
    keep, drop = add_image(fruit), add_image(fruit, make_image_bytes("GIF"))
    start = feed.mark()

    response = admin_client.post(
        fruit_change_url(fruit),
        fruit_form_data(
            name="Topaz",
            catalog_number=9,
            existing_images=[(keep, False), (drop, True)],
            uploads=[png_upload(make_image_bytes("JPEG", size=(50, 40)))],
            card_rows=[0],
        ),
    )

    assert response.status_code == 302, form_errors(response)
    assert feed.entries(after=start) == [("fruit", fruit.pk, "changed")]


def test_fruits_deleted_on_their_page_or_as_a_selection_are_deleted_entries(feed, admin_client):
    first, second, third = (fruit_create(name=n, type="apple") for n in ("A", "B", "C"))
    start = feed.mark()

    response = admin_client.post(delete_page(Fruit, first), {"post": "yes"})
    assert response.status_code == 302
    feed.commit()
    response = delete_selected(admin_client, Fruit, [second, third])
    assert response.status_code == 302

    assert feed.entries(after=start) == [
        ("fruit", first.pk, "deleted"),
        ("fruit", second.pk, "deleted"),
        ("fruit", third.pk, "deleted"),
    ]


def test_images_deleted_in_the_image_admin_change_their_fruits_once_each(feed, admin_client):
    topaz, elstar = (
        fruit_create(name="Topaz", type="apple"),
        fruit_create(name="Elstar", type="apple"),
    )
    alone = add_image(topaz)
    several = [
        add_image(elstar),
        add_image(elstar, make_image_bytes("GIF")),
        add_image(topaz, make_image_bytes("GIF")),
    ]
    start = feed.mark()

    assert admin_client.post(delete_page(FruitImage, alone), {"post": "yes"}).status_code == 302
    feed.commit()
    assert delete_selected(admin_client, FruitImage, several).status_code == 302

    assert not FruitImage.objects.exists()
    assert feed.entries(after=start) == [
        ("fruit", topaz.pk, "changed"),
        ("fruit", elstar.pk, "changed"),
        ("fruit", topaz.pk, "changed"),
    ]


def test_relations_linked_by_the_admin_action_change_the_fruits_holding_them(
    feed, admin_client, curator_client
):
    fruit_create(name="Golden Delicious", type="apple")
    # Given by name while its variety was already catalogued: nothing links it yet.
    elstar = curator_client.post(
        "/api/v1/fruits",
        {
            "name": "Elstar",
            "type": "apple",
            "relations": [{"kind": "mother", "name": "golden delicious"}],
        },
        format="json",
    ).json()
    start = feed.mark()

    response = admin_client.post(
        reverse("admin:catalog_fruit_changelist"),
        {"action": "link_relations_by_name", "_selected_action": [elstar["id"]]},
    )

    assert response.status_code == 302
    assert feed.entries(after=start) == [("fruit", elstar["id"], "changed")]


# --- publications ----------------------------------------------------------------------------


def test_a_publication_added_with_a_cover_is_one_created_entry(feed, admin_client):
    start = feed.mark()

    response = admin_client.post(PUBLICATION_ADD, publication_form_data(cover=png_upload()))

    assert response.status_code == 302, form_errors(response)
    publication = Publication.objects.get()
    assert feed.entries(after=start) == [("publication", publication.pk, "created")]


def test_links_added_and_removed_on_the_publication_page_change_it_and_their_fruits(
    feed, admin_client
):
    publication = PublicationFactory(title="Pomona")
    kept, removed, added, untouched = (
        fruit_create(name=n, type="apple") for n in ("Kept", "Removed", "Added", "Untouched")
    )
    kept_link, _ = publication_link_fruit(publication=publication, fruit=kept)
    removed_link, _ = publication_link_fruit(publication=publication, fruit=removed)
    start = feed.mark()

    response = admin_client.post(
        publication_url(publication),
        publication_form_data(
            title="Pomona",
            links=[
                (kept_link, kept.pk, pdf_upload(), False),
                (removed_link, removed.pk, None, True),
            ],
            new_links=[(added.pk, None)],
        ),
    )

    assert response.status_code == 302, form_errors(response)
    # A PDF is the publication's; a link made or removed is the fruit's citation too.
    assert feed.entries(after=start) == [
        ("publication", publication.pk, "changed"),
        ("fruit", removed.pk, "changed"),
        ("fruit", added.pk, "changed"),
    ]
    assert ("fruit", untouched.pk, "changed") not in feed.entries()


def test_a_link_page_citing_anew_and_adding_and_deleting_images_changes_both_once(
    feed, admin_client
):
    publication = PublicationFactory(title="Pomona")
    fruit = fruit_create(name="Boskoop", type="apple")
    link, _ = publication_link_fruit(publication=publication, fruit=fruit)
    old = PublicationFruitImage.objects.create(link=link, data=make_object_png())
    start = feed.mark()

    response = admin_client.post(
        link_url(link),
        {
            "pages": "112",
            **link_form_data(images=[(old, True)], uploads=[png_upload(make_image_bytes("JPEG"))]),
        },
    )

    assert response.status_code == 302, form_errors(response)
    assert feed.entries(after=start) == [
        ("publication", publication.pk, "changed"),
        ("fruit", fruit.pk, "changed"),
    ]

    start = feed.mark()
    (new,) = PublicationFruitImage.objects.all()
    response = admin_client.post(
        link_url(link), {"pages": "112", **link_form_data(images=[(new, True)])}
    )
    assert response.status_code == 302, form_errors(response)
    assert feed.entries(after=start) == [("publication", publication.pk, "changed")]


def test_a_publication_image_deleted_in_its_admin_changes_the_publication(feed, admin_client):
    publication = PublicationFactory(title="Pomona")
    link, _ = publication_link_fruit(
        publication=publication, fruit=fruit_create(name="Boskoop", type="apple")
    )
    image = PublicationFruitImage.objects.create(link=link, data=make_object_png())
    start = feed.mark()

    response = admin_client.post(delete_page(PublicationFruitImage, image), {"post": "yes"})

    assert response.status_code == 302
    assert feed.entries(after=start) == [("publication", publication.pk, "changed")]


def test_a_publication_deleted_in_the_admin_is_deleted_and_changes_its_fruits(feed, admin_client):
    publication = PublicationFactory(title="Pomona")
    fruit = fruit_create(name="Boskoop", type="apple")
    publication_link_fruit(publication=publication, fruit=fruit)
    start = feed.mark()

    response = admin_client.post(delete_page(Publication, publication), {"post": "yes"})

    assert response.status_code == 302
    assert feed.entries(after=start) == [
        ("publication", publication.pk, "deleted"),
        ("fruit", fruit.pk, "changed"),
    ]


# --- characteristics -------------------------------------------------------------------------


def test_a_characteristic_added_changed_and_deleted_in_the_admin_is_an_entry_each(
    feed, admin_client
):
    states = [{"value": 1, "label": "globose"}, {"value": 2, "label": "conical"}]
    start = feed.mark()
    response = admin_client.post(
        reverse("admin:identification_characteristic_add"),
        characteristic_form_data() | states_form(states),
    )
    assert response.status_code == 302, form_errors(response)
    characteristic = Characteristic.objects.get(code="t_shape")
    feed.commit()

    stored = [
        {"id": state.pk, "value": state.value, "label": state.label}
        for state in characteristic.states.order_by("value")
    ]
    stored[1]["label"] = "conic"
    data = characteristic_form_data() | management_form("states", total=2, initial=2)
    for index, state in enumerate(stored):
        for key, value in state.items():
            data[f"states-{index}-{key}"] = value
        data[f"states-{index}-characteristic"] = characteristic.pk
    change = reverse("admin:identification_characteristic_change", args=[characteristic.pk])
    response = admin_client.post(change, data)
    assert response.status_code == 302, form_errors(response)
    feed.commit()

    response = admin_client.post(delete_page(Characteristic, characteristic), {"post": "yes"})
    assert response.status_code == 302

    assert feed.entries(after=start) == [
        ("characteristic", characteristic.pk, "created"),
        ("characteristic", characteristic.pk, "changed"),
        ("characteristic", characteristic.pk, "deleted"),
    ]
