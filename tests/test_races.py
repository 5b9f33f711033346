"""Writes racing a delete of what they write to: a clean 404 (or 409), never a 500, no resurrection.

Each race is reproduced deterministically: the row goes away right after the view has loaded it,
as a concurrent DELETE committing at that moment would make it. One PostgreSQL test runs the
race for real on two connections.
"""

import threading

import pytest
from django.contrib.auth.models import User
from django.db import connection, connections, transaction
from rest_framework.test import APIClient

from catalog.models import Fruit, FruitImage
from catalog.views import FruitImageViewSet, FruitViewSet
from core.testing.media import make_object_png, make_pdf_bytes
from core.testing.races import deleting_after
from publications import views as publication_views
from publications.models import Publication, PublicationFruit, PublicationFruitImage
from publications.serializers import PublicationFruitImageUploadSerializer
from publications.services import publication_link_fruit

pytestmark = pytest.mark.django_db


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
