"""Django's SQLite backend whose commit first runs the work collected for it
(`core.db.commits`), as the PostgreSQL backend's does; nothing else changed."""

from django.db.backends.sqlite3 import base

from core.db.commits import BeforeCommitMixin


class DatabaseWrapper(BeforeCommitMixin, base.DatabaseWrapper):
    pass
