"""Races reproduced deterministically: a concurrent delete committing at a chosen moment, and
sessions of their own waiting for a lock (PostgreSQL)."""

import threading

from django.db import connection

WAIT_SECONDS = 10  # a step that takes longer has deadlocked


def deleting_after(monkeypatch, owner, name, delete):
    """Make `owner.name` return as before, then run `delete` (a concurrent delete commits)."""
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        result = original(*args, **kwargs)
        delete()
        return result

    monkeypatch.setattr(owner, name, wrapper)


def waiting_for_advisory_lock(key: int) -> bool:
    """Whether another session waits for the advisory lock `key` (a 64-bit key), PostgreSQL."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
            "AND classid = %s AND objid = %s",
            [key >> 32, key & 0xFFFFFFFF],
        )
        return cursor.fetchone()[0] > 0


def wait_until(condition, seconds: int = WAIT_SECONDS) -> None:
    """Poll `condition` until it holds; fail the test after `seconds`."""
    pause = threading.Event()
    for _ in range(seconds * 20):
        if condition():
            return
        pause.wait(0.05)
    raise AssertionError("timed out")
