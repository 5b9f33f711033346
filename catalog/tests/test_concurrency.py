"""Catalog numbers stay unique and gap-free when many fruits are created at once."""

import threading

import pytest
from django.db import connection, connections

from catalog.models import Fruit
from catalog.services import fruit_create

THREADS = 6
CREATES_PER_THREAD = 5


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_creates_get_distinct_consecutive_catalog_numbers():
    if connection.vendor != "postgresql":
        pytest.skip("SQLite serialises writers; the race needs PostgreSQL's concurrent sessions")
    start = threading.Barrier(THREADS)
    errors = []

    def create_many(worker: int):
        try:
            start.wait()
            for index in range(CREATES_PER_THREAD):
                fruit_create(name=f"Fruit {worker}-{index}", type="apple")
        except Exception as error:  # reported to the test thread below
            errors.append(error)
        finally:
            connections.close_all()

    workers = [threading.Thread(target=create_many, args=(n,)) for n in range(THREADS)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    assert errors == []
    numbers = sorted(Fruit.objects.values_list("catalog_number", flat=True))
    assert numbers == list(range(1, THREADS * CREATES_PER_THREAD + 1))


@pytest.mark.django_db
def test_explicit_numbers_and_automatic_ones_mix(curator_client):
    curator_client.post(
        "/api/v1/fruits", {"name": "A", "type": "pear", "catalog_number": 100}, format="json"
    )
    body = curator_client.post(
        "/api/v1/fruits", {"name": "B", "type": "pear"}, format="json"
    ).json()
    assert body["catalog_number"] == 101
