"""The search finds real varieties by any name and spelling (catalog/tests/search_quality.py)."""

import pytest
from django.db import connection

from catalog.tests.search_quality import load_varieties, measure

pytestmark = pytest.mark.django_db

FORGIVEN = ["case", "umlaut", "apostrophe", "alias", "partial", "misspelling"]


def test_search_quality_floor(anon_client):
    load_varieties()
    quality = measure(anon_client)
    report = quality.table() + "\n" + "\n".join(map(str, quality.misses))

    assert quality.rate("exact") == 1.0, report
    assert quality.rate("nonsense") == 1.0, report
    floor = 0.95 if connection.vendor == "postgresql" else 0.90
    assert quality.rate(*FORGIVEN) >= floor, report
    assert quality.rate("gross") >= 0.80, report
