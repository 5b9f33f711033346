"""Database triggers that stamp when rows were deleted, for migrations to install and remove.

A deleted row leaves nothing to date the change by; the trigger writes the time into a one-row
table (`catalog.DeletionMark`) after every DELETE on a watched table, whoever deletes (the
ORM, a cascade, plain SQL). PostgreSQL runs it once per statement, SQLite once per row (it has
no statement triggers; its writers are serialised anyway). The stamp is the time the row went
(`clock_timestamp()`, not the transaction's start), as `updated_at` is the time of the save.
"""

MARK_TABLE = "catalog_deletionmark"


def _names(table: str) -> tuple[str, str]:
    return f"{table}_stamp_deletion", f"{MARK_TABLE}_stamp"


def install_deletion_stamp(schema_editor, table: str) -> None:
    """Stamp `catalog_deletionmark.deleted_at` after every DELETE on `table`."""
    trigger, function = _names(table)
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            # Names are the migrations' constants, never input.
            f"CREATE OR REPLACE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$ "  # noqa: S608
            f"BEGIN UPDATE {MARK_TABLE} SET deleted_at = clock_timestamp() WHERE id = 1; "
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
            f"BEGIN UPDATE {MARK_TABLE} SET deleted_at = {now} WHERE id = 1; END"
        )


def remove_deletion_stamp(schema_editor, table: str) -> None:
    """Undo `install_deletion_stamp` (the function stays for the other tables' triggers)."""
    trigger, _ = _names(table)
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {trigger} ON {table}")
    elif schema_editor.connection.vendor == "sqlite":
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {trigger}")
