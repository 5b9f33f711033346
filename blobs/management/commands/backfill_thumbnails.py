"""`manage.py backfill_thumbnails`: thumbnails for images stored without one."""

import sys

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from blobs.backfill import (
    DEFAULT_BATCH_SIZE,
    backfill_thumbnails,
    pending_count,
    thumbnailed_models,
)


def positive_int(value: str) -> int:
    """argparse type: a whole number of at least 1."""
    number = int(value)
    if number < 1:
        raise ValueError(value)
    return number


class Command(BaseCommand):
    help = (
        "Generate thumbnails for fruit images and publication fruit images stored without one "
        "(bulk inserts, QuerySet.update, loaddata, rows from before thumbnails). Safe to run again "
        "and to run concurrently."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--batch-size",
            type=positive_int,
            default=DEFAULT_BATCH_SIZE,
            help=f"Images per transaction (default: {DEFAULT_BATCH_SIZE}).",
        )
        parser.add_argument(
            "--limit",
            type=positive_int,
            default=None,
            help="Process at most this many images of each kind (default: all).",
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="Only count what needs a thumbnail (default: off).",
        )

    def handle(self, *args, batch_size, limit, dry_run, **options):
        models = thumbnailed_models()
        pending = {model.backfill_key: pending_count(model) for model in models}
        total = sum(
            pending.values() if limit is None else (min(n, limit) for n in pending.values())
        )
        if total == 0:
            self.stdout.write(self.style.SUCCESS("Every image has a thumbnail: nothing to do."))
            return
        if dry_run:
            for key, count in pending.items():
                shown = count if limit is None else min(count, limit)
                self.stdout.write(f"{key}: {shown} without a thumbnail")
            self.stdout.write(
                self.style.SUCCESS(f"Dry run: {total} thumbnails would be generated.")
            )
            return

        show_bar = self.stdout.isatty() and options.get("verbosity", 1) > 0
        with tqdm(total=total, unit="image", disable=not show_bar, file=sys.stderr) as bar:
            results = backfill_thumbnails(
                batch_size=batch_size, limit=limit, on_progress=lambda key, n: bar.update(n)
            )

        failed = 0
        for key, result in results.items():
            line = f"{key}: {result.generated} generated, {result.failed} failed"
            self.stdout.write(line)
            if result.failed_ids:
                self.stderr.write(
                    f"{key}: could not decode image ids {', '.join(map(str, result.failed_ids))}"
                )
            failed += result.failed
        generated = sum(result.generated for result in results.values())
        if failed:
            raise CommandError(
                f"{generated} thumbnails generated, {failed} images could not be decoded."
            )
        self.stdout.write(self.style.SUCCESS(f"{generated} thumbnails generated."))
