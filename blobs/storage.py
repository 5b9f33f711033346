"""How PostgreSQL stores byte columns: images out of line, without a compression attempt.

PostgreSQL compresses a large value with pglz before storing it out of line ("EXTENDED"). JPEG,
PNG, GIF and WebP bytes are compressed already, yet their first kilobyte (headers, tables) looks
compressible, so pglz runs over the whole value before giving up: most of an upload's INSERT
(docs/performance.md, "An upload"). "EXTERNAL" stores them out of line as they are. PDFs keep
the default, since their streams are not always compressed.

Migrations call `store_uncompressed`; it does nothing on other databases. A later `AlterField`
that changes a column's type resets its storage: run it again after one.
"""

from django.db import migrations


def _set_storage(app_label: str, model_name: str, columns: tuple[str, ...], storage: str):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        table = schema_editor.quote_name(apps.get_model(app_label, model_name)._meta.db_table)
        for column in columns:
            name = schema_editor.quote_name(column)
            schema_editor.execute(f"ALTER TABLE {table} ALTER COLUMN {name} SET STORAGE {storage}")

    return apply


def store_uncompressed(app_label: str, model_name: str, *columns: str) -> migrations.RunPython:
    """A reversible migration operation: `columns` stored EXTERNAL (back to EXTENDED)."""
    return migrations.RunPython(
        _set_storage(app_label, model_name, columns, "EXTERNAL"),
        _set_storage(app_label, model_name, columns, "EXTENDED"),
    )
