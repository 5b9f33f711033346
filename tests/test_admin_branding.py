"""The admin names the service, not Django: its header, its pages' titles and its index."""

import pytest

pytestmark = pytest.mark.django_db


def test_the_login_page_names_the_service(client):
    html = client.get("/admin/login/").content.decode()

    assert '<a href="/admin/">Fruit Catalog administration</a>' in html
    assert "<title>Log in | Fruit Catalog admin</title>" in html
    assert "Django" not in html


def test_the_index_names_the_service_and_what_curators_keep(admin_client):
    html = admin_client.get("/admin/").content.decode()

    assert '<a href="/admin/">Fruit Catalog administration</a>' in html
    assert "<title>Catalog, publications and characteristics | Fruit Catalog admin</title>" in html
    assert "<h1>Catalog, publications and characteristics</h1>" in html
    assert "Django administration" not in html and "Django site admin" not in html
