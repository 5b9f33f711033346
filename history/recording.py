"""Record every change in the historical tables, in the change's own transaction.

Saves and deletes of the recorded models are recorded by django-simple-history's own receivers
(post_save, post_delete); here each historical row is stamped with its door's revision, door,
import and action (`core.history.current_door`), and the rows written without `save()`, which
the apps announce (`core.history.rows_written`), are recorded in one insert per model.
"""

from django.conf import settings
from django.dispatch import receiver
from django.utils import timezone
from simple_history.signals import pre_create_historical_record

from core.history import current_door, rows_written
from history.models import RECORDED


def stamp(door) -> dict:
    """The `Recorded` columns of a row written through `door` (None: outside any door)."""
    if door is None:
        return {"via": "command"}
    return {"revision": door.revision, "via": door.via, "batch": door.batch, "action": door.action}


@receiver(pre_create_historical_record)
def stamp_row(sender, history_instance, **kwargs):
    for name, value in stamp(current_door()).items():
        setattr(history_instance, name, value)


RECORDED_MODELS = {model for model, _ in RECORDED}


@receiver(rows_written)
def record_rows(sender, model, rows, action, **kwargs):
    if model not in RECORDED_MODELS:
        return
    door = current_door()
    user = door.writer if door is not None else None
    if action != "deleted":
        model.history.bulk_history_create(
            rows, update=action == "changed", default_user=user, custom_historical_attrs=stamp(door)
        )
        return
    if not getattr(settings, "SIMPLE_HISTORY_ENABLED", True):
        return  # switched off, as simple-history's own receivers are
    historical = model.history.model
    tracked = historical.tracked_fields
    now = timezone.now()
    historical.objects.bulk_create(
        historical(
            history_date=now,
            history_user=user,
            history_type="-",
            **{field.attname: getattr(row, field.attname) for field in tracked},
            **stamp(door),
        )
        for row in rows
    )
