"""Database triggers that record when rows were deleted, for migrations to install and remove.

A deleted row leaves nothing to date the change by; the trigger inserts the time into
`catalog_deletion` (`catalog.Deletion`) after every DELETE on a watched table, whoever deletes
(the ORM, a cascade, plain SQL). It only inserts, so deleting transactions never wait on it.
PostgreSQL runs it once per statement, SQLite once per row (it has no statement triggers; its
writers are serialised anyway). The time is when the row went (`clock_timestamp()`, not the
transaction's start), as `updated_at` is the time of the save.
"""

LOG_TABLE = "catalog_deletion"


def _names(table: str) -> tuple[str, str]:
    return f"{table}_log_deletion", f"{LOG_TABLE}_log"


def install_deletion_log(schema_editor, table: str) -> None:
    """Record the time in `catalog_deletion` after every DELETE on `table`."""
    trigger, function = _names(table)
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            # Names are the migrations' constants, never input.
            f"CREATE OR REPLACE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$ "  # noqa: S608
            f"BEGIN INSERT INTO {LOG_TABLE} (deleted_at) VALUES (clock_timestamp()); "
            "RETURN NULL; END $$"
        )
        schema_editor.execute(
            f"CREATE TRIGGER {trigger} AFTER DELETE ON {table} "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {function}()"
        )
    elif schema_editor.connection.vendor == "sqlite":
        # The text Django stores an aware UTC datetime as, to the microsecond.
        now = "strftime('%Y-%m-%d %H:%M:%f000', 'now')"
        schema_editor.execute(
            f"CREATE TRIGGER {trigger} AFTER DELETE ON {table} "  # noqa: S608 (constants)
            f"BEGIN INSERT INTO {LOG_TABLE} (deleted_at) VALUES ({now}); END"
        )


def remove_deletion_log(schema_editor, table: str) -> None:
    """Undo `install_deletion_log` (the function stays for the other tables' triggers)."""
    trigger, _ = _names(table)
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {trigger} ON {table}")
    elif schema_editor.connection.vendor == "sqlite":
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {trigger}")
