"""The browsable API renders every JSON endpoint for a logged-in curator."""

import pytest
from rest_framework.test import APIClient

from publications.models import Publication
from publications.services import publication_link_fruit

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser(curator):
    client = APIClient()
    client.force_login(curator)
    return client


def test_every_json_endpoint_renders_as_html_with_its_forms(browser, fruit_factory, add_image):
    fruit = fruit_factory(name="Boskoop")
    add_image(fruit)
    publication = Publication.objects.create(title="Deutschlands Obstsorten", year=1905)
    publication_link_fruit(publication=publication, fruit=fruit)
    paths = [
        "/api/v1/fruits",
        f"/api/v1/fruits/{fruit.pk}",
        f"/api/v1/fruits/{fruit.pk}/images",
        "/api/v1/publications",
        f"/api/v1/publications/{publication.pk}",
        f"/api/v1/publications/{publication.pk}/fruits",
        f"/api/v1/publications/{publication.pk}/fruit-images",
    ]
    for path in paths:
        response = browser.get(path, HTTP_ACCEPT="text/html")
        assert response.status_code == 200, path
        assert response["Content-Type"].startswith("text/html"), path
        assert b"curator" in response.content, path  # the logged-in user's menu


def test_image_lists_offer_an_upload_form(browser, fruit_factory):
    fruit = fruit_factory()
    publication = Publication.objects.create(title="Pomona")
    publication_link_fruit(publication=publication, fruit=fruit)
    for path in (
        f"/api/v1/fruits/{fruit.pk}/images",
        f"/api/v1/publications/{publication.pk}/fruit-images",
    ):
        html = browser.get(path, HTTP_ACCEPT="text/html").content.decode()
        assert 'type="file"' in html and 'name="image"' in html, path
