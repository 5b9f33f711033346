"""The WSGI application's front for byte reads answers exactly as the whole Django stack does."""

import re
import time
from unittest import mock

import pytest
from django.core.wsgi import get_wsgi_application
from django.db import OperationalError, connection

from fruitcatalog.blobs.responses import version_of
from fruitcatalog.blobs.wsgi import ByteReadApplication
from fruitcatalog.tests.queries import reading_no_bytes
from fruitcatalog.tests.stored import stored_thumbnail
from fruitcatalog.tests.wsgi_client import WSGIClient, answer

pytestmark = pytest.mark.django_db


@pytest.fixture
def front(django_app):
    return WSGIClient(ByteReadApplication(django_app))


def variants(client, path: str) -> dict:
    """The ways clients read a byte path: plain, revalidated, HEAD, by version, stale version."""
    current = client.get(path)
    etag = current["ETag"]
    return {
        "get": ("get", path, {}),
        "304": ("get", path, {"HTTP_IF_NONE_MATCH": etag}),
        "304, weak in a list": ("get", path, {"HTTP_IF_NONE_MATCH": f'"x", W/{etag}'}),
        "stale etag": ("get", path, {"HTTP_IF_NONE_MATCH": '"stale"'}),
        "head": ("head", path, {}),
        "current version": ("get", f"{path}?v={version_of(etag.strip(chr(34)))}", {}),
        "stale version": ("get", f"{path}?v=0123456789abcdef", {}),
        "over https": ("get", path, {"secure": True}),
        "behind a proxy, https": ("get", path, {"HTTP_X_FORWARDED_PROTO": "https"}),
        "no such parent": ("get", re.sub(r"^(/api/v1/[a-z-]+/)", r"\g<1>9", path), {}),
        "no such parent, head": ("head", re.sub(r"^(/api/v1/[a-z-]+/)", r"\g<1>9", path), {}),
    }


def test_byte_reads_are_answered_in_front_as_the_django_stack_answers(
    byte_paths, front, django_app, anon_client, security_settings
):
    hsts, proxy = security_settings
    for path in byte_paths:
        for name, (method, url, extra) in variants(anon_client, path).items():
            expected = getattr(anon_client, method)(url, **extra)
            got = getattr(front, method)(url, **extra)
            assert answer(got) == answer(expected), (name, url)
            assert got.status_code == (404 if "no such" in name else 304 if "304" in name else 200)
    assert django_app.paths == []  # none of them reached Django's handler
    secure = front.get(byte_paths[0], secure=True)
    assert ("Strict-Transport-Security" in secure) == bool(hsts)
    behind = front.get(byte_paths[0], HTTP_X_FORWARDED_PROTO="https")
    assert ("Strict-Transport-Security" in behind) == bool(hsts and proxy)


def test_a_404_in_front_is_logged_as_django_logs_it(byte_paths, front, django_app, caplog):
    response = front.get(byte_paths[0] + "9")
    assert (response.status_code, response.json()) == (404, {"detail": "Not found."})
    assert f"Not Found: {byte_paths[0]}9" in caplog.text
    assert django_app.paths == []


def test_a_revalidation_in_front_is_one_query_of_metadata(byte_paths, front):
    for path in byte_paths:
        etag = front.get(path)["ETag"]
        with reading_no_bytes() as captured:
            response = front.get(path, HTTP_IF_NONE_MATCH=etag)
        assert response.status_code == 304
        assert "Content-Type" not in response
        assert len(captured.captured_queries) == 1, path


def test_what_the_front_does_not_answer_django_answers_as_ever(
    byte_paths, front, django_app, anon_client, settings, caplog
):
    image = byte_paths[0]
    too_many = "&".join(f"f{index}=1" for index in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS))
    cases = [
        ("get", image, {"HTTP_HOST": "evil.example"}),  # a host not allowed: 400
        ("get", f"{image}?v=1&{too_many}", {}),  # a query string over Django's limit: 400
        ("options", image, {}),  # not a read
        ("get", "/api/v1/fruits", {}),  # not a byte path
    ]
    for method, url, extra in cases:
        if method == "options":
            got = front.request("OPTIONS", url)
        else:
            got = getattr(front, method)(url, **extra)
        expected = getattr(anon_client, method)(url, **extra)
        assert got.status_code == expected.status_code, url
        assert got.content == expected.content, url
    assert len(django_app.paths) == len(cases)
    assert "failed for" not in caplog.text  # refused input is no failure of the front
    # Django's handler reads its middleware's settings when it loads it: a new one, redirecting.
    settings.SECURE_SSL_REDIRECT = True
    redirecting = WSGIClient(ByteReadApplication(get_wsgi_application()))
    response = redirecting.get(image)
    assert response.status_code == 301
    assert response["Location"] == f"https://testserver{image}"


def test_an_unreachable_database_is_the_json_503_in_front(byte_paths, front, django_app):
    refused = OperationalError("connection to server at 127.0.0.1 refused")
    with mock.patch.object(connection, "cursor", side_effect=refused):
        response = front.get(byte_paths[1])
    assert response.status_code == 503
    assert response.json() == {"detail": "The database is unavailable; try again shortly."}
    assert response["Retry-After"]
    assert response["Access-Control-Allow-Origin"] == "*"
    assert django_app.paths == []


@pytest.mark.django_db(transaction=True)
def test_the_front_closes_a_connection_past_its_age_as_django_does(front):
    path = stored_thumbnail()
    connection.ensure_connection()
    with mock.patch.object(connection, "close", wraps=connection.close) as close:
        connection.close_at = None  # persistent, no age limit: kept
        assert front.get(path).status_code == 200
        assert close.call_count == 0
        connection.close_at = time.monotonic() - 1  # past CONN_MAX_AGE: closed
        assert front.get(path).status_code == 200
        assert close.call_count >= 1


def test_a_failing_front_is_logged_and_django_answers(byte_paths, front, django_app, caplog):
    with mock.patch("fruitcatalog.blobs.wsgi.read_headers", side_effect=RuntimeError("a bug")):
        response = front.get(byte_paths[1])
    assert response.status_code == 200
    assert django_app.paths == [byte_paths[1]]
    assert "ByteReadApplication failed for" in caplog.text
