"""A first version of every row stored before the history was installed: its state now, as a
command's (so that such a fruit can be reverted to it, and an import that changes it undone).

One `INSERT … SELECT` per recorded table, of the rows without any historical row; all share the
revision `BASELINE`, which the reverse removes.
"""

import uuid

from django.db import migrations
from django.utils import timezone

BASELINE = uuid.UUID("00000000-0000-4000-8000-000000000001")
HISTORY_ONLY = {
    "history_id",
    "history_date",
    "history_change_reason",
    "history_type",
    "history_user",
    "revision",
    "via",
    "batch",
    "action",
}
RECORDED = [
    ("catalog", "Fruit"),
    ("catalog", "FruitName"),
    ("catalog", "FruitRelation"),
    ("catalog", "FruitImage"),
    ("identification", "FruitCharacteristic"),
    ("identification", "FruitCharacteristicState"),
    ("publications", "Publication"),
    ("publications", "PublicationFruit"),
    ("identification", "Characteristic"),
    ("identification", "CharacteristicState"),
]


def revision_value(connection):
    return str(BASELINE) if connection.vendor == "postgresql" else BASELINE.hex


def record_baseline(apps, schema_editor):
    connection = schema_editor.connection
    quote = connection.ops.quote_name
    for app_label, name in RECORDED:
        source = apps.get_model(app_label, name)._meta.db_table
        historical = apps.get_model("history", f"Historical{name}")._meta
        columns = [
            field.column for field in historical.concrete_fields if field.name not in HISTORY_ONLY
        ]
        listed = ", ".join(quote(column) for column in columns)
        table = quote(historical.db_table)
        schema_editor.execute(
            f"INSERT INTO {table} ({listed}, revision, via, batch, action, history_date, "  # noqa: S608
            f"history_change_reason, history_type, history_user_id) "
            f"SELECT {', '.join(f's.{quote(c)}' for c in columns)}, %s, 'command', NULL, '', %s, "
            f"NULL, '+', NULL FROM {quote(source)} s WHERE NOT EXISTS "
            f"(SELECT 1 FROM {table} h WHERE h.id = s.id)",
            [revision_value(connection), connection.ops.adapt_datetimefield_value(timezone.now())],
        )


def remove_baseline(apps, schema_editor):
    for _, name in RECORDED:
        historical = apps.get_model("history", f"Historical{name}")
        historical.objects.filter(revision=BASELINE).delete()


class Migration(migrations.Migration):
    dependencies = [("history", "0002_purgedfruit")]

    operations = [migrations.RunPython(record_baseline, remove_baseline)]
