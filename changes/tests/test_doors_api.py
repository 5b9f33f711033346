"""Every write through the API is one entry per object it changes, with the right kind and
action: fruits, their images, values and citations; publications, their covers, links, PDFs
and images; characteristics."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from catalog.services import fruit_create
from core.testing.media import make_image_bytes, make_object_png, make_pdf_bytes
from identification.models import Characteristic
from identification.tests.helpers import describe
from publications.services import publication_link_fruit
from publications.tests.factories import PublicationFactory

pytestmark = pytest.mark.django_db

FRUITS = "/api/v1/fruits"
PUBLICATIONS = "/api/v1/publications"
CHARACTERISTICS = "/api/v1/characteristics"


def multipart_file(data: bytes, name: str):
    return SimpleUploadedFile(name, data, content_type="application/octet-stream")


# --- fruits ----------------------------------------------------------------------------------


def test_creating_a_fruit_with_names_relations_and_values_is_one_created_entry(
    feed, curator_client
):
    mother = fruit_create(name="Cox Orange", type="apple")
    start = feed.mark()

    response = curator_client.post(
        FRUITS,
        {
            "name": "Elstar",
            "type": "apple",
            "names": [{"name": "Elshof"}],
            "relations": [{"kind": "mother", "fruit_id": mother.pk}],
            "characteristics": [{"code": "fruit_size", "values": [5]}],
        },
        format="json",
    )

    assert response.status_code == 201, response.content
    assert feed.entries(after=start) == [("fruit", response.json()["id"], "created")]


def test_changing_a_fruits_fields_names_and_values_at_once_is_one_changed_entry(
    feed, curator_client
):
    fruit = fruit_create(name="Boskop", type="apple")
    start = feed.mark()

    response = curator_client.patch(
        f"{FRUITS}/{fruit.pk}",
        {
            "name": "Boskoop",
            "synonyms": ["Belle de Boskoop"],
            "characteristics": [{"code": "fruit_size", "values": [7]}],
        },
        format="json",
    )

    assert response.status_code == 200, response.content
    assert feed.entries(after=start) == [("fruit", fruit.pk, "changed")]


def test_changing_only_a_fruits_values_is_a_changed_entry(feed, curator_client):
    fruit = fruit_create(name="Topaz", type="apple")
    start = feed.mark()

    response = curator_client.put(
        f"{FRUITS}/{fruit.pk}",
        {
            "name": "Topaz",
            "type": "apple",
            "characteristics": [{"code": "fruit_size", "values": [3]}],
        },
        format="json",
    )

    assert response.status_code == 200, response.content
    assert feed.entries(after=start) == [("fruit", fruit.pk, "changed")]


def test_deleting_a_fruit_is_a_deleted_entry(feed, curator_client, add_image):
    fruit = fruit_create(name="Topaz", type="apple")
    add_image(fruit)
    describe(fruit, {"fruit_size": [5]})
    start = feed.mark()

    assert curator_client.delete(f"{FRUITS}/{fruit.pk}").status_code == 204

    assert feed.entries(after=start) == [("fruit", fruit.pk, "deleted")]


def test_a_fruit_created_under_a_name_others_relations_give_changes_them_too(feed, curator_client):
    elstar = curator_client.post(
        FRUITS,
        {"name": "Elstar", "type": "apple", "relations": [{"kind": "mother", "name": "Golden"}]},
        format="json",
    ).json()
    start = feed.mark()

    golden = curator_client.post(FRUITS, {"name": "Golden", "type": "apple"}, format="json")

    assert golden.status_code == 201, golden.content
    relations = curator_client.get(f"{FRUITS}/{elstar['id']}").json()["relations"]
    assert relations[0]["fruit"]["id"] == golden.json()["id"]  # linked by its name
    assert sorted(feed.entries(after=start)) == sorted(
        [("fruit", elstar["id"], "changed"), ("fruit", golden.json()["id"], "created")]
    )


def test_deleting_a_fruit_others_relate_to_changes_them_too(feed, curator_client):
    golden = fruit_create(name="Golden", type="apple")
    elstar = curator_client.post(
        FRUITS,
        {
            "name": "Elstar",
            "type": "apple",
            "relations": [{"kind": "mother", "fruit_id": golden.pk}],
        },
        format="json",
    ).json()
    golden_id = golden.pk
    start = feed.mark()

    assert curator_client.delete(f"{FRUITS}/{golden_id}").status_code == 204

    # Elstar keeps its relation by Golden's name now: its detail changed.
    assert sorted(feed.entries(after=start)) == sorted(
        [("fruit", elstar["id"], "changed"), ("fruit", golden_id, "deleted")]
    )


def test_a_refused_write_leaves_no_entry(feed, curator_client):
    fruit = fruit_create(name="Topaz", type="apple", catalog_number=5)
    fruit_create(name="Elstar", type="apple", catalog_number=6)
    start = feed.mark()

    response = curator_client.patch(f"{FRUITS}/{fruit.pk}", {"catalog_number": 6}, format="json")

    assert response.status_code == 400
    assert feed.entries(after=start) == []


def test_an_image_uploaded_described_chosen_as_card_and_deleted_changes_its_fruit(
    feed, curator_client
):
    fruit = fruit_create(name="Topaz", type="apple")
    images = f"{FRUITS}/{fruit.pk}/images"

    start = feed.mark()
    upload = curator_client.post(
        images, {"image": multipart_file(make_object_png(), "topaz.png")}, format="multipart"
    )
    assert upload.status_code == 201, upload.content
    image_id = upload.json()["id"]
    assert feed.entries(after=start) == [("fruit", fruit.pk, "changed")]

    start = feed.mark()
    details = curator_client.patch(
        f"{images}/{image_id}", {"alt_text": "A Topaz, cut"}, format="json"
    )
    assert details.status_code == 200, details.content
    assert feed.entries(after=start) == [("fruit", fruit.pk, "changed")]

    start = feed.mark()
    card = curator_client.patch(f"{FRUITS}/{fruit.pk}", {"card_image_id": image_id}, format="json")
    assert card.status_code == 200, card.content
    assert feed.entries(after=start) == [("fruit", fruit.pk, "changed")]

    start = feed.mark()
    assert curator_client.delete(f"{images}/{image_id}").status_code == 204
    assert feed.entries(after=start) == [("fruit", fruit.pk, "changed")]


# --- publications ----------------------------------------------------------------------------


def test_a_publication_created_changed_and_deleted_is_an_entry_each(feed, curator_client):
    start = feed.mark()
    created = curator_client.post(
        PUBLICATIONS, {"title": "Deutschlands Obstsorten", "year": 1905}, format="json"
    )
    assert created.status_code == 201, created.content
    publication_id = created.json()["id"]
    feed.commit()
    changed = curator_client.patch(
        f"{PUBLICATIONS}/{publication_id}", {"authors": "Müller, Bißmann, Lucas"}, format="json"
    )
    assert changed.status_code == 200, changed.content
    feed.commit()
    assert curator_client.delete(f"{PUBLICATIONS}/{publication_id}").status_code == 204

    assert feed.entries(after=start) == [
        ("publication", publication_id, "created"),
        ("publication", publication_id, "changed"),
        ("publication", publication_id, "deleted"),
    ]


def test_a_cover_set_and_removed_changes_the_publication(feed, curator_client):
    publication = PublicationFactory()
    cover = f"{PUBLICATIONS}/{publication.pk}/cover"
    start = feed.mark()

    put = curator_client.put(
        cover, {"image": multipart_file(make_object_png(), "cover.png")}, format="multipart"
    )
    assert put.status_code == 200, put.content
    feed.commit()
    assert curator_client.delete(cover).status_code == 204

    assert feed.entries(after=start) == [
        ("publication", publication.pk, "changed"),
        ("publication", publication.pk, "changed"),
    ]


def test_a_citation_linked_changed_and_unlinked_changes_the_publication_and_the_fruit(
    feed, curator_client
):
    publication = PublicationFactory()
    fruit = fruit_create(name="Gravensteiner", type="apple")
    link = f"{PUBLICATIONS}/{publication.pk}/fruits/{fruit.pk}"
    both = [("publication", publication.pk, "changed"), ("fruit", fruit.pk, "changed")]

    start = feed.mark()
    assert curator_client.put(link, {"pages": "112"}, format="json").status_code == 201
    assert feed.entries(after=start) == both

    start = feed.mark()
    assert curator_client.patch(link, {"plate": "23"}, format="json").status_code == 200
    assert feed.entries(after=start) == both

    start = feed.mark()
    assert curator_client.delete(link).status_code == 204
    assert feed.entries(after=start) == both


def test_linking_a_fruit_again_without_a_citation_changes_nothing(feed, curator_client):
    publication = PublicationFactory()
    fruit = fruit_create(name="Gravensteiner", type="apple")
    publication_link_fruit(publication=publication, fruit=fruit)
    start = feed.mark()

    response = curator_client.put(f"{PUBLICATIONS}/{publication.pk}/fruits/{fruit.pk}")

    assert response.status_code == 200
    assert feed.entries(after=start) == []


def test_a_description_pdf_and_a_publication_image_change_the_publication_only(
    feed, curator_client
):
    publication = PublicationFactory()
    fruit = fruit_create(name="Gravensteiner", type="apple")
    publication_link_fruit(publication=publication, fruit=fruit)
    changed = [("publication", publication.pk, "changed")]

    start = feed.mark()
    pdf = curator_client.put(
        f"{PUBLICATIONS}/{publication.pk}/fruits/{fruit.pk}/description",
        {"file": multipart_file(make_pdf_bytes(), "gravensteiner.pdf")},
        format="multipart",
    )
    assert pdf.status_code == 200, pdf.content
    assert feed.entries(after=start) == changed

    images = f"{PUBLICATIONS}/{publication.pk}/fruit-images"
    start = feed.mark()
    plate = curator_client.post(
        images,
        {"fruit": fruit.pk, "image": multipart_file(make_image_bytes("JPEG"), "plate.jpg")},
        format="multipart",
    )
    assert plate.status_code == 201, plate.content
    assert feed.entries(after=start) == changed

    start = feed.mark()
    assert curator_client.delete(f"{images}/{plate.json()['id']}").status_code == 204
    assert feed.entries(after=start) == changed


def test_deleting_a_publication_changes_the_fruits_it_cited(feed, curator_client):
    publication = PublicationFactory()
    fruits = [fruit_create(name=name, type="apple") for name in ("Topaz", "Elstar")]
    for fruit in fruits:
        publication_link_fruit(publication=publication, fruit=fruit)
    start = feed.mark()

    assert curator_client.delete(f"{PUBLICATIONS}/{publication.pk}").status_code == 204

    assert feed.entries(after=start) == [
        ("publication", publication.pk, "deleted"),
        *sorted(("fruit", fruit.pk, "changed") for fruit in fruits),
    ]


# --- characteristics -------------------------------------------------------------------------


def test_a_characteristic_created_changed_and_deleted_is_an_entry_each(feed, curator_client):
    body = {
        "code": "t_size",
        "name": "Test: size",
        "fruit_types": ["apple"],
        "scale": "ordinal",
        "reliability": "high",
        "position": 5,
        "states": [{"value": 1, "label": "small"}, {"value": 9, "label": "large"}],
    }
    start = feed.mark()
    created = curator_client.post(CHARACTERISTICS, body, format="json")
    assert created.status_code == 201, created.content
    char_id = created.json()["id"]
    feed.commit()
    states = [{"value": 1, "label": "tiny"}, {"value": 9, "label": "large"}]
    relabelled = curator_client.patch(
        f"{CHARACTERISTICS}/{char_id}", {"states": states}, format="json"
    )
    assert relabelled.status_code == 200, relabelled.content
    feed.commit()
    assert curator_client.delete(f"{CHARACTERISTICS}/{char_id}").status_code == 204

    assert feed.entries(after=start) == [
        ("characteristic", char_id, "created"),
        ("characteristic", char_id, "changed"),
        ("characteristic", char_id, "deleted"),
    ]


def test_a_characteristic_deleted_or_narrowed_changes_the_fruits_that_lose_its_values(
    feed, curator_client
):
    apple = fruit_create(name="Topaz", type="apple")
    pear = fruit_create(name="Conference", type="pear")
    unrelated = fruit_create(name="Elstar", type="apple")
    describe(apple, {"fruit_size": [5]})
    describe(pear, {"fruit_size": [3]})
    characteristic = Characteristic.objects.get(code="fruit_size")

    start = feed.mark()
    narrowed = curator_client.patch(
        f"{CHARACTERISTICS}/{characteristic.pk}", {"fruit_types": ["apple"]}, format="json"
    )
    assert narrowed.status_code == 200, narrowed.content
    assert feed.entries(after=start) == [
        ("fruit", pear.pk, "changed"),
        ("characteristic", characteristic.pk, "changed"),
    ]

    start = feed.mark()
    assert curator_client.delete(f"{CHARACTERISTICS}/{characteristic.pk}").status_code == 204
    assert feed.entries(after=start) == [
        ("fruit", apple.pk, "changed"),
        ("characteristic", characteristic.pk, "deleted"),
    ]
    assert ("fruit", unrelated.pk, "changed") not in feed.entries()
