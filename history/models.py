"""The historical tables: a row for each state of each recorded row (django-simple-history).

The models of the apps below are registered here, so their historical tables live in this app
and the apps themselves know nothing of history. Bytes are never copied (an image is recorded by
its id, size and SHA-256); derived columns (search text, timestamps) are left out. Each row
carries, besides simple-history's date, user and type (`+` created, `~` changed, `-` deleted),
the revision it belongs to, its door and its import (`Recorded`).
"""

import uuid

import simple_history
from django.db import models
from django.utils.translation import gettext_lazy
from simple_history.models import HistoricalRecords

from catalog.models import Fruit, FruitImage, FruitName, FruitRelation
from core.history import AnnouncedDeletes
from identification.models import (
    Characteristic,
    CharacteristicState,
    FruitCharacteristic,
    FruitCharacteristicState,
)
from publications.models import Publication, PublicationFruit


class Via(models.TextChoices):
    """The door a change came through."""

    API = "api"
    ADMIN = "admin"
    IMPORT = "import"
    COMMAND = "command"


class Action(models.TextChoices):
    """What a version did to its object."""

    CREATED = "created", gettext_lazy("Created")
    CHANGED = "changed", gettext_lazy("Changed")
    DELETED = "deleted", gettext_lazy("Deleted")
    RESTORED = "restored", gettext_lazy("Restored")
    REVERTED = "reverted", gettext_lazy("Reverted")


class PurgedFruit(models.Model):
    """A deleted fruit purged (`manage.py purge_deleted`): its kept images are gone, and it can
    no longer be restored nor is it listed as deleted. Its history stays readable."""

    fruit_id = models.BigIntegerField(primary_key=True)
    deleted_at = models.DateTimeField(help_text="When it was deleted, the last time.")
    purged_at = models.DateTimeField()

    def __str__(self):
        return f"fruit {self.fruit_id}, purged"


class Recorded(models.Model):
    """What each historical row holds besides simple-history's own columns."""

    revision = models.UUIDField(default=uuid.uuid4, db_index=True)
    via = models.CharField(max_length=8, choices=Via.choices, default=Via.COMMAND)
    batch = models.BigIntegerField(null=True, blank=True, db_index=True)
    action = models.CharField(max_length=8, choices=Action.choices, blank=True, default="")

    class Meta:
        abstract = True


def _writer(instance, request=None, **kwargs):
    """The user recorded: the door's (`core.history`)."""
    from core.history import current_door

    door = current_door()
    return door.writer if door is not None else None


class AnnouncedRecords(HistoricalRecords):
    """For a model whose deletions are announced (`core.history.rows_written`: rows with bytes,
    by `blobs` with their metadata only; the others, `core.history.AnnouncedDeletes`), not
    received from Django's delete signals, whose mere presence makes the deletion collector load
    every row (every column, bytes too) a deletion, a cascade or a protection check visits, and
    records each deleted row with a statement of its own."""

    def finalize(self, sender, **kwargs):
        super().finalize(sender, **kwargs)
        if sender is self.cls:
            models.signals.post_delete.disconnect(self.post_delete, sender=sender)
            models.signals.pre_delete.disconnect(self.pre_delete, sender=sender)


BYTES = ["data", "thumbnail_data"]
RECORDED = [
    (Fruit, ["search_text", "updated_at"]),
    (FruitName, []),
    (FruitRelation, []),
    (FruitImage, [*BYTES, "updated_at"]),
    (FruitCharacteristic, ["updated_at"]),
    (FruitCharacteristicState, []),
    (Publication, ["cover_data", "cover_thumbnail_data", "search_text", "updated_at"]),
    (PublicationFruit, ["description_data", "updated_at"]),
    (Characteristic, ["updated_at"]),
    (CharacteristicState, []),
]
WITH_BYTES = {FruitImage, PublicationFruit, Publication}
# Every recorded model announces its deletions: those with bytes, and the `AnnouncedDeletes`.
ANNOUNCED = WITH_BYTES | {model for model, _ in RECORDED if issubclass(model, AnnouncedDeletes)}

for _model, _excluded in RECORDED:
    simple_history.register(
        _model,
        records_class=AnnouncedRecords if _model in ANNOUNCED else HistoricalRecords,
        app="history",
        bases=[Recorded],
        excluded_fields=_excluded,
        get_user=_writer,
        user_db_constraint=False,
    )
