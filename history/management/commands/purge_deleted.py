"""`manage.py purge_deleted`: deleted fruits past their retention can no longer be restored."""

import sys
from datetime import timedelta

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.template.defaultfilters import filesizeformat
from django.utils import timezone
from tqdm import tqdm

from history.purging import DEFAULT_BATCH_SIZE, Purge, purge_deleted, purgeable


def positive_int(value: str) -> int:
    """argparse type: a whole number of at least 1."""
    number = int(value)
    if number < 1:
        raise ValueError(value)
    return number


def described(purge: Purge) -> str:
    """ "2 deleted fruits (3 kept images, 1.2 MB)"."""
    return (
        f"{purge.fruits} deleted fruits ({purge.images} kept images, {filesizeformat(purge.bytes)})"
    )


class Command(BaseCommand):
    help = (
        "Purge the fruits deleted more than FRUITCATALOG_DELETED_RETENTION_DAYS ago (30 by "
        "default; 0: every deleted fruit): the images kept for their restore are deleted, and "
        "they can no longer be restored nor are they listed as deleted; their history stays. "
        "Safe to run again and beside the service; run it daily."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--batch-size",
            type=positive_int,
            default=DEFAULT_BATCH_SIZE,
            help=f"Deleted fruits purged per transaction (default: {DEFAULT_BATCH_SIZE}).",
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="Only count what would be purged (default: off).",
        )

    def handle(self, *args, batch_size, dry_run, **options):
        days = settings.FRUITCATALOG_DELETED_RETENTION_DAYS
        if days < 0:
            raise CommandError(
                f"FRUITCATALOG_DELETED_RETENTION_DAYS must be 0 or more, got {days}."
            )
        before = timezone.now() - timedelta(days=days)
        pending = purgeable(before)
        if pending.fruits == 0 and pending.images == 0:
            self.stdout.write(
                self.style.SUCCESS(
                    f"No fruit was deleted more than {days} days ago: nothing to do."
                )
            )
            return
        if dry_run:
            self.stdout.write(
                self.style.SUCCESS(
                    f"Dry run: {described(pending)} deleted more than {days} days ago would be "
                    "purged."
                )
            )
            return

        show_bar = self.stdout.isatty() and options.get("verbosity", 1) > 0
        with tqdm(total=pending.fruits, unit="fruit", disable=not show_bar, file=sys.stderr) as bar:
            done = purge_deleted(before=before, batch_size=batch_size, on_progress=bar.update)
        self.stdout.write(
            self.style.SUCCESS(
                f"{described(done)} deleted more than {days} days ago purged: they can no longer "
                "be restored."
            )
        )
