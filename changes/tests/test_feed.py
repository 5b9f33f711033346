"""Reading the feed: pages in commit order after an opaque cursor, `next` always given, bad
cursors a 400, public, cacheable, a bounded number of queries a page."""

import base64

import pytest
from django.contrib.auth.models import User

from catalog.services import fruit_create, fruit_delete, fruit_update
from changes.feed import encode_cursor
from changes.models import Change

pytestmark = pytest.mark.django_db


@pytest.fixture
def five_changes(feed):
    """Five committed changes: three fruits created, one changed, one deleted."""
    fruits = [fruit_create(name=name, type="apple") for name in ("Topaz", "Elstar", "Boskoop")]
    ids = [fruit.pk for fruit in fruits]
    feed.commit()
    fruit_update(fruit=fruits[0], name="Topas")
    feed.commit()
    fruit_delete(fruit=fruits[1])
    feed.commit()
    return [
        ("fruit", ids[0], "created"),
        ("fruit", ids[1], "created"),
        ("fruit", ids[2], "created"),
        ("fruit", ids[0], "changed"),
        ("fruit", ids[1], "deleted"),
    ]


def test_following_next_until_results_are_empty_lists_every_change_once_in_order(
    feed, five_changes, settings
):
    settings.FRUITCATALOG_CHANGES_PAGE_SIZE = 2
    pages, after = [], None
    while True:
        body = feed.get(**({} if after is None else {"after": after})).json()
        pages.append(body["results"])
        if not body["results"]:
            break
        after = body["next"]

    assert [len(page) for page in pages] == [2, 2, 1, 0]
    listed = [entry for page in pages for entry in page]
    assert [(e["kind"], e["id"], e["action"]) for e in listed] == five_changes
    seqs = [entry["seq"] for entry in listed]
    assert seqs == sorted(set(seqs))  # strictly increasing
    assert all(set(entry) == {"seq", "at", "kind", "id", "action"} for entry in listed)


def test_a_page_holds_at_most_the_page_size_and_1000_by_default(feed, settings):
    assert settings.FRUITCATALOG_CHANGES_PAGE_SIZE == 1000
    Change.objects.bulk_create(
        Change(kind="fruit", object_id=n, action="changed") for n in range(1001)
    )

    first = feed.get()
    second = feed.get(after=first.json()["next"])

    assert len(first.json()["results"]) == 1000
    assert [entry["id"] for entry in second.json()["results"]] == [1000]


def test_next_is_always_given_and_keeps_its_place_while_nothing_is_newer(feed, five_changes):
    end = feed.get(after=encode_cursor(0)).json()["next"]

    waiting = feed.get(after=end).json()
    assert waiting == {"results": [], "next": end}

    fruit = fruit_create(name="Gravensteiner", type="apple")
    newer = feed.get(after=end).json()
    assert [(e["kind"], e["id"], e["action"]) for e in newer["results"]] == [
        ("fruit", fruit.pk, "created")
    ]
    assert newer["next"] != end


def test_an_empty_feed_answers_no_entries_and_a_cursor_to_poll_with(feed):
    body = feed.get().json()

    assert body == {"results": [], "next": encode_cursor(0)}
    assert feed.get(after=body["next"]).json() == body


def test_latest_gives_the_cursor_after_the_newest_change(feed, five_changes):
    latest = feed.get(latest="true")
    newest = Change.objects.order_by("seq").last().seq

    assert latest.status_code == 200
    assert latest.json() == {"results": [], "next": encode_cursor(newest)}
    assert feed.get(after=latest.json()["next"]).json()["results"] == []


@pytest.mark.parametrize(
    "cursor",
    [
        "nonsense",
        "YzE6MQ==",  # padded
        base64.urlsafe_b64encode(b"c1:01").decode().rstrip("="),  # not canonical
        base64.urlsafe_b64encode(b"c1:-1").decode().rstrip("="),
        base64.urlsafe_b64encode(b"c2:1").decode().rstrip("="),
        base64.urlsafe_b64encode(b"c1:99999999999999999999").decode().rstrip("="),
        "\u00e9t\u00e9",
    ],
)
def test_a_cursor_the_feed_did_not_give_is_a_400_naming_after(feed, cursor):
    response = feed.get(after=cursor)

    assert response.status_code == 400
    assert list(response.json()) == ["after"]


def test_an_empty_after_is_no_cursor(feed, five_changes):
    assert feed.get(after="").json() == feed.get().json()


def test_after_and_latest_together_are_a_400(feed):
    response = feed.get(after=encode_cursor(0), latest="true")

    assert response.status_code == 400
    assert list(response.json()) == ["latest"]


def test_a_cursor_ahead_of_every_change_is_a_410(feed, five_changes):
    newest = Change.objects.order_by("seq").last().seq

    response = feed.get(after=encode_cursor(newest + 1))

    assert response.status_code == 410
    assert "start again from a full export" in response.json()["detail"]


def test_the_feed_is_public_and_names_no_user(feed, curator_client, curator):
    response = curator_client.post(
        "/api/v1/fruits", {"name": "Topaz", "type": "apple"}, format="json"
    )
    assert response.status_code == 201

    answer = feed.get()

    assert answer.status_code == 200
    assert len(answer.json()["results"]) == 1
    users = set(User.objects.values_list("username", flat=True))
    assert curator.username in users
    assert not any(name in answer.content.decode() for name in users)
    # Credentials are not read: the same answer for everyone, kept once by a cache.
    as_curator = curator_client.get("/api/v1/changes")
    assert as_curator.content == answer.content
    assert "Cookie" not in as_curator["Vary"]
    bad_token = feed.client.get("/api/v1/changes", HTTP_AUTHORIZATION="Token nonsense")
    assert bad_token.status_code == 200


def test_a_full_page_is_cached_for_a_day_and_the_last_for_seconds(feed, five_changes, settings):
    settings.FRUITCATALOG_CHANGES_PAGE_SIZE = 3
    full = feed.get()
    last = feed.get(after=full.json()["next"])
    empty = feed.get(after=last.json()["next"])

    assert full["Cache-Control"] == "public, max-age=86400"
    assert last["Cache-Control"] == empty["Cache-Control"] == "public, max-age=5"
    assert feed.get(after="nonsense").get("Cache-Control") is None


def test_a_page_costs_the_same_few_queries_however_long(
    feed, settings, django_assert_max_num_queries
):
    Change.objects.bulk_create(
        Change(kind="fruit", object_id=n, action="changed") for n in range(1500)
    )
    feed.commit()

    with django_assert_max_num_queries(2):  # the entries, the pruning boundary
        first = feed.client.get("/api/v1/changes")
    with django_assert_max_num_queries(2):
        second = feed.client.get("/api/v1/changes", {"after": first.json()["next"]})
    with django_assert_max_num_queries(3):  # nothing newer: is the cursor ahead of the feed?
        feed.client.get("/api/v1/changes", {"after": second.json()["next"]})

    assert len(first.json()["results"]) == 1000 and len(second.json()["results"]) == 500


def test_the_schema_describes_the_feed_its_parameters_and_its_errors(anon_client):
    schema = anon_client.get("/api/v1/schema", {"format": "json"}).json()
    operation = schema["paths"]["/api/v1/changes"]["get"]
    schemas = schema["components"]["schemas"]

    assert {p["name"]: p["schema"]["type"] for p in operation["parameters"]} == {
        "after": "string",
        "latest": "boolean",
    }
    page = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert page == {"$ref": "#/components/schemas/ChangePage"}
    assert set(schemas["ChangePage"]["required"]) == {"results", "next"}
    assert set(schemas["Change"]["required"]) == {"seq", "at", "kind", "id", "action"}
    assert schemas["ChangeKindEnum"]["enum"] == ["fruit", "publication", "characteristic"]
    assert schemas["ChangeActionEnum"]["enum"] == [
        "created",
        "changed",
        "deleted",
        "restored",
        "reverted",
    ]
    errors = operation["responses"]
    assert errors["400"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ValidationError"
    }
    assert errors["410"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Error"
    }
    assert operation.get("security") in (None, [], [{}])  # public
