"""The demo data describes its apples and pears, and identify names them from a description."""

import pytest
from django.core.management import call_command

from identification.demo_values import DEMO_VALUES

pytestmark = pytest.mark.django_db


def test_the_demo_varieties_are_described_and_identified(anon_client):
    call_command("load_demo_data")
    body = anon_client.get("/api/v1/fruits", {"search": "Weißer Klarapfel"}).json()
    detail = anon_client.get(f"/api/v1/fruits/{body['results'][0]['id']}").json()
    assert len(detail["characteristics"]) == len(DEMO_VALUES["Weißer Klarapfel"])
    query = {
        code: ",".join(map(str, values)) for code, values in DEMO_VALUES["Weißer Klarapfel"].items()
    }
    found = anon_client.get("/api/v1/identify", {"type": "apple", **query}).json()
    assert found["candidates"][0]["fruit"]["name"] == "Weißer Klarapfel"
    assert found["count"] == 11  # every demo apple is described, so every one is a candidate
    # A second run describes nothing again.
    call_command("load_demo_data")
