"""The browsable API titles every page by the resource it shows, never by a class of the code."""

import re

import pytest
from rest_framework.test import APIClient

from identification.models import Characteristic
from publications.models import Publication
from publications.services import publication_link_fruit

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser(curator):
    client = APIClient()
    client.force_login(curator)
    return client


def title(response) -> str:
    (heading,) = re.findall(r"<h1>(.*?)</h1>", response.content.decode(), re.S)
    return heading.strip()


def test_every_list_and_detail_page_is_titled_by_its_resource(browser, fruit_factory):
    fruit = fruit_factory(name="Boskoop")
    publication = Publication.objects.create(title="Deutschlands Obstsorten", year=1905)
    publication_link_fruit(publication=publication, fruit=fruit)
    characteristic = Characteristic.objects.first()
    titles = {
        "/api/v1": "Fruit Catalog API",
        "/api/v1/fruits": "Fruit List",
        f"/api/v1/fruits/{fruit.pk}": "Fruit Instance",
        f"/api/v1/fruits/{fruit.pk}/images": "Fruit Image List",
        "/api/v1/publications": "Publication List",
        f"/api/v1/publications/{publication.pk}": "Publication Instance",
        f"/api/v1/publications/{publication.pk}/fruits": "Publication Fruit List",
        f"/api/v1/publications/{publication.pk}/fruits/{fruit.pk}": "Publication Fruit Instance",
        f"/api/v1/publications/{publication.pk}/fruit-images": "Publication Fruit Image List",
        "/api/v1/characteristics": "Characteristic List",
        f"/api/v1/characteristics/{characteristic.pk}": "Characteristic Instance",
        "/api/v1/identify?type=apple": "Identify",
    }

    found = {path: title(browser.get(path, HTTP_ACCEPT="text/html")) for path in titles}

    assert found == titles


def test_options_name_the_resource_too(anon_client):
    assert anon_client.options("/api/v1/fruits").json()["name"] == "Fruit List"
