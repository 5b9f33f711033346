"""The API's root lists its resources with absolute URLs, as JSON and in the browsable API."""

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

RESOURCES = {
    "fruits": "http://testserver/api/v1/fruits",
    "publications": "http://testserver/api/v1/publications",
    "characteristics": "http://testserver/api/v1/characteristics",
}


@pytest.mark.parametrize("path", ["/api/v1", "/api/v1/"])
def test_the_root_lists_every_resource_with_its_absolute_url(anon_client, path):
    response = anon_client.get(path)

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == RESOURCES


def test_every_url_the_root_lists_answers(anon_client):
    for url in anon_client.get("/api/v1").json().values():
        response = anon_client.get(url)
        assert response.status_code == 200, url
        assert "results" in response.json(), url


def test_the_root_is_browsable_and_links_its_resources(curator):
    browser = APIClient()
    browser.force_login(curator)

    response = browser.get("/api/v1", HTTP_ACCEPT="text/html")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    assert "<h1>Fruit Catalog API</h1>" in html
    for url in RESOURCES.values():
        assert f'href="{url}"' in html


def test_the_root_is_in_the_schema(anon_client):
    schema = anon_client.get("/api/v1/schema", QUERY_STRING="format=json").json()

    root = schema["paths"]["/api/v1"]["get"]
    body = root["responses"]["200"]["content"]["application/json"]["schema"]
    assert body["type"] == "object"
    assert body["additionalProperties"] == {"type": "string", "format": "uri"}
    assert "security" not in root or {} in root["security"]  # a public read
