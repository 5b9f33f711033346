"""Work a request may skip when it costs too much: statements with a time budget of their own."""

import contextlib

from django.db import OperationalError, connection, transaction


class OutOfTime(Exception):
    """A statement run under `time_budget` outlasted it and was cancelled."""


@contextlib.contextmanager
def time_budget(milliseconds: int):
    """A transaction whose statements PostgreSQL cancels after `milliseconds` each, raising
    `OutOfTime` (the transaction is rolled back, the connection stays usable).

    For optional work with a bounded worth, such as guessing at a misspelling. Other database
    errors pass through, so a database that is down is still a 503. Elsewhere (SQLite) the
    block runs without a budget.
    """
    postgresql = connection.vendor == "postgresql"
    before = None
    try:
        with transaction.atomic():
            if postgresql:
                with connection.cursor() as cursor:
                    # Local to the transaction (SET takes no parameters; set_config does).
                    cursor.execute(
                        "SELECT current_setting('statement_timeout'), "
                        "set_config('statement_timeout', %s, true)",
                        [f"{milliseconds}ms"],
                    )
                    before = cursor.fetchone()[0]
            yield
    except OperationalError as error:
        from psycopg.errors import QueryCanceled

        if isinstance(error.__cause__, QueryCanceled):
            raise OutOfTime(f"outlasted {milliseconds} ms") from error
        raise
    finally:
        # Inside an outer transaction the setting would outlive this block: set it back.
        if before is not None and connection.in_atomic_block and not connection.needs_rollback:
            with connection.cursor() as cursor:
                cursor.execute("SELECT set_config('statement_timeout', %s, true)", [before])
