"""Writes racing a delete of what they write to: a clean 404 (or 409), never a 500, no resurrection.

Each race is reproduced deterministically: the row goes away (or a unique value is taken) right
after the view has checked the request, as a concurrent request committing at that moment would
make it. Two PostgreSQL tests run races for real on several connections. The same exceptions
raised where no race explains them are bugs: a 500, never dressed as a 404 or 409.
"""

import threading

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, connections, transaction
from rest_framework.test import APIClient

from catalog import services as catalog_services
from catalog import views as catalog_views
from catalog.models import Fruit, FruitImage
from catalog.views import FruitImageViewSet, FruitViewSet
from core.testing.media import make_object_png, make_pdf_bytes
from core.testing.races import deleting_after
from identification import views as identification_views
from identification.models import Characteristic
from identification.tests.factories import make_characteristic
from publications import views as publication_views
from publications.models import Publication, PublicationFruit, PublicationFruitImage
from publications.serializers import PublicationFruitImageUploadSerializer
from publications.services import publication_link_fruit

pytestmark = pytest.mark.django_db

CONCURRENT_CHANGE = {"detail": "The change conflicts with a concurrent change; try it again."}


def assert_not_found(response):
    assert response.status_code == 404, response.content
    assert response.json() == {"detail": "Not found."}


def test_an_update_racing_a_delete_does_not_bring_the_fruit_back(
    monkeypatch, curator_client, fruit_factory
):
    fruit = fruit_factory(name="Boskoop", synonyms=["Belle de Boskoop"])
    gone = lambda: Fruit.objects.filter(pk=fruit.pk).delete()  # noqa: E731
    deleting_after(monkeypatch, FruitViewSet, "get_object", gone)

    response = curator_client.patch(f"/api/v1/fruits/{fruit.pk}", {"name": "X"}, format="json")

    assert_not_found(response)
    assert not Fruit.objects.filter(pk=fruit.pk).exists()


def test_a_delete_racing_a_delete_is_a_404(monkeypatch, curator_client, fruit_factory):
    fruit = fruit_factory()
    gone = lambda: Fruit.objects.filter(pk=fruit.pk).delete()  # noqa: E731
    deleting_after(monkeypatch, FruitViewSet, "get_object", gone)

    assert_not_found(curator_client.delete(f"/api/v1/fruits/{fruit.pk}"))


def test_an_image_upload_racing_the_fruit_delete_is_a_404_and_stores_nothing(
    monkeypatch, curator_client, fruit_factory
):
    fruit = fruit_factory()
    gone = lambda: Fruit.objects.filter(pk=fruit.pk).delete()  # noqa: E731
    deleting_after(monkeypatch, FruitImageViewSet, "get_parent", gone)

    response = curator_client.post(
        f"/api/v1/fruits/{fruit.pk}/images", {"image": png_file()}, format="multipart"
    )

    assert_not_found(response)
    assert not FruitImage.objects.exists()


@pytest.fixture
def linked(fruit_factory):
    publication = Publication.objects.create(title="Pomona")
    fruit = fruit_factory(name="Kaiser")
    link, _ = publication_link_fruit(publication=publication, fruit=fruit)
    return publication, fruit, link


def test_a_cover_upload_racing_the_publication_delete_is_a_404(monkeypatch, curator_client, linked):
    publication, _, _ = linked
    gone = lambda: Publication.objects.filter(pk=publication.pk).delete()  # noqa: E731
    deleting_after(monkeypatch, publication_views.PublicationCoverViewSet, "get_publication", gone)

    response = curator_client.put(
        f"/api/v1/publications/{publication.pk}/cover", {"image": png_file()}, format="multipart"
    )

    assert_not_found(response)
    assert not Publication.objects.exists()


def test_a_publication_update_racing_its_delete_does_not_bring_it_back(
    monkeypatch, curator_client, linked
):
    publication, _, _ = linked
    gone = lambda: Publication.objects.filter(pk=publication.pk).delete()  # noqa: E731
    deleting_after(monkeypatch, publication_views.PublicationViewSet, "get_object", gone)

    response = curator_client.patch(
        f"/api/v1/publications/{publication.pk}", {"title": "Back?"}, format="json"
    )

    assert_not_found(response)
    assert not Publication.objects.exists()


def test_a_pdf_upload_racing_the_unlink_is_a_404(monkeypatch, curator_client, linked):
    publication, fruit, link = linked
    gone = lambda: PublicationFruit.objects.filter(pk=link.pk).delete()  # noqa: E731
    deleting_after(
        monkeypatch, publication_views.PublicationFruitDescriptionViewSet, "get_object", gone
    )

    response = curator_client.put(
        f"/api/v1/publications/{publication.pk}/fruits/{fruit.pk}/description",
        make_pdf_bytes(),
        content_type="application/pdf",
    )

    assert_not_found(response)
    assert not PublicationFruit.objects.exists()


def test_a_fruit_image_upload_racing_the_unlink_is_a_404(monkeypatch, curator_client, linked):
    publication, fruit, link = linked
    gone = lambda: PublicationFruit.objects.filter(pk=link.pk).delete()  # noqa: E731
    deleting_after(monkeypatch, PublicationFruitImageUploadSerializer, "validate_fruit", gone)

    response = curator_client.post(
        f"/api/v1/publications/{publication.pk}/fruit-images",
        {"fruit": fruit.pk, "image": png_file()},
        format="multipart",
    )

    assert_not_found(response)
    assert not PublicationFruitImage.objects.exists()


def test_a_link_racing_the_fruit_delete_is_a_404(monkeypatch, curator_client, fruit_factory):
    publication = Publication.objects.create(title="Pomona")
    fruit = fruit_factory()
    original = publication_views.publication_link_fruit

    def link_after_the_delete(**kwargs):
        Fruit.objects.filter(pk=fruit.pk).delete()
        return original(**kwargs)

    monkeypatch.setattr(publication_views, "publication_link_fruit", link_after_the_delete)

    response = curator_client.put(f"/api/v1/publications/{publication.pk}/fruits/{fruit.pk}")

    assert_not_found(response)
    assert not PublicationFruit.objects.exists()


def test_a_publication_delete_racing_a_delete_is_a_404(monkeypatch, curator_client, linked):
    publication, _, _ = linked
    gone = lambda: Publication.objects.filter(pk=publication.pk).delete()  # noqa: E731
    deleting_after(monkeypatch, publication_views.PublicationViewSet, "get_object", gone)

    assert_not_found(curator_client.delete(f"/api/v1/publications/{publication.pk}"))


def test_a_citation_change_racing_the_unlink_is_a_404(monkeypatch, curator_client, linked):
    publication, fruit, link = linked
    gone = lambda: PublicationFruit.objects.filter(pk=link.pk).delete()  # noqa: E731
    deleting_after(monkeypatch, publication_views.PublicationFruitViewSet, "get_object", gone)

    response = curator_client.patch(
        f"/api/v1/publications/{publication.pk}/fruits/{fruit.pk}", {"pages": "12"}, format="json"
    )

    assert_not_found(response)
    assert not PublicationFruit.objects.exists()


def test_image_details_racing_the_image_delete_are_a_404_and_store_nothing(
    monkeypatch, curator_client, fruit_factory, add_image
):
    fruit = fruit_factory()
    image = add_image(fruit)
    gone = lambda: FruitImage.objects.filter(pk=image.pk).delete()  # noqa: E731
    deleting_after(monkeypatch, FruitImageViewSet, "get_object", gone)

    response = curator_client.patch(
        f"/api/v1/fruits/{fruit.pk}/images/{image.pk}", {"alt_text": "Back?"}, format="json"
    )

    assert_not_found(response)
    assert not FruitImage.objects.exists()


def test_a_fruit_deleted_right_after_its_update_committed_is_a_404(
    monkeypatch, curator_client, fruit_factory
):
    fruit = fruit_factory(name="Cox")
    gone = lambda: Fruit.objects.filter(pk=fruit.pk).delete()  # noqa: E731
    deleting_after(monkeypatch, catalog_views, "fruit_update", gone)

    response = curator_client.patch(f"/api/v1/fruits/{fruit.pk}", {"name": "X"}, format="json")

    assert_not_found(response)
    assert not Fruit.objects.filter(pk=fruit.pk).exists()


def test_a_characteristic_update_racing_its_delete_does_not_bring_it_back(
    monkeypatch, curator_client
):
    characteristic = make_characteristic("t_racing")
    gone = lambda: Characteristic.objects.filter(pk=characteristic.pk).delete()  # noqa: E731
    deleting_after(monkeypatch, identification_views.CharacteristicViewSet, "get_object", gone)

    response = curator_client.patch(
        f"/api/v1/characteristics/{characteristic.pk}", {"name": "Back?"}, format="json"
    )

    assert_not_found(response)
    assert not Characteristic.objects.filter(code="t_racing").exists()


def test_a_characteristic_delete_racing_a_delete_is_a_404(monkeypatch, curator_client):
    characteristic = make_characteristic("t_racing")
    gone = lambda: Characteristic.objects.filter(pk=characteristic.pk).delete()  # noqa: E731
    deleting_after(monkeypatch, identification_views.CharacteristicViewSet, "get_object", gone)

    assert_not_found(curator_client.delete(f"/api/v1/characteristics/{characteristic.pk}"))


def new_characteristic(code: str) -> dict:
    return {
        "code": code,
        "name": "Racing",
        "fruit_types": ["apple"],
        "states": [{"value": 1, "label": "small"}, {"value": 9, "label": "large"}],
    }


def test_a_characteristic_whose_code_was_taken_meanwhile_is_a_409(monkeypatch, curator_client):
    original = identification_views.characteristic_save

    def save_after_another_took_the_code(**kwargs):
        make_characteristic("t_racing", name="The other")  # a concurrent create commits first
        return original(**kwargs)

    monkeypatch.setattr(
        identification_views, "characteristic_save", save_after_another_took_the_code
    )

    response = curator_client.post(
        "/api/v1/characteristics", new_characteristic("t_racing"), format="json"
    )

    assert response.status_code == 409, response.content
    assert response.json() == CONCURRENT_CHANGE
    assert Characteristic.objects.get(code="t_racing").name == "The other"


# --- the same exceptions from a bug -----------------------------------------------------------

SERVER_ERROR = {"detail": "A server error occurred."}


def failing(error: Exception):
    """A stand-in for a service with a bug that raises `error`."""

    def fail(**kwargs):
        raise error

    return fail


@pytest.mark.parametrize(
    "error",
    [
        IntegrityError("a bug's duplicate key value"),
        Publication.DoesNotExist("a bug's lookup of the wrong row"),
        FruitImage.DoesNotExist("a bug's lookup of the wrong row"),
    ],
    ids=["IntegrityError", "another model's DoesNotExist", "an image's DoesNotExist"],
)
def test_an_update_failing_with_an_error_no_race_explains_is_a_500(
    monkeypatch, caplog, curator_client, fruit_factory, error
):
    fruit = fruit_factory(name="Cox")
    monkeypatch.setattr(catalog_views, "fruit_update", failing(error))
    curator_client.raise_request_exception = False

    response = curator_client.patch(f"/api/v1/fruits/{fruit.pk}", {"name": "X"}, format="json")

    assert response.status_code == 500
    assert response.json() == SERVER_ERROR
    assert Fruit.objects.get(pk=fruit.pk).name == "Cox"
    logged = [r for r in caplog.records if r.name == "django.request" and r.exc_info]
    assert [r.exc_info[0] for r in logged] == [type(error)]  # with its traceback


def test_a_delete_failing_with_an_integrity_error_is_a_500_not_a_conflict(
    monkeypatch, curator_client, fruit_factory
):
    fruit = fruit_factory()
    monkeypatch.setattr(catalog_views, "fruit_delete", failing(IntegrityError("a bug")))
    curator_client.raise_request_exception = False

    response = curator_client.delete(f"/api/v1/fruits/{fruit.pk}")

    assert response.status_code == 500
    assert response.json() == SERVER_ERROR
    assert Fruit.objects.filter(pk=fruit.pk).exists()


def test_a_link_failing_with_a_does_not_exist_of_a_bug_is_a_500_not_a_404(
    monkeypatch, curator_client, fruit_factory
):
    publication = Publication.objects.create(title="Pomona")
    fruit = fruit_factory()
    bug = failing(PublicationFruit.DoesNotExist("a bug's lookup"))
    monkeypatch.setattr(publication_views, "publication_link_fruit", bug)
    curator_client.raise_request_exception = False

    response = curator_client.put(f"/api/v1/publications/{publication.pk}/fruits/{fruit.pk}")

    assert response.status_code == 500
    assert response.json() == SERVER_ERROR


def test_a_characteristic_refused_by_the_database_with_no_race_to_explain_it_is_a_500(
    monkeypatch, curator_client
):
    monkeypatch.setattr(
        identification_views, "characteristic_save", failing(IntegrityError("a bug"))
    )
    curator_client.raise_request_exception = False

    response = curator_client.post(
        "/api/v1/characteristics", new_characteristic("t_fresh"), format="json"
    )

    assert response.status_code == 500
    assert response.json() == SERVER_ERROR


def test_a_read_failing_with_a_does_not_exist_is_a_500_not_a_404(monkeypatch, anon_client):
    monkeypatch.setattr(identification_views, "identify", lambda params: Fruit.objects.get(pk=0))
    anon_client.raise_request_exception = False

    response = anon_client.get("/api/v1/identify?type=apple")

    assert response.status_code == 500
    assert response.json() == SERVER_ERROR


def png_file():
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile("fruit.png", make_object_png(), "image/png")


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_on_postgresql_an_update_waits_for_a_concurrent_delete_and_then_answers_404():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL's row locks across concurrent sessions")
    # A superuser: a transactional test must not rely on rows the data migrations made.
    curator = User.objects.create_superuser("racer", password="racer-pass-123")
    fruit = Fruit.objects.create(name="Cox", type="apple", catalog_number=1)
    deleting, release = threading.Event(), threading.Event()
    responses = []

    def delete_and_hold():
        try:
            with transaction.atomic():
                Fruit.objects.filter(pk=fruit.pk).delete()  # locks the row until commit
                deleting.set()
                release.wait(10)
        finally:
            connections.close_all()

    def patch():
        try:
            client = APIClient()
            client.force_authenticate(curator)
            responses.append(
                client.patch(f"/api/v1/fruits/{fruit.pk}", {"name": "Back?"}, format="json")
            )
        finally:
            connections.close_all()

    deleter = threading.Thread(target=delete_and_hold)
    deleter.start()
    assert deleting.wait(10)
    patcher = threading.Thread(target=patch)
    patcher.start()
    patcher.join(0.5)  # the PATCH loaded the fruit and now waits for the row lock
    release.set()
    deleter.join(10)
    patcher.join(10)

    assert [r.status_code for r in responses] == [404]
    assert not Fruit.objects.filter(pk=fruit.pk).exists()


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_on_postgresql_two_creates_of_one_code_at_once_store_one_and_answer_409(monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL's concurrent sessions")
    curator = User.objects.create_superuser("racer", password="racer-pass-123")
    original = identification_views.characteristic_save
    both_checked = threading.Barrier(2, timeout=10)
    responses = []

    def save_once_both_checked(**kwargs):
        both_checked.wait()  # each passed the serializer's unique check before either stores
        return original(**kwargs)

    def create(name):
        try:
            client = APIClient()
            client.force_authenticate(curator)
            body = {**new_characteristic("t_together"), "name": name}
            responses.append(client.post("/api/v1/characteristics", body, format="json"))
        finally:
            connections.close_all()

    monkeypatch.setattr(identification_views, "characteristic_save", save_once_both_checked)
    creators = [threading.Thread(target=create, args=(name,)) for name in ("A", "B")]
    for creator in creators:
        creator.start()
    for creator in creators:
        creator.join(20)

    assert sorted(r.status_code for r in responses) == [201, 409]
    conflict = next(r for r in responses if r.status_code == 409)
    assert conflict.json() == CONCURRENT_CHANGE
    stored = Characteristic.objects.get(code="t_together")
    assert stored.name == next(r for r in responses if r.status_code == 201).json()["name"]


def test_a_fruit_write_refused_by_the_database_for_another_reason_is_a_500_not_a_taken_number(
    monkeypatch, curator_client, fruit_factory
):
    fruit = fruit_factory(name="Cox", catalog_number=7)
    monkeypatch.setattr(catalog_services, "fruit_set_relations", failing(IntegrityError("a bug")))
    curator_client.raise_request_exception = False

    response = curator_client.patch(
        f"/api/v1/fruits/{fruit.pk}", {"name": "X", "relations": []}, format="json"
    )

    assert response.status_code == 500
    assert response.json() == SERVER_ERROR
    assert Fruit.objects.get(pk=fruit.pk).name == "Cox"
