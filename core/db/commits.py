"""Work a transaction does last, just before it commits, inside it.

Django runs hooks after a commit (`transaction.on_commit`), never before one. Some writes belong
at the very end of the transaction they record: the public change feed's entries take a lock
that orders them by commit, and the shorter that lock is held, the less writers wait on each
other. So the project's database backends (`core.db.backends`) commit in two steps: first the
work collected here, then the commit itself.

A write collects an item for a function (`before_commit(write_entries, item)`); just before the
transaction commits, each function is called once with its items, in the order they came. Items
collected inside a savepoint that rolls back are dropped with it, as `on_commit` drops its
hooks; a rolled-back transaction runs nothing. If the function fails, the transaction is rolled
back and the error raised: what it records never goes missing from a committed change.
"""

from collections.abc import Callable

from django.db import DEFAULT_DB_ALIAS, connections, transaction


class BeforeCommitMixin:
    """A database backend's wrapper that runs the collected work just before each commit."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # (the savepoints open when it was collected, the function, the item)
        self.collected_before_commit: list[tuple[frozenset, Callable, object]] = []

    def connect(self):
        super().connect()
        self.collected_before_commit = []

    def run_before_commit(self) -> None:
        """Call each function with its items collected so far, and forget them: what a commit
        does first (tests call it to see what their transaction, which never commits, wrote)."""
        collected, self.collected_before_commit = self.collected_before_commit, []
        grouped: dict[Callable, list] = {}
        for _, function, item in collected:
            grouped.setdefault(function, []).append(item)
        for function, items in grouped.items():
            function(items)

    def commit(self):
        try:
            self.run_before_commit()
        except BaseException:
            # Nothing of the transaction may commit without what it records. (`atomic` rolls
            # back after a database error itself; a second rollback is a no-op.)
            self.rollback()
            raise
        super().commit()

    def rollback(self):
        self.collected_before_commit = []
        super().rollback()

    def savepoint_rollback(self, sid):
        super().savepoint_rollback(sid)
        self.collected_before_commit = [
            entry for entry in self.collected_before_commit if sid not in entry[0]
        ]

    def close(self):
        self.collected_before_commit = []
        super().close()


def before_commit(function: Callable[[list], None], item, *, using: str | None = None) -> None:
    """Call `function` with `item` (and the other items collected for it) just before the
    current transaction commits, inside it.

    Outside a transaction the item is a transaction of its own, run at once. A backend without
    `BeforeCommitMixin` (not the project's) calls `function` at once, in the transaction.
    """
    connection = connections[using or DEFAULT_DB_ALIAS]
    if not hasattr(connection, "collected_before_commit"):
        function([item])
        return
    if connection.get_autocommit():
        with transaction.atomic(using=using):
            before_commit(function, item, using=using)
        return
    connection.collected_before_commit.append((frozenset(connection.savepoint_ids), function, item))
