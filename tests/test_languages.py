"""English and German: which language each request gets, and what its answer says of it.

Public pages by their path (`/de/...` German, the rest English, whatever the browser asks), the
API by `?lang` or Accept-Language, the admin by the cookie or Accept-Language.
"""

import re

import pytest

from catalog.models import FruitName
from catalog.tests.factories import FruitFactory

pytestmark = pytest.mark.django_db


def vary(response) -> set[str]:
    return {item.strip().lower() for item in response.get("Vary", "").split(",") if item.strip()}


@pytest.mark.parametrize("accept", ["de", "de-DE,de;q=0.9,en;q=0.8", "en"])
def test_an_unprefixed_page_is_english_whatever_the_browser_asks(client, accept):
    response = client.get("/", HTTP_ACCEPT_LANGUAGE=accept)

    assert response.status_code == 200
    assert response["Content-Language"] == "en"
    assert "accept-language" not in vary(response)  # one answer per URL for every cache
    assert '<html lang="en">' in response.content.decode()


@pytest.mark.parametrize("accept", ["en", "de", ""])
def test_the_de_prefix_is_german_whatever_the_browser_asks(client, accept):
    fruit = FruitFactory()
    for path in ["/de/", f"/de/fruits/{fruit.pk}/", "/de/identify/", "/de/publications/"]:
        response = client.get(path, HTTP_ACCEPT_LANGUAGE=accept)

        assert response.status_code == 200, path
        assert response["Content-Language"] == "de", path
        assert "accept-language" not in vary(response), path
        assert '<html lang="de">' in response.content.decode(), path


def test_accept_language_alone_never_redirects(client):
    assert client.get("/", HTTP_ACCEPT_LANGUAGE="de").status_code == 200
    assert client.get("/de/", HTTP_ACCEPT_LANGUAGE="en").status_code == 200


def test_the_root_sends_a_visitor_who_chose_german_to_de_by_a_private_redirect(client):
    client.cookies["django_language"] = "de"

    response = client.get("/?search=boskoop")

    assert response.status_code == 302
    assert response["Location"] == "/de/?search=boskoop"
    assert "private" in response["Cache-Control"]
    assert "cookie" in vary(response)
    # Only the root: other English URLs, and German ones, are what they say.
    assert client.get("/publications/").status_code == 200
    client.cookies["django_language"] = "en"
    assert client.get("/de/").status_code == 200
    assert client.get("/").status_code == 200


def test_the_root_says_it_varies_by_cookie_and_nothing_else(client):
    response = client.get("/")

    assert vary(response) == {"cookie"}


def test_an_unknown_german_path_is_the_german_404_page(client):
    response = client.get("/de/no/such/page")

    assert response.status_code == 404
    assert response["Content-Language"] == "de"
    assert "Seite nicht gefunden" in response.content.decode()


@pytest.mark.parametrize(
    ("query", "headers", "language"),
    [
        ("", {}, "en"),
        ("", {"HTTP_ACCEPT_LANGUAGE": "de"}, "de"),
        ("", {"HTTP_ACCEPT_LANGUAGE": "fr-CH, fr;q=0.9, de;q=0.8, en;q=0.7"}, "de"),
        ("", {"HTTP_ACCEPT_LANGUAGE": "de-AT"}, "de"),
        ("", {"HTTP_ACCEPT_LANGUAGE": "fr"}, "en"),
        ("?lang=de", {}, "de"),
        ("?lang=DE", {"HTTP_ACCEPT_LANGUAGE": "en"}, "de"),
        ("?lang=en", {"HTTP_ACCEPT_LANGUAGE": "de"}, "en"),
        ("?lang=", {"HTTP_ACCEPT_LANGUAGE": "de"}, "de"),
    ],
)
def test_the_api_speaks_what_lang_or_accept_language_ask(client, query, headers, language):
    response = client.get(f"/api/v1/fruits{query}", **headers)

    assert response.status_code == 200
    assert response["Content-Language"] == language
    assert "accept-language" in vary(response)


def test_the_api_ignores_the_language_cookie(client):
    client.cookies["django_language"] = "de"

    assert client.get("/api/v1/fruits")["Content-Language"] == "en"


def test_the_apis_errors_are_in_the_asked_language_with_the_same_shape(client):
    english = client.get("/api/v1/fruits/999999")
    german = client.get("/api/v1/fruits/999999", HTTP_ACCEPT_LANGUAGE="de")

    assert english.status_code == german.status_code == 404
    assert english.json() == {"detail": "Not found."}
    assert german.json() == {"detail": "Nicht gefunden."}


def test_a_language_the_api_does_not_speak_is_a_400(client):
    response = client.get("/api/v1/fruits?lang=fr")

    assert response.status_code == 400
    assert response["Content-Language"] == "en"
    assert response.json() == {"lang": ["Choose one of the languages en, de."]}


def test_bytes_say_no_language(client, fruit_factory, add_image):
    image = add_image(fruit_factory())

    response = client.get(image.get_thumbnail_url(), HTTP_ACCEPT_LANGUAGE="de")

    assert response.status_code == 200
    assert "Content-Language" not in response
    assert "accept-language" not in vary(response)


@pytest.mark.parametrize(
    ("headers", "cookie", "title"),
    [
        ({}, None, "Log in"),
        ({"HTTP_ACCEPT_LANGUAGE": "de"}, None, "Anmelden"),
        ({}, "de", "Anmelden"),
        ({"HTTP_ACCEPT_LANGUAGE": "de"}, "en", "Log in"),
    ],
)
def test_the_admin_speaks_the_chosen_or_the_browsers_language(client, headers, cookie, title):
    if cookie:
        client.cookies["django_language"] = cookie

    response = client.get("/admin/login/", **headers)

    assert f"<title>{title} |" in response.content.decode()
    assert {"accept-language", "cookie"} <= vary(response)


def alternates(html: str) -> dict[str, str]:
    return dict(re.findall(r'<link rel="alternate" hreflang="([^"]+)" href="([^"]+)">', html))


def test_every_page_names_itself_in_both_languages_and_links_the_other(client):
    fruit = FruitFactory(name="Belle de Boskoop")
    FruitName.objects.create(
        fruit=fruit, name="Schöner aus Boskoop", kind="translation", language="de"
    )
    expected = {
        "en": f"http://testserver/fruits/{fruit.pk}/?x=1",
        "de": f"http://testserver/de/fruits/{fruit.pk}/?x=1",
        "x-default": f"http://testserver/fruits/{fruit.pk}/?x=1",
    }
    english = client.get(f"/fruits/{fruit.pk}/?x=1").content.decode()
    german = client.get(f"/de/fruits/{fruit.pk}/?x=1").content.decode()

    assert alternates(english) == alternates(german) == expected
    switch = '<a href="{}" hreflang="{}" lang="{}" data-language="{}">{}</a>'
    assert switch.format(f"/de/fruits/{fruit.pk}/?x=1", "de", "de", "de", "Deutsch") in english
    assert switch.format(f"/fruits/{fruit.pk}/?x=1", "en", "en", "en", "English") in german
    # The German name is marked German on the English page.
    assert '<span lang="de">Schöner aus Boskoop</span>' in english
    # Links stay in the page's language.
    assert 'href="/de/identify/"' in german and 'href="/de/publications/"' in german


def test_a_missing_page_names_no_alternates_and_links_the_other_languages_catalog(client):
    english = client.get("/no/such/page").content.decode()
    german = client.get("/de/no/such/page").content.decode()

    assert alternates(english) == alternates(german) == {}
    assert '<a href="/de/" hreflang="de"' in english
    assert '<a href="/" hreflang="en"' in german


def test_the_language_switch_never_links_another_host(client):
    page = client.get("/", PATH_INFO="//evil.example/fruits/1/")
    assert page.status_code == 404
    assert "evil.example" not in page.content.decode()
    assert '<a href="/de/" hreflang="de"' in page.content.decode()


def test_the_switch_keeps_the_query(client):
    page = client.get("/", {"q": "boskoop"}).content.decode()
    assert '<a href="/de/?q=boskoop" hreflang="de"' in page


def test_a_refusal_before_the_language_is_chosen_is_in_the_default_one(client):
    client.get("/de/")  # leaves German active in this thread
    query = "&".join(f"f{n}=1" for n in range(1001))
    refused = client.get(f"/api/v1/fruits?{query}", HTTP_ACCEPT_LANGUAGE="en")
    assert refused.status_code == 400
    assert "Die" not in refused.content.decode()
    assert refused["Content-Language"] == "en"


def test_a_replayed_answer_says_the_language_it_was_given_in(curator_client):
    body = b"catalog_number,name,type\n1,Topaz,apple\n"
    headers = {"content_type": "text/csv", "HTTP_IDEMPOTENCY_KEY": "import-de"}
    first = curator_client.post(
        "/api/v1/imports/fruits", body, HTTP_ACCEPT_LANGUAGE="de", **headers
    )
    again = curator_client.post(
        "/api/v1/imports/fruits", body, HTTP_ACCEPT_LANGUAGE="en", **headers
    )
    assert again["Idempotent-Replayed"] == "true"
    assert first["Content-Language"] == again["Content-Language"] == "de"
