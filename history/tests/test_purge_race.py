"""A restore that meets a purge of the same fruit on PostgreSQL waits for it, then finds the fruit
purged (a 404): never a fruit brought back without its images while marked purged.

The purge runs on a connection of its own (a thread) and holds its transaction open; SQLite
serialises writers (`transaction_mode: IMMEDIATE`), so the two cannot overlap there.
"""

import threading

import pytest
from django.db import connection, connections, transaction
from django.utils import timezone

from catalog.models import Fruit, FruitImage, KeptFruitImage
from catalog.services import fruit_create, fruit_delete
from core.testing.media import make_object_png
from core.testing.races import WAIT_SECONDS, wait_until, waiting_for_advisory_lock
from history import purging
from history.models import PurgedFruit
from history.services import VersionNotFound, fruit_restore

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]

WAIT = WAIT_SECONDS


@pytest.fixture(autouse=True)
def postgresql_only():
    if connection.vendor != "postgresql":
        pytest.skip("SQLite serialises writers: two transactions never overlap there")


class Step(threading.Thread):
    """Runs `work` on its own connection; keeps what it returned or raised."""

    def __init__(self, work):
        super().__init__()
        self.work, self.result, self.error = work, None, None

    def run(self):
        try:
            self.result = self.work()
        except Exception as error:  # reported by the test's thread
            self.error = error
        finally:
            connections.close_all()


def waiting_for_the_purges_lock() -> bool:
    return waiting_for_advisory_lock(purging.DELETED_FRUITS_LOCK)


def test_a_restore_waits_for_a_purge_of_its_fruit_and_finds_it_purged():
    fruit = fruit_create(name="Boskoop", type="apple")
    FruitImage.objects.create(fruit=fruit, data=make_object_png())
    pk = fruit.pk
    fruit_delete(fruit=fruit)
    purged, release = threading.Event(), threading.Event()

    def purge_and_hold():
        with transaction.atomic():
            done = purging.purge_deleted(before=timezone.now())
            purged.set()
            release.wait(WAIT)
        return done

    purge = Step(purge_and_hold)
    purge.start()
    assert purged.wait(WAIT)
    restore = Step(lambda: fruit_restore(fruit_id=pk))
    restore.start()
    try:
        wait_until(waiting_for_the_purges_lock)
    finally:
        release.set()
        purge.join(WAIT)
        restore.join(WAIT)

    assert purge.error is None and (purge.result.fruits, purge.result.images) == (1, 1)
    assert isinstance(restore.error, VersionNotFound), restore.error
    assert not Fruit.objects.filter(pk=pk).exists()
    assert not KeptFruitImage.objects.exists()
    assert PurgedFruit.objects.filter(fruit_id=pk).exists()
