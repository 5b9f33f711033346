"""`manage.py prune_changes`: forget the change feed's entries older than its retention."""

import sys
from datetime import timedelta

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone
from tqdm import tqdm

from changes.pruning import DEFAULT_BATCH_SIZE, prunable, prune_changes


def positive_int(value: str) -> int:
    """argparse type: a whole number of at least 1."""
    number = int(value)
    if number < 1:
        raise ValueError(value)
    return number


class Command(BaseCommand):
    help = (
        "Delete the change feed's entries older than FRUITCATALOG_CHANGES_RETENTION_DAYS "
        "(365 by default) and remember how far it pruned: a cursor from before is answered "
        "410, and its client starts again from a full export. Safe to run again and to run "
        "concurrently; run it daily."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--batch-size",
            type=positive_int,
            default=DEFAULT_BATCH_SIZE,
            help=f"Entries deleted per transaction (default: {DEFAULT_BATCH_SIZE}).",
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="Only count what would be deleted (default: off).",
        )

    def handle(self, *args, batch_size, dry_run, **options):
        days = settings.FRUITCATALOG_CHANGES_RETENTION_DAYS
        if days < 0:
            raise CommandError(
                f"FRUITCATALOG_CHANGES_RETENTION_DAYS must be 0 or more, got {days}."
            )
        before = timezone.now() - timedelta(days=days)
        pending = prunable(before)
        if pending.deleted == 0:
            self.stdout.write(
                self.style.SUCCESS(f"No entry is older than {days} days: nothing to do.")
            )
            return
        if dry_run:
            self.stdout.write(
                self.style.SUCCESS(
                    f"Dry run: {pending.deleted} entries older than {days} days would be "
                    f"deleted, through seq {pending.through}."
                )
            )
            return

        show_bar = self.stdout.isatty() and options.get("verbosity", 1) > 0
        with tqdm(
            total=pending.deleted, unit="entry", disable=not show_bar, file=sys.stderr
        ) as bar:
            done = prune_changes(before=before, batch_size=batch_size, on_progress=bar.update)
        self.stdout.write(
            self.style.SUCCESS(
                f"{done.deleted} entries older than {days} days deleted; cursors before seq "
                f"{done.through} now answer 410."
            )
        )
