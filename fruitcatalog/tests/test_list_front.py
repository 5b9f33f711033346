"""The WSGI front for the fruit list's plain pages answers exactly as the Django stack does."""

import io
import re
from contextlib import closing
from unittest import mock

import pytest
from django.db import OperationalError, connection, connections
from django.urls import resolve

from catalog.tests.factories import FruitFactory, varied_fruits
from catalog.views import FruitViewSet
from fruitcatalog import wsgi
from fruitcatalog.api import LIST_READS
from fruitcatalog.blobs.wsgi import ByteReadApplication
from fruitcatalog.directreads import LibpqSession
from fruitcatalog.listreads import ListReadApplication
from fruitcatalog.tests.queries import reading_no_bytes
from fruitcatalog.tests.wsgi_client import Stack, WSGIClient, answer

pytestmark = pytest.mark.django_db

FRUITS = "/api/v1/fruits"

# Plain pages: what the front answers itself.
PLAIN = [
    (FRUITS, {}),
    (f"{FRUITS}/", {}),
    (f"{FRUITS}?page_size=2", {}),
    (f"{FRUITS}?page=2&page_size=2", {}),
    (f"{FRUITS}?page_size=2&page=3", {}),  # the last page: no next
    (f"{FRUITS}?page=1", {}),
    (f"{FRUITS}?page=02&page_size=2", {}),  # Django's int() takes leading zeros
    (f"{FRUITS}?page_size=0", {}),  # not positive: the default size
    (f"{FRUITS}?page_size=500", {}),  # over the maximum: the maximum
    (f"{FRUITS}?page_size=4&page_size=2", {}),  # a repeated parameter: its last value
    (f"{FRUITS}?page_size=2", {"HTTP_ACCEPT": "application/json"}),
    (f"{FRUITS}?page_size=2", {"secure": True}),
    (f"{FRUITS}?page=2&page_size=2", {"HTTP_X_FORWARDED_PROTO": "https"}),
    (f"{FRUITS}?page=2&page_size=2", {"HTTP_HOST": "catalog.example"}),
]

# Everything else: Django's handler answers it.
HANDED_ON = [
    ("get", f"{FRUITS}?page=last&page_size=2", {}),
    ("get", f"{FRUITS}?page=x", {}),
    ("get", f"{FRUITS}?search=bare", {}),
    ("get", f"{FRUITS}?ordering=-name", {}),
    ("get", f"{FRUITS}?type=pear&page_size=2", {}),
    ("get", f"{FRUITS}?format=json", {}),
    ("get", f"{FRUITS}?page_size=2&utm_source=x", {}),
    ("get", f"{FRUITS}?page=2&page=1&page_size=4", {}),  # three parameters
    ("get", FRUITS, {"HTTP_ACCEPT": "application/json, */*"}),
    ("get", FRUITS, {"CONTENT_LENGTH": "2", "wsgi.input": io.BytesIO(b"{}")}),  # a body
    ("get", FRUITS, {"HTTP_TRANSFER_ENCODING": "chunked"}),
    ("get", f"{FRUITS}?page=%00", {}),  # a NUL byte: 400
    ("get", FRUITS, {"HTTP_ACCEPT": "text/html"}),  # the browsable API
    ("get", FRUITS, {"HTTP_ACCEPT": "application/json; indent=4"}),
    ("get", FRUITS, {"HTTP_AUTHORIZATION": "Token not-a-token"}),  # 401
    ("get", FRUITS, {"HTTP_COOKIE": "sessionid=stale"}),  # the cookie is deleted
    ("get", FRUITS, {"HTTP_ORIGIN": "https://elsewhere.example"}),  # CORS
    ("get", FRUITS, {"HTTP_HOST": "evil.example"}),  # not an allowed host: 400
    ("head", FRUITS, {}),
    ("options", FRUITS, {}),
    ("get", "/api/v1/publications", {}),
]


@pytest.fixture
def front(django_app):
    return WSGIClient(ListReadApplication(django_app, LIST_READS))


@pytest.fixture
def stack():
    return Stack()


@pytest.fixture
def fruits(settings):
    settings.ALLOWED_HOSTS = ["testserver", "catalog.example"]
    *numbered, unnumbered = varied_fruits()
    return [*numbered, *(FruitFactory(catalog_number=20 + n) for n in range(2)), unnumbered]


def test_the_real_application_has_both_fronts():
    assert isinstance(wsgi.application, ByteReadApplication)
    lists = wsgi.application.application
    assert isinstance(lists, ListReadApplication)
    assert lists.application is wsgi.django_application
    assert set(lists.reads) == {FRUITS, f"{FRUITS}/"}
    for path in lists.reads:  # the paths Django routes to the fruit list
        view = resolve(path).func
        assert (view.cls, view.actions["get"]) == (FruitViewSet, "list")


def test_plain_pages_are_answered_in_front_as_the_django_stack_answers(
    fruits, front, django_app, stack, security_settings
):
    for url, extra in PLAIN:
        expected = stack.get(url, **extra)
        got = front.get(url, **extra)
        assert got.status_code == 200, url
        assert answer(got) == answer(expected), (url, extra)
    assert django_app.paths == []  # none of them reached Django's handler
    page = front.get(f"{FRUITS}?page_size=2&page=2").json()
    assert page["count"] == len(fruits)
    assert [fruit["name"] for fruit in page["results"]] == [fruits[2].name, fruits[3].name]


def test_every_shape_of_row_is_represented_as_drf_represents_it(fruits, front, stack):
    got = front.get(f"{FRUITS}?page_size=100").json()["results"]
    assert got == stack.get(f"{FRUITS}?page_size=100").json()["results"]
    assert [fruit["id"] for fruit in got] == [fruit.pk for fruit in fruits]
    assert got[1]["synonyms"] == ["Zeta", "Alpha"]
    assert got[1]["card_image_id"] is not None
    assert got[2]["thumbnail_url"] and got[3]["thumbnail_url"] is None
    assert got[-1]["catalog_number"] is None and got[-1]["thumbnail_url"]


def test_an_empty_catalog_is_an_empty_first_page(front, stack):
    got = front.get(FRUITS)
    assert got.json() == {"count": 0, "next": None, "previous": None, "results": []}
    assert answer(got) == answer(stack.get(FRUITS))


def test_a_count_over_the_exact_limit_pages_as_the_django_stack_does(
    fruits, front, django_app, stack, monkeypatch
):
    # PostgreSQL: the planner's estimate, pages found by reading them; SQLite: counted.
    monkeypatch.setattr("fruitcatalog.pagination.EXACT_COUNT_LIMIT", 2)
    for url in [f"{FRUITS}?page_size=2", f"{FRUITS}?page=3&page_size=2"]:
        assert answer(front.get(url)) == answer(stack.get(url)), url
    assert django_app.paths == []
    past = f"{FRUITS}?page=50&page_size=2"  # found out by reading it
    assert answer(front.get(past)) == answer(stack.get(past))
    assert django_app.paths == []


def test_a_page_that_does_not_exist_is_the_apis_404_in_front(
    fruits, front, django_app, stack, caplog
):
    for url in [f"{FRUITS}?page=9&page_size=2", f"{FRUITS}?page=0", f"{FRUITS}?page=999999999"]:
        got = front.get(url)
        assert got.json() == {"detail": "Invalid page."}, url
        assert answer(got) == answer(stack.get(url)), url
    assert django_app.paths == []
    assert caplog.text.count("Not Found: /api/v1/fruits") == 6  # the front's and the stack's


def test_commons_rules_are_left_to_django(fruits, front, django_app, stack, settings):
    settings.DISALLOWED_USER_AGENTS = [re.compile("badbot")]
    got = front.get(FRUITS, HTTP_USER_AGENT="badbot/1.0")
    assert got.status_code == stack.get(FRUITS, HTTP_USER_AGENT="badbot/1.0").status_code == 403
    settings.DISALLOWED_USER_AGENTS = []
    settings.PREPEND_WWW = True
    assert front.get(FRUITS).status_code == stack.get(FRUITS).status_code == 301
    assert django_app.paths == [FRUITS, FRUITS]


def test_what_the_front_does_not_answer_django_answers_as_ever(
    fruits, front, django_app, stack
):
    for method, url, extra in HANDED_ON:
        if method == "options":
            got = front.request("OPTIONS", url, **extra)
            expected = stack.request("OPTIONS", url, **extra)
        else:
            got = getattr(front, method)(url, **extra)
            expected = getattr(stack, method)(url, **extra)
        assert got.status_code == expected.status_code, (url, extra)
        if expected.headers.get("Content-Type") == "application/json":  # not the HTML API
            assert got.content == expected.content, (url, extra)
    assert len(django_app.paths) == len(HANDED_ON)


def test_a_plain_page_in_front_is_four_queries_of_no_bytes(
    fruits, front, monkeypatch, django_assert_max_num_queries
):
    monkeypatch.setattr("fruitcatalog.pagination.EXACT_COUNT_LIMIT", 2)  # the estimate too
    front.get(FRUITS)  # compiled on the first request of a connection
    with django_assert_max_num_queries(4), reading_no_bytes():
        assert front.get(f"{FRUITS}?page=2&page_size=2").status_code == 200


def test_an_unreachable_database_is_the_stacks_json_503_in_front(
    fruits, front, django_app, stack, caplog
):
    refused = OperationalError("connection to server at 127.0.0.1 refused")
    with mock.patch.object(connection, "cursor", side_effect=refused):
        response = front.get(FRUITS)
        expected = stack.get(FRUITS)
    assert response.status_code == 503
    assert response.json() == {"detail": "The database is unavailable; try again shortly."}
    assert answer(response) == answer(expected)
    assert django_app.paths == []  # tried once, not again by Django's handler
    assert "Service Unavailable: /api/v1/fruits" in caplog.text


def test_a_lost_race_is_left_to_djangos_handler(fruits, front, django_app):
    class Deadlock(Exception):
        sqlstate = "40P01"

    lost = OperationalError("deadlock detected")
    lost.__cause__ = Deadlock()
    with mock.patch("fruitcatalog.listreads.run_read", side_effect=lost):
        response = front.get(FRUITS)
    assert response.status_code == 200
    assert django_app.paths == [FRUITS]


def test_a_failing_front_is_logged_and_django_answers(fruits, front, django_app, caplog):
    with mock.patch(
        "fruitcatalog.listreads.CompiledPaginator.page_ids", side_effect=RuntimeError("a bug")
    ):
        response = front.get(FRUITS)
    assert response.status_code == 200
    assert response.json()["count"] == len(fruits)
    assert "ListReadApplication failed for /api/v1/fruits" in caplog.text
    assert django_app.paths == [FRUITS]


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_the_queries_go_to_libpq_and_answer_alike(
    fruits, front, django_app, stack, monkeypatch
):
    if connection.vendor != "postgresql":
        pytest.skip("libpq is PostgreSQL's client library")
    monkeypatch.setattr("fruitcatalog.pagination.EXACT_COUNT_LIMIT", 2)
    every = f"{FRUITS}?page_size=100"  # every shape of row: arrays, NULLs, unicode, card choice
    with mock.patch.object(
        LibpqSession, "fetch_all", autospec=True, side_effect=LibpqSession.fetch_all
    ) as direct:
        got = front.get(every)
    assert direct.call_count == 4  # the count, the estimate, the page's ids, their rows
    assert answer(got) == answer(stack.get(every))
    with connection.cursor() as cursor:  # as a pooler's session reset does
        cursor.execute("DEALLOCATE ALL")
    assert answer(front.get(every)) == answer(stack.get(every))
    monkeypatch.setattr(connection.connection, "prepare_threshold", None)  # unnamed statements
    url = f"{FRUITS}?page=2&page_size=2"
    assert answer(front.get(url)) == answer(stack.get(url))
    assert django_app.paths == []


@pytest.mark.django_db(transaction=True)
def test_a_dead_persistent_connection_is_replaced_without_a_failed_page(fruits, front):
    if connection.vendor != "postgresql":
        pytest.skip("a server-side disconnect needs PostgreSQL")
    assert front.get(FRUITS).status_code == 200
    # The server ends this session, as a restart would; the client does not know yet.
    pid = connection.connection.info.backend_pid
    with closing(connections.create_connection("default")) as other, other.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    response = front.get(FRUITS)
    assert response.status_code == 200
    assert response.json()["count"] == len(fruits)
    assert connection.connection.info.backend_pid != pid
