"""Forgetting the feed's old entries, and remembering how far: a cursor from before is a 410."""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from changes.models import Change, PrunedThrough

DEFAULT_BATCH_SIZE = 10_000


@dataclass
class Pruning:
    """What pruning would delete or deleted: how many entries, through which `seq`."""

    deleted: int = 0
    through: int = 0


def prunable(before: datetime) -> Pruning:
    """The entries committed before `before`: how many, and the newest `seq` among them."""
    old = Change.objects.filter(at__lt=before)
    through = old.aggregate(newest=Max("seq"))["newest"] or 0
    count = Change.objects.filter(seq__lte=through).count() if through else 0
    return Pruning(deleted=count, through=through)


def prune_changes(
    *,
    before: datetime,
    batch_size: int = DEFAULT_BATCH_SIZE,
    on_progress: Callable[[int], None] | None = None,
) -> Pruning:
    """Delete the entries committed before `before` (and any older `seq`), a batch per
    transaction, oldest first.

    Each batch moves the remembered boundary (`PrunedThrough`) in the transaction that deletes
    its entries: a reader, which reads its entries before the boundary, either sees the entries
    or the boundary that makes its cursor a 410, never neither. Safe to run again and
    concurrently; the boundary never moves back.
    """
    target = prunable(before).through
    done = Pruning(through=target)
    while target:
        with transaction.atomic():
            seqs = list(
                Change.objects.filter(seq__lte=target)
                .order_by("seq")
                .values_list("seq", flat=True)[:batch_size]
            )
            if not seqs:
                break
            deleted, _ = Change.objects.filter(seq__lte=seqs[-1]).delete()
            _remember(seqs[-1])
        done.deleted += deleted
        if on_progress is not None:
            on_progress(deleted)
    return done


def _remember(seq: int) -> None:
    """Move the boundary to `seq` unless it is already further (under its row's lock)."""
    boundary, created = PrunedThrough.objects.select_for_update().get_or_create(
        pk=1, defaults={"seq": seq, "pruned_at": timezone.now()}
    )
    if not created and boundary.seq < seq:
        boundary.seq, boundary.pruned_at = seq, timezone.now()
        boundary.save(update_fields=["seq", "pruned_at"])
