"""Pages at any depth: ids first, a bounded count, `next` exact even when the count is not."""

import pytest

from catalog.models import Fruit
from core.rest import pagination

pytestmark = pytest.mark.django_db

FRUITS = "/api/v1/fruits"


@pytest.fixture
def twelve_fruits(fruit_factory):
    return [fruit_factory(name=f"Fruit {n:02}", catalog_number=100 - n) for n in range(12)]


def names(body):
    return [fruit["name"] for fruit in body["results"]]


def test_pages_hold_the_rows_in_order_and_next_stops_at_the_end(anon_client, twelve_fruits):
    ordered = list(Fruit.objects.in_catalog_order().values_list("name", flat=True))
    pages = [anon_client.get(FRUITS, {"page_size": 5, "page": n}).json() for n in (1, 2, 3)]

    assert [names(page) for page in pages] == [ordered[:5], ordered[5:10], ordered[10:]]
    assert pages[1]["next"].endswith("page=3&page_size=5")
    assert pages[2]["next"] is None
    assert anon_client.get(FRUITS, {"page_size": 5, "page": 4}).json() == {
        "detail": "Invalid page."
    }


def test_above_the_exact_limit_paging_by_next_stays_exact(anon_client, twelve_fruits, monkeypatch):
    monkeypatch.setattr(pagination, "EXACT_COUNT_LIMIT", 5)

    first = anon_client.get(FRUITS, {"page_size": 5}).json()
    last = anon_client.get(FRUITS, {"page_size": 5, "page": 3}).json()
    past = anon_client.get(FRUITS, {"page_size": 5, "page": 4})

    assert first["count"] >= 6  # exact on SQLite, the planner's estimate on PostgreSQL
    assert len(names(last)) == 2 and last["next"] is None
    assert past.status_code == 404


def test_a_filtered_list_is_counted_exactly_below_the_limit(anon_client, twelve_fruits):
    body = anon_client.get(FRUITS, {"search": "fruit 1"}).json()
    assert body["count"] == 2  # "Fruit 10", "Fruit 11"
