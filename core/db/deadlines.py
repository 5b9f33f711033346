"""A bounded wait on a database that does not answer: each request's database time has a deadline.

The standard timeouts do not bound it. libpq's `connect_timeout` covers opening a connection,
PostgreSQL's `statement_timeout` is enforced by a server that runs, and TCP keepalives and
`tcp_user_timeout` by a peer that stops acknowledging. A server that hangs while its host still
acknowledges (stopped, stuck on its disk, a hung proxy or pooler in front) answers none of them,
and a worker waiting on a persistent connection would wait for good. So each request arms a
deadline over its thread's database connections (`request_started`) and disarms it when the
request ends (`request_finished`, after Django's own check of a connection that saw an error).
One watchdog thread per process shuts down the sockets of connections whose deadline passed: the
blocked call returns at once with the driver's `OperationalError`, which the API answers as a
JSON 503 and the site as an HTML 503 page, and Django discards the broken connection when the
request ends.

Only the socket is shut down (never closed from here), so the connection object stays the
request thread's to close; closing excludes the watchdog (`closing`, taken by the backend in
`core.db.backends.postgresql`), so a descriptor is never shut down after its connection
closed and the number went to another socket. Past the deadline the watchdog keeps cutting what
the thread opens, and the backend opens nothing more, until the request ends. SQLite never waits
on a peer: nothing is armed for it.
"""

import logging
import os
import socket
import threading
from time import monotonic, sleep

from django.conf import settings
from django.db import connections

logger = logging.getLogger(__name__)

TICK = 0.05  # seconds between the watchdog's looks at the deadlines


class Watchdog:
    """The deadlines of every armed thread of this process, watched by one daemon thread."""

    def __init__(self):
        self._lock = threading.Lock()
        # thread id -> (deadline, its connection wrappers, the connections already cut)
        self._deadlines: dict[int, tuple[float, list, set]] = {}
        self._thread: threading.Thread | None = None

    def arm(self, seconds: float) -> None:
        """Bound the current thread's database waits to `seconds` from now (until `disarm`)."""
        wrappers = [connections[alias] for alias in connections]
        wrappers = [w for w in wrappers if w.vendor == "postgresql"]
        if not wrappers:
            return
        with self._lock:
            self._deadlines[threading.get_ident()] = (monotonic() + seconds, wrappers, set())
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="database-deadlines", daemon=True
                )
                self._thread.start()

    def disarm(self) -> None:
        """The current thread no longer waits on the database for a request."""
        with self._lock:
            self._deadlines.pop(threading.get_ident(), None)

    def armed(self) -> bool:
        """Whether the current thread has a deadline."""
        with self._lock:
            return threading.get_ident() in self._deadlines

    def expired(self) -> bool:
        """Whether the current thread's deadline has passed (False when none is armed)."""
        with self._lock:
            armed = self._deadlines.get(threading.get_ident())
        return armed is not None and armed[0] <= monotonic()

    def closing(self):
        """Held while a connection closes: the watchdog shuts nothing down meanwhile."""
        return self._lock

    def _run(self) -> None:
        while True:
            sleep(TICK)
            now = monotonic()
            with self._lock:
                for deadline, wrappers, cut in self._deadlines.values():
                    if deadline <= now:
                        for wrapper in wrappers:
                            _shut_down(wrapper, cut)


def _shut_down(wrapper, cut: set) -> None:
    """Shut down the socket of `wrapper`'s open connection once (under the watchdog's lock)."""
    connection = wrapper.connection
    try:
        if connection is None or connection.closed or id(connection) in cut:
            return
        duplicate = socket.socket(fileno=os.dup(connection.fileno()))
    except Exception as error:  # the watchdog must outlive any one connection
        logger.debug("No socket to shut down: %s", error)
        return
    cut.add(id(connection))
    with duplicate:
        try:
            duplicate.shutdown(socket.SHUT_RDWR)
        except OSError:
            return  # already disconnected
    logger.warning(
        "Database %r did not answer within the request's deadline; its connection was cut.",
        wrapper.alias,
    )


WATCHDOG = Watchdog()


def arm_for_request(**kwargs) -> None:
    """`request_started`: the request's database deadline."""
    WATCHDOG.arm(settings.DATABASE_REQUEST_TIMEOUT)


def renew_for_next_step() -> None:
    """A long response made of many short steps (a streamed export's chunks): give the next
    step the request's whole deadline again. Each wait on the database stays bounded; the
    response as a whole is bounded by the size of what it streams. Nothing when not armed."""
    if WATCHDOG.armed():
        WATCHDOG.arm(settings.DATABASE_REQUEST_TIMEOUT)


def disarm_after_request(**kwargs) -> None:
    """`request_finished`: the request no longer waits on the database."""
    WATCHDOG.disarm()


KEYSET_CHUNK = 2000  # rows per query of a streamed export


def keyset_chunks(queryset, field: str = "pk", size: int = KEYSET_CHUNK):
    """The rows of `queryset` by `field` (unique, not null), `size` a query, each query after
    the last row of the one before (keyset: a deep chunk costs what the first did). The
    request's deadline is renewed before each query, so a long stream stays bounded a step at
    a time (`renew_for_next_step`)."""
    last = None
    while True:
        renew_for_next_step()
        rows = queryset.order_by(field)
        if last is not None:
            rows = rows.filter(**{f"{field}__gt": last})
        chunk = list(rows[:size])
        if not chunk:
            return
        yield chunk
        last = getattr(chunk[-1], field)
