"""Purging deleted fruits past their retention: their kept images are deleted, and they can no
longer be restored nor are they listed as deleted. Their history stays readable."""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.db import connection, transaction
from django.db.models import Count, Q, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from catalog.models import KeptFruitImage
from history.models import PurgedFruit
from history.versions import deleted_fruits

DEFAULT_BATCH_SIZE = 100

# Restores and purges of deleted fruits take this transaction-scoped advisory lock on
# PostgreSQL, so that a restore never brings a fruit back while a purge deletes its images, and
# a purge never marks purged a fruit just restored (SQLite runs one writer at a time anyway).
DELETED_FRUITS_LOCK = 0x50_55_52_47_45  # "PURGE": any constant the application owns will do


def lock_deleted_fruits() -> None:
    """Take the lock that restores and purges share, until the transaction ends (PostgreSQL)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [DELETED_FRUITS_LOCK])


@dataclass
class Purge:
    """What a purge would remove or removed: deleted fruits, and the images kept of them (how
    many, how many bytes)."""

    fruits: int = 0
    images: int = 0
    bytes: int = 0


def _due(before: datetime):
    """The deletions, before `before`, of fruits that can still be restored."""
    return deleted_fruits().filter(history_date__lt=before)


def _left_over(before: datetime):
    """Images kept since before `before` whose fruit can no longer be restored: its deletion
    is no longer in the history (its historical rows were deleted)."""
    restorable = deleted_fruits().values("id")
    return KeptFruitImage.objects.filter(kept_at__lt=before).exclude(fruit_id__in=restorable)


def _counted(images) -> Purge:
    totals = images.aggregate(images=Count("pk"), bytes=Coalesce(Sum("size"), 0))
    return Purge(images=totals["images"], bytes=totals["bytes"])


def purgeable(before: datetime) -> Purge:
    """What a purge of the deletions before `before` would remove."""
    due = _due(before)
    images = KeptFruitImage.objects.filter(
        Q(fruit_id__in=due.values("id")) | Q(pk__in=_left_over(before).values("pk"))
    )
    found = _counted(images)
    found.fruits = due.count()
    return found


def purge_deleted(
    *,
    before: datetime,
    batch_size: int = DEFAULT_BATCH_SIZE,
    on_progress: Callable[[int], None] | None = None,
) -> Purge:
    """Purge the fruits deleted before `before` (and not restored since), the oldest deletions
    first, a batch of fruits per transaction: their kept images are deleted (without reading
    their bytes) and each is recorded as purged (`PurgedFruit`). Then the images kept since
    before `before` of fruits that can no longer be restored otherwise.

    Safe to run again (what is purged is not found again) and beside restores, which wait for a
    batch to commit (`lock_deleted_fruits`). `on_progress` is told the fruits of each batch.
    """
    done = Purge()
    while True:
        with transaction.atomic():
            lock_deleted_fruits()
            batch = list(
                _due(before)
                .order_by("history_date", "history_id")
                .values_list("id", "history_date")[:batch_size]
            )
            if not batch:
                break
            images = KeptFruitImage.objects.filter(fruit_id__in=[pk for pk, _ in batch])
            purged = _counted(images)
            images.delete()
            now = timezone.now()
            PurgedFruit.objects.bulk_create(
                PurgedFruit(fruit_id=pk, deleted_at=deleted_at, purged_at=now)
                for pk, deleted_at in batch
            )
        done.fruits += len(batch)
        done.images += purged.images
        done.bytes += purged.bytes
        if on_progress is not None:
            on_progress(len(batch))
    while True:
        with transaction.atomic():
            lock_deleted_fruits()
            pks = list(_left_over(before).order_by("pk").values_list("pk", flat=True)[:batch_size])
            if not pks:
                break
            images = KeptFruitImage.objects.filter(pk__in=pks)
            purged = _counted(images)
            images.delete()
        done.images += purged.images
        done.bytes += purged.bytes
    return done
