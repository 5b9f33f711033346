"""Django's PostgreSQL backend, aware of the request's database deadline.

Three small additions, nothing else changed: a connection is not opened once the thread's
deadline has passed (the request answers 503 at once instead of waiting `connect_timeout`
again), closing a connection excludes the watchdog, so it never shuts down a socket
descriptor the operating system has handed to something else meanwhile, and a commit first runs
the work collected for it (`core.db.commits`).
"""

import psycopg
from django.db.backends.postgresql import base

from core.db.commits import BeforeCommitMixin
from core.db.deadlines import WATCHDOG


class DatabaseWrapper(BeforeCommitMixin, base.DatabaseWrapper):
    def get_new_connection(self, conn_params):
        if WATCHDOG.expired():
            raise psycopg.OperationalError(
                "the request's database deadline has passed; not opening a new connection"
            )
        return super().get_new_connection(conn_params)

    def _close(self):
        with WATCHDOG.closing():
            return super()._close()
