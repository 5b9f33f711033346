"""Requests Django refuses before any view sees them (too many parameters, a host the service
does not serve, a body over Django's limit) are answered in the path's language: JSON in DRF's
shape under /api/, the site's 400 page elsewhere, each saying what was wrong."""

from urllib.parse import urlencode

import pytest
from django.test import Client

from catalog.models import Fruit

pytestmark = pytest.mark.django_db

TOO_MANY = urlencode({f"p{number}": "1" for number in range(1001)})
TOO_MANY_MESSAGE = (
    "The request has more than 1,000 parameters (query parameters and form fields together)."
)
HOST_MESSAGE = "The Host header names no host this service answers for."


def assert_api_error(response, status: int, detail: str):
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": detail}


def assert_page(response, status: int, message: str):
    assert response.status_code == status
    assert response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    assert "<h1>Bad request</h1>" in html
    assert message in html
    assert "null character" not in html


@pytest.mark.parametrize("path", ["/api/v1/fruits", "/api/v1/nothing-here", "/api/v1"])
def test_too_many_query_parameters_under_the_api_are_a_json_400(anon_client, path):
    assert_api_error(anon_client.get(f"{path}?{TOO_MANY}"), 400, TOO_MANY_MESSAGE)


def test_too_many_form_fields_under_the_api_are_a_json_400(anon_client, curator_client, fruit):
    token = anon_client.generic(
        "POST", "/api/v1/auth/token", TOO_MANY, content_type="application/x-www-form-urlencoded"
    )
    upload = curator_client.post(
        f"/api/v1/fruits/{fruit.pk}/images",
        {f"p{number}": "1" for number in range(1001)},
        format="multipart",
    )

    assert_api_error(token, 400, TOO_MANY_MESSAGE)
    assert_api_error(upload, 400, TOO_MANY_MESSAGE)


def test_a_host_the_service_does_not_serve_is_a_json_400_under_the_api(anon_client):
    response = anon_client.get("/api/v1/fruits", HTTP_HOST="evil.example")

    assert_api_error(response, 400, HOST_MESSAGE)
    assert "ALLOWED_HOSTS" not in response.content.decode()


def test_a_body_over_djangos_limit_under_the_api_is_a_json_413(curator_client, fruit, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100

    response = curator_client.post(
        f"/api/v1/fruits/{fruit.pk}/images", {"alt_text": "x" * 300}, format="multipart"
    )

    assert_api_error(response, 413, "The request body is larger than the limit of 100 bytes.")


def test_the_site_answers_its_400_page_saying_what_was_wrong(admin_user, fruit, settings):
    browser = Client(HTTP_ACCEPT="text/html")

    assert_page(browser.get(f"/?{TOO_MANY}"), 400, TOO_MANY_MESSAGE)
    assert_page(browser.get("/", HTTP_HOST="evil.example"), 400, HOST_MESSAGE)
    login = browser.generic(
        "POST", "/admin/login/", TOO_MANY, content_type="application/x-www-form-urlencoded"
    )
    assert_page(login, 400, TOO_MANY_MESSAGE)

    browser.force_login(admin_user)
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    change = browser.generic(
        "POST",
        f"/admin/catalog/fruit/{fruit.pk}/change/",
        urlencode({"name": "x" * 300}),
        content_type="application/x-www-form-urlencoded",
    )
    assert_page(change, 413, "The request body is larger than the limit of 100 bytes.")


def test_a_null_character_keeps_its_own_answers(anon_client):
    assert_api_error(
        anon_client.get("/api/v1/fruits?q=%00"), 400, "Null characters are not allowed."
    )
    page = Client().get("/?q=%00", HTTP_ACCEPT="text/html")
    assert page.status_code == 400 and "null character" in page.content.decode()


@pytest.fixture
def fruit(fruit_factory):
    return fruit_factory()


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        # A field's string is that field's error; a key no database stores, the body's.
        (b'{"name": "Jona\\u0000gold"}', "name"),
        (b'{"name": "\\ud800"}', "name"),
        (b'{"names": [{"name": "\\udfff"}]}', "names"),
        (b'{"\\udfff": "x"}', "detail"),
    ],
)
def test_json_strings_no_database_stores_are_a_400(curator_client, raw, error):
    response = curator_client.post("/api/v1/fruits", raw, content_type="application/json")

    assert response.status_code == 400
    assert list(response.json()) == [error]
    assert "null character or a lone surrogate" in str(response.json()[error])
    assert not Fruit.objects.exists()
