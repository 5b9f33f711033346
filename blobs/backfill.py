"""Thumbnail backfill: one implementation for the admin endpoint, admin action and command."""

from collections.abc import Callable
from dataclasses import dataclass, field
from time import monotonic

from django.apps import apps
from django.db import connection, transaction

DEFAULT_BATCH_SIZE = 50

ProgressCallback = Callable[[str, int], None]


@dataclass
class BackfillResult:
    """What a backfill did for one image model."""

    generated: int = 0
    failed: int = 0
    failed_ids: list[int] = field(default_factory=list)

    def as_dict(self) -> dict:
        """The API's result body for one model."""
        return {"generated": self.generated, "failed": self.failed, "failed_ids": self.failed_ids}


def thumbnailed_models() -> list:
    """Every model with thumbnails to backfill, in every installed app.

    Such a model names its `backfill_key`, offers `objects.missing_thumbnail()` and a
    `backfill_thumbnail(pk)` that makes and writes one row's thumbnail (False when its bytes
    cannot be decoded): the thumbnailed images, and publications for their covers.
    """
    return [model for model in apps.get_models() if getattr(model, "backfill_key", None)]


def pending_count(model) -> int:
    """How many images of `model` have no thumbnail."""
    return model.objects.missing_thumbnail().count()


def _lock_batch(model, after_pk: int, size: int) -> list[int]:
    """Ids of the next batch without thumbnails, locked against concurrent runs.

    Only ids are selected: the bytes are read one image at a time, so memory holds one image,
    whatever the batch size. On PostgreSQL, `SKIP LOCKED` hands each concurrent run other rows.
    """
    queryset = model.objects.missing_thumbnail().filter(pk__gt=after_pk).order_by("pk")
    if connection.features.has_select_for_update_skip_locked:
        queryset = queryset.select_for_update(skip_locked=True, of=("self",))
    return list(queryset.values_list("pk", flat=True)[:size])


def remaining_count(model, result: BackfillResult) -> int:
    """Images of `model` still without a thumbnail, except those this run found undecodable.

    Undecodable images stay as they are; counting them would keep a client calling forever.
    """
    return model.objects.missing_thumbnail().exclude(pk__in=result.failed_ids).count()


def _out_of_time(deadline: float | None) -> bool:
    return deadline is not None and monotonic() >= deadline


def backfill_model(
    model,
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    limit: int | None = None,
    deadline: float | None = None,
    on_progress: ProgressCallback | None = None,
) -> BackfillResult:
    """Generate missing thumbnails of one model, committing per batch.

    Stops between two images once `monotonic()` passes `deadline`, keeping what it did.
    """
    result = BackfillResult()
    after_pk = 0
    key = model.backfill_key
    while (limit is None or result.generated + result.failed < limit) and not _out_of_time(
        deadline
    ):
        size = (
            batch_size
            if limit is None
            else min(batch_size, limit - result.generated - result.failed)
        )
        with transaction.atomic():
            batch = _lock_batch(model, after_pk, size)
            if not batch:
                break
            for pk in batch:
                if _out_of_time(deadline):
                    break
                after_pk = pk
                if model.backfill_thumbnail(pk):
                    result.generated += 1
                else:
                    result.failed += 1
                    result.failed_ids.append(pk)
                if on_progress is not None:
                    on_progress(key, 1)
    return result


def backfill_thumbnails(
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    limit: int | None = None,
    seconds: float | None = None,
    on_progress: ProgressCallback | None = None,
    models=None,
) -> dict[str, BackfillResult]:
    """Generate thumbnails for every thumbnailed image stored without one, keyed by model.

    `limit` caps the images processed per model; `seconds` bounds the whole run (what is left
    waits for the next run); `models` narrows the run (the admin action).
    """
    deadline = None if seconds is None else monotonic() + seconds
    return {
        model.backfill_key: backfill_model(
            model, batch_size=batch_size, limit=limit, deadline=deadline, on_progress=on_progress
        )
        for model in models or thumbnailed_models()
    }
