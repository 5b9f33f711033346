"""The public site's shared parts: the 404 page, trailing slashes, the layout's links."""

import pytest

pytestmark = pytest.mark.django_db


def test_an_unknown_path_is_the_sites_html_404_page(client):
    response = client.get("/no/such/page")

    assert response.status_code == 404
    assert response["Content-Type"] == "text/html; charset=utf-8"
    text = response.content.decode()
    assert "<title>Page not found · Fruit Catalog</title>" in text
    assert 'href="/api/v1/docs"' in text  # the footer links the API documentation


def test_unknown_api_paths_stay_json_404s(client):
    response = client.get("/api/v1/nothing")

    assert response.status_code == 404
    assert response.json() == {"detail": "Not found."}


@pytest.mark.parametrize(
    ("path", "target"),
    [
        ("/publications", "/publications/"),
        ("/admin", "/admin/"),
        ("/fruits/1?x=1", "/fruits/1/?x=1"),
    ],
)
def test_a_path_missing_its_trailing_slash_is_redirected_to_it(client, path, target):
    response = client.get(path)

    assert response.status_code == 301
    assert response["Location"] == target


def test_every_page_links_the_catalog_the_publications_and_the_api_docs(client):
    text = client.get("/publications/").content.decode()

    assert 'href="/"' in text
    assert 'href="/publications/" aria-current="page"' in text
    assert 'href="/api/v1/docs"' in text
    assert 'href="/admin/"' in text


def test_pages_fetch_nothing_from_another_origin(client, fruit_factory, add_image):
    add_image(fruit_factory())

    for path in ["/", "/publications/", "/no-such-page"]:
        # The language alternates name the page's own origin, absolute as search engines want.
        text = client.get(path).content.decode().replace('href="http://testserver/', 'href="/')
        assert (
            "http://" not in text
            and "https://" not in text
            and "//" not in text.replace("://", "").replace("<!--", "")
        ), path


def test_pages_allow_scripts_styles_and_images_from_their_own_origin_only(client):
    for path in ["/", "/publications/", "/no-such-page"]:
        policy = client.get(path)["Content-Security-Policy"]
        assert "default-src 'self'" in policy
        assert "frame-ancestors 'none'" in policy


def test_the_favicon_browsers_ask_for_is_the_sites_icon(client):
    response = client.get("/favicon.ico")

    assert response.status_code == 301
    assert response["Location"].endswith("/site/favicon.svg")


@pytest.mark.parametrize("path", ["/", "/fruits/1/", "/publications/", "/publications/1/"])
def test_pages_answer_get_and_head_only(client, path):
    assert client.post(path).status_code == 405
    assert client.head("/").status_code == 200


def test_a_database_lost_while_saving_the_login_session_is_the_503_page(client, monkeypatch):
    """An error in middleware (the session saved after a login), not in a view."""
    from django.contrib.auth.models import User
    from django.contrib.sessions.backends.db import SessionStore
    from django.db import OperationalError

    User.objects.create_superuser("admin", password="a-long-password-123")

    create_session = SessionStore.save

    def database_gone(self, must_create=False):
        if must_create:  # the login view creates the session; the middleware saves it after
            return create_session(self, must_create=True)
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(SessionStore, "save", database_gone)
    client.raise_request_exception = False
    response = client.post(
        "/admin/login/", {"username": "admin", "password": "a-long-password-123"}
    )
    assert response.status_code == 503
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert response["Retry-After"] and b"Temporarily unavailable" in response.content
