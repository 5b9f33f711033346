"""Record every change in the historical tables, in the change's own transaction.

Saves of the recorded models are recorded by django-simple-history's own receiver (post_save);
here each historical row is stamped with its door's revision, door, import and action
(`core.history.current_door`), and the rows written without `save()`, which the apps announce
(`core.history.rows_written`: `bulk_create`, `update`, and every deletion, see
`core.history.AnnouncedDeletes`), are copied in the database, a statement per model and
announcement.
"""

import uuid

from django.conf import settings
from django.db.models import Value
from django.dispatch import receiver
from django.utils import timezone
from simple_history.signals import pre_create_historical_record

from core.db.copies import insert_select
from core.history import current_door, rows_written
from history.models import RECORDED


def stamp(door) -> dict:
    """The `Recorded` columns of a row written through `door` (None: outside any door)."""
    if door is None:  # a revision of its own
        return {"revision": uuid.uuid4(), "via": "command", "batch": None, "action": ""}
    return {"revision": door.revision, "via": door.via, "batch": door.batch, "action": door.action}


@receiver(pre_create_historical_record)
def stamp_row(sender, history_instance, **kwargs):
    for name, value in stamp(current_door()).items():
        setattr(history_instance, name, value)


RECORDED_MODELS = {model for model, _ in RECORDED}


HISTORY_TYPES = {"created": "+", "changed": "~", "deleted": "-"}


@receiver(rows_written)
def record_rows(sender, model, rows, action, **kwargs):
    """Record announced rows in one `INSERT … SELECT` per call: the database copies their
    values (bytes never: the historical tables have no byte columns), none pass through Python.
    A deletion is announced before the rows go, so they are still there to copy."""
    if model not in RECORDED_MODELS or not getattr(settings, "SIMPLE_HISTORY_ENABLED", True):
        return
    door = current_door()
    user = door.writer if door is not None else None
    historical = model.history.model
    constants = {
        **stamp(door),
        "history_date": timezone.now(),
        "history_type": HISTORY_TYPES[action],
        "history_user": user.pk if user is not None else None,
        "history_change_reason": None,
    }
    columns = {field.attname: field.attname for field in historical.tracked_fields}
    for name, value in constants.items():
        columns[name] = Value(value, output_field=historical._meta.get_field(name))
    ids = [row.pk for row in rows]
    for start in range(0, len(ids), ROWS_PER_COPY):
        chosen = model._base_manager.filter(pk__in=ids[start : start + ROWS_PER_COPY])
        insert_select(historical, chosen, columns)


ROWS_PER_COPY = 1_000  # ids a copy names: within every database's limit of parameters
