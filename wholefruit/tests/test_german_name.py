"""A fruit shown in German is headed by its German name (a `translation`, else a `trade_name`,
with language `de`), the accepted name beside it; in English by its accepted name: the fruit
page, the cards of the grid, identify's and compare's fruits, and the API's `display_name`."""

import html
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from identification.tests.helpers import describe, ensure_standard_characteristics

pytestmark = pytest.mark.django_db

COX = "Cox's Orange Pippin"
COX_NAMES = [
    {"name": "Cox Orange", "kind": "trade_name", "language": "de"},
    {"name": "Cox Orangenrenette", "kind": "translation", "language": "de"},
    {"name": "Reinette orange de Cox", "kind": "translation", "language": "fr"},
]


def first(tag: str, page) -> str:
    """The text of the page's first `tag` element, without its markup."""
    match = re.search(rf"<{tag}[^>]*>(.*?)</{tag}>", page.content.decode(), re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", match.group(1))).strip()


@pytest.fixture
def cox(fruit_factory):
    return fruit_factory(name=COX, names=COX_NAMES)


@pytest.mark.parametrize(
    ("names", "heading"),
    [
        (COX_NAMES, "Cox Orangenrenette"),  # a translation before a trade name
        (COX_NAMES[:1], "Cox Orange"),  # a trade name when there is no translation
        (COX_NAMES[2:], COX),  # a French name heads no German page
        ([{"name": "Coxens Renette", "kind": "synonym", "language": "de"}], COX),
        ([{"name": "Cox Orangenrenette", "kind": "translation", "language": ""}], COX),
        ([], COX),
    ],
)
def test_the_german_fruit_page_is_headed_by_the_german_name(client, fruit_factory, names, heading):
    fruit = fruit_factory(name=COX, names=names)
    german = client.get(f"/de/fruits/{fruit.pk}/")
    assert first("h1", german) == heading
    assert first("title", german).startswith(heading)
    accepted = re.search(r'class="fruit__accepted[^"]*">(.*?)</p>', german.content.decode())
    if heading == COX:
        assert accepted is None
        assert not first("title", german).startswith(f"{COX} \N{EN DASH}")
    else:
        assert html.unescape(accepted.group(1)).endswith(COX)
        assert first("title", german).startswith(f"{heading} \N{EN DASH} {COX}")
    english = client.get(f"/fruits/{fruit.pk}/")
    assert first("h1", english) == COX
    assert "fruit__accepted" not in english.content.decode()


def test_the_german_grid_heads_each_card_by_the_german_name(client, cox, fruit_factory):
    fruit_factory(name="Gravensteiner")
    german = client.get("/de/").content.decode()
    headings = [html.unescape(h) for h in re.findall(r'class="card__name">(.*?)</h2>', german)]
    assert "Cox Orangenrenette" in headings and "Gravensteiner" in headings
    assert COX not in headings
    assert re.search(r'class="card__accepted">.*?Cox&#x27;s Orange Pippin</p>', german)
    english = client.get("/").content.decode()
    headings = [html.unescape(h) for h in re.findall(r'class="card__name">(.*?)</h2>', english)]
    assert COX in headings and "Cox Orangenrenette" not in headings
    assert "card__accepted" not in english


def test_identify_and_compare_head_fruits_by_their_german_names(client, cox, fruit_factory):
    ensure_standard_characteristics()
    other = fruit_factory(name="Gravensteiner")
    describe(cox, {"fruit_size": [5]})
    describe(other, {"fruit_size": [7]})
    identify = client.get("/de/identify/", {"type": "apple", "fruit_size": "5"}).content.decode()
    assert "Cox Orangenrenette" in re.findall(r'class="candidate__name">(.*?)</span>', identify)
    compare = client.get("/de/compare/", {"fruits": f"{cox.pk},{other.pk}"}).content.decode()
    assert "<span>Cox Orangenrenette</span>" in compare
    english = client.get("/compare/", {"fruits": f"{cox.pk},{other.pk}"}).content.decode()
    assert "<span>Cox&#x27;s Orange Pippin</span>" in english


def test_the_api_says_the_display_name_in_the_answers_language(anon_client, cox, fruit_factory):
    plain = fruit_factory(name="Gravensteiner")
    for url in (f"/api/v1/fruits/{cox.pk}", "/api/v1/fruits"):
        german = anon_client.get(url, {"lang": "de"}).json()
        english = anon_client.get(url, HTTP_ACCEPT_LANGUAGE="en").json()
        rows = german.get("results", [german])
        shown = {row["id"]: (row["name"], row["display_name"]) for row in rows}
        assert shown[cox.pk] == (COX, "Cox Orangenrenette")
        if plain.pk in shown:
            assert shown[plain.pk] == ("Gravensteiner", "Gravensteiner")
        rows = english.get("results", [english])
        assert {row["id"]: row["display_name"] for row in rows}[cox.pk] == COX
    by_header = anon_client.get(f"/api/v1/fruits/{cox.pk}", HTTP_ACCEPT_LANGUAGE="de").json()
    assert by_header["display_name"] == "Cox Orangenrenette"


def test_german_lists_and_pages_cost_the_queries_english_ones_do(
    client, anon_client, fruit_factory
):
    for number in range(6):
        fruit_factory(name=f"Apple {number}", names=COX_NAMES[:2] if number % 2 else [])
    for get, urls in (
        (anon_client.get, ("/api/v1/fruits", "/api/v1/fruits?lang=de")),
        (client.get, ("/", "/de/")),
    ):
        counts = []
        for url in urls:
            with CaptureQueriesContext(connection) as queries:
                assert get(url).status_code == 200
            counts.append(len(queries))
        assert counts[0] == counts[1], urls
