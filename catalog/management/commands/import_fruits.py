"""`manage.py import_fruits FILE [--dry-run]`: fruits from a CSV or XLSX file, all or nothing."""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from catalog.imports import import_fruits

# Files on the operator's disk may be larger than an upload (5 MiB), within reason: the whole
# file is read and checked before anything is written.
FILE_MAX_BYTES = 100 * 1024 * 1024
# Errors listed; the others are counted. A file wrong throughout (another layout, a column
# shifted) has an error or two in every row: a million lines say no more than the first ones.
ERRORS_LISTED = 100


class Command(BaseCommand):
    help = (
        "Import fruits from a CSV (UTF-8, comma or semicolon) or XLSX file: columns "
        "catalog_number, name, type and optionally synonyms (separated by ;). Rows are matched "
        f"by catalog number. Any error and nothing is written; the first {ERRORS_LISTED} "
        "errors are listed with their row and column, the others counted."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path, help="The CSV or XLSX file.")
        parser.add_argument(
            "--dry-run", action="store_true", help="Check and report; write nothing."
        )

    def handle(self, *args, **options):
        path = options["file"]
        limit = FILE_MAX_BYTES
        try:
            size = path.stat().st_size
            if size > limit:
                raise CommandError(f"{path} is {size} bytes; an import takes at most {limit}.")
            data = path.read_bytes()
        except OSError as error:
            raise CommandError(f"Cannot read {path}: {error.strerror}.") from None
        show_bar = self.stdout.isatty() and options["verbosity"] > 0
        with tqdm(unit="row", disable=not show_bar, file=sys.stderr) as bar:
            report = import_fruits(
                data,
                dry_run=options["dry_run"],
                progress=bar.update,
                bounded=False,
                errors_max=ERRORS_LISTED,
                file_name=path.name,
            )
        for error in report.errors:
            column = f", {error.field}" if error.field else ""
            self.stderr.write(f"row {error.row}{column}: {error.message}")
        if report.more_errors:
            plural = "s" if report.more_errors != 1 else ""
            self.stderr.write(f"… and {report.more_errors:,} more error{plural}.")
        line = report.summary()
        if report.errors:
            count = report.error_count
            plural = "s" if count != 1 else ""
            raise CommandError(f"{count} error{plural}: nothing written ({line}).")
        written = " (dry run: nothing written)" if options["dry_run"] else ""
        self.stdout.write(f"{line}{written}")
