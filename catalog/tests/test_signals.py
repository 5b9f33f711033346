"""The catalog's signals: what the apps above receive, through the API's writes."""

import pytest
from django.db import transaction

from catalog.models import Fruit
from catalog.signals import fruit_written, searched_names

pytestmark = pytest.mark.django_db

FRUITS = "/api/v1/fruits"


@pytest.fixture
def received():
    """What `fruit_written` receivers get, each with whether it came inside a transaction."""
    calls = []

    def receiver(sender, **kwargs):
        calls.append(
            {
                **kwargs,
                "fruit_id": kwargs["fruit"].pk,  # as sent: a deleted fruit loses it afterwards
                "in_transaction": transaction.get_connection().in_atomic_block,
            }
        )

    fruit_written.connect(receiver, sender=Fruit, dispatch_uid="test-received")
    yield calls
    fruit_written.disconnect(sender=Fruit, dispatch_uid="test-received")


def test_creating_retyping_renumbering_and_deleting_a_fruit_tell_the_receivers(
    curator_client, received
):
    created = curator_client.post(FRUITS, {"name": "Cox", "type": "apple"}, format="json").json()
    path = f"{FRUITS}/{created['id']}"
    curator_client.patch(path, {"type": "pear"}, format="json")
    curator_client.patch(path, {"catalog_number": 4711}, format="json")
    assert curator_client.delete(path).status_code == 204

    seen = [
        (call["fruit_id"], call["previous_type"], call["renumbered"], call["deleted"])
        for call in received
    ]
    assert seen == [
        (created["id"], None, False, False),
        (created["id"], "apple", False, False),
        (created["id"], "pear", True, False),
        (created["id"], "pear", False, True),
    ]
    # In the write's transaction, so a receiver's failure takes the write back with it.
    assert all(call["in_transaction"] for call in received)


def test_a_receiver_of_searched_names_makes_a_fruit_findable_by_them(anon_client, curator_client):
    def nicknames(sender, *, fruit_ids, **kwargs):
        return {fruit_id: ["Orchard Ghost"] for fruit_id in fruit_ids}

    created = curator_client.post(FRUITS, {"name": "Cox", "type": "apple"}, format="json").json()
    searched_names.connect(nicknames, sender=Fruit, dispatch_uid="test-nicknames")
    try:
        # A new fruit has no names elsewhere yet; a changed one is asked for them.
        curator_client.patch(f"{FRUITS}/{created['id']}", {"name": "Cox Orange"}, format="json")
    finally:
        searched_names.disconnect(sender=Fruit, dispatch_uid="test-nicknames")

    results = anon_client.get(FRUITS, {"search": "orchard ghost"}).json()["results"]
    assert [fruit["name"] for fruit in results] == ["Cox Orange"]
