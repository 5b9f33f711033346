"""`seq` follows commit order on PostgreSQL, where a sequence hands out numbers before commit:
a reader polling while two writers overlap never skips the one that commits later.

Two writers run on their own connections (threads); the test's thread reads the feed through
HTTP in between, as a mirror polls. SQLite serialises writers (`transaction_mode: IMMEDIATE`),
so two transactions cannot overlap there.
"""

import threading

import pytest
from django.db import connection, connections, transaction
from rest_framework.test import APIClient

from catalog.services import fruit_create
from changes import recording
from changes.feed import encode_cursor
from core.testing.races import WAIT_SECONDS, wait_until, waiting_for_advisory_lock

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]

WAIT = WAIT_SECONDS


@pytest.fixture(autouse=True)
def postgresql_only():
    if connection.vendor != "postgresql":
        pytest.skip("SQLite serialises writers: two transactions never overlap there")


def poll(after: str) -> tuple[list[tuple[int, str]], str]:
    """One answer of the feed after `after`: its (seq, fruit id) entries and `next`."""
    body = APIClient().get("/api/v1/changes", {"after": after}).json()
    return [(entry["seq"], entry["id"]) for entry in body["results"]], body["next"]


class Writer(threading.Thread):
    """Creates one fruit on its own connection, doing `pause` (if any) inside its
    transaction after the write, before the commit."""

    def __init__(self, name: str, number: int, pause=None):
        super().__init__(name=name)
        self.number, self.pause, self.error, self.fruit_id = number, pause, None, None

    def run(self):
        try:
            with transaction.atomic():
                self.fruit_id = fruit_create(
                    name=self.name, type="apple", catalog_number=self.number
                ).pk
                if self.pause is not None:
                    self.pause()
        except Exception as error:  # reported by the test's thread
            self.error = error
        finally:
            connections.close_all()


def waiting_for_the_feeds_lock() -> bool:
    return waiting_for_advisory_lock(recording.CHANGES_LOCK)


def test_a_change_made_first_but_committed_last_comes_after_the_one_committed_first():
    start = encode_cursor(0)
    written, release = threading.Event(), threading.Event()
    first = Writer("First", 1, pause=lambda: (written.set(), release.wait(WAIT)))
    first.start()
    assert written.wait(WAIT)  # its fruit is written; its transaction is open

    second = Writer("Second", 2)
    second.start()
    second.join(WAIT)
    seen, cursor = poll(start)
    assert [fruit_id for _, fruit_id in seen] == [second.fruit_id]

    release.set()
    first.join(WAIT)
    later, _ = poll(cursor)

    assert first.error is None and second.error is None
    assert [fruit_id for _, fruit_id in later] == [first.fruit_id]  # not skipped
    assert later[0][0] > seen[0][0]  # seq follows commit order


def test_a_writer_that_numbered_its_entry_first_holds_back_the_next_until_it_commits(
    monkeypatch,
):
    # The first writer stops inside its commit, its entry inserted (its seq taken), not yet
    # committed: the moment a reader would skip it if the second could commit now with a
    # larger seq. The second waits on the feed's lock instead, and commits after it.
    inserted, release = threading.Event(), threading.Event()
    write_entries = recording.write_entries

    def pausing_write_entries(items):
        write_entries(items)
        if threading.current_thread().name == "First":
            inserted.set()
            release.wait(WAIT)

    monkeypatch.setattr(recording, "write_entries", pausing_write_entries)
    start = encode_cursor(0)

    first = Writer("First", 1)
    first.start()
    assert inserted.wait(WAIT)
    second = Writer("Second", 2)
    second.start()
    wait_until(lambda: waiting_for_the_feeds_lock() or not second.is_alive())

    seen, cursor = poll(start)  # a reader polling in between
    release.set()
    first.join(WAIT)
    second.join(WAIT)
    assert first.error is None and second.error is None
    listed, _ = poll(cursor)  # and again, from where it got to

    entries = seen + listed  # without the lock: the second alone, the first skipped
    assert [fruit_id for _, fruit_id in entries] == [first.fruit_id, second.fruit_id]
    assert entries[0][0] < entries[1][0]
    assert seen == []  # the second waited for the first's commit
