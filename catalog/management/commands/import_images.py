"""`manage.py import_images DIR_OR_ZIP [--dry-run]`: photos named by catalog number, attached.

`1042.jpg`, `1042-2.png` and `1042_section.webp` go to the fruit numbered 1042 (a suffix that is
an image role, such as `_section` or `-blossom`, sets the image's role). Each file passes the
checks of an upload; bytes the fruit already has are skipped, so running it again adds nothing.
One file is read at a time: memory stays flat over thousands of photos.
"""

import re
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from blobs import imaging
from blobs.rights import ImageRole
from blobs.uploads import (
    apply_image_upload,
    store_image_unless_duplicate,
)
from catalog.models import Fruit, FruitImage

FILE_NAME = re.compile(
    r"^(?P<number>\d{1,10})(?:[-_](?P<suffix>[^/]*))?\.(jpe?g|png|gif|webp)$", re.I
)


class Command(BaseCommand):
    help = (
        "Attach image files named by catalog number (1042.jpg, 1042-2.png, 1042_section.webp) "
        "in a folder or a zip file to their fruits. Exits 1 when any file failed."
    )

    def add_arguments(self, parser):
        parser.add_argument("source", type=Path, help="A folder or a .zip file.")
        parser.add_argument(
            "--dry-run", action="store_true", help="Check every file; store nothing."
        )

    def handle(self, *args, **options):
        source, dry_run = options["source"], options["dry_run"]
        counts = {"added": 0, "skipped": 0, "failed": 0}
        self.fruits: dict[int, Fruit | None] = {}  # by catalog number, looked up once
        for name, size, read in files_in(source):
            outcome, message = self.attach(name, size, read, dry_run=dry_run)
            counts[outcome] += 1
            line = f"{name}: {message}"
            (self.stderr if outcome == "failed" else self.stdout).write(line)
        verb = "would be added" if dry_run else "added"
        summary = (
            f"{counts['added']} {verb}, {counts['skipped']} skipped, {counts['failed']} failed"
        )
        if counts["failed"]:
            raise CommandError(summary)
        self.stdout.write(summary)

    def attach(self, name: str, size: int, read: Callable[[], bytes], *, dry_run: bool):
        match = FILE_NAME.match(Path(name).name)
        if match is None:
            return (
                "failed",
                "not named by a catalog number (1042.jpg, 1042-2.png, 1042_section.webp)",
            )
        number = int(match["number"])
        if number not in self.fruits:  # 1042.jpg, 1042-2.png, 1042_section.webp: one fruit
            self.fruits[number] = (
                Fruit.objects.only("pk", "name").filter(catalog_number=number).first()
            )
        fruit = self.fruits[number]
        if fruit is None:
            return "failed", f"no fruit has the catalog number {number}"
        limit = settings.FRUITCATALOG_MAX_UPLOAD_BYTES
        if size > limit:
            return "failed", f"larger than the upload limit of {limit} bytes"
        data = read()
        suffix = (match["suffix"] or "").lower()
        image = FruitImage(
            fruit=fruit, role=suffix if suffix in ImageRole.values else ImageRole.FRUIT
        )
        try:
            # The same checks either way (the thumbnail made too): a dry run that passes, passes.
            apply_image_upload(image, data)
            duplicate = image.duplicate_id() if dry_run else store_image_unless_duplicate(image)
        except (ValidationError, imaging.ImageError) as error:
            messages = getattr(error, "messages", None) or [str(error)]
            return "failed", " ".join(messages)
        if duplicate is not None:
            return "skipped", f"{fruit} already has these bytes as image {duplicate}"
        if dry_run:
            return "added", f"would be added to {fruit}"
        return "added", f"added to {fruit} as image {image.pk}"


def files_in(source: Path) -> Iterator[tuple[str, int, Callable[[], bytes]]]:
    """(name, size, read) of each file in a folder or a zip, by name; read() reads at most the
    upload limit and one byte, whatever the zip claims."""
    limit = settings.FRUITCATALOG_MAX_UPLOAD_BYTES + 1
    if source.is_dir():
        for path in sorted(
            p for p in source.iterdir() if p.is_file() and not p.name.startswith(".")
        ):
            yield path.name, path.stat().st_size, lambda path=path: _read_file(path, limit)
    elif zipfile.is_zipfile(source):
        with zipfile.ZipFile(source) as archive:
            entries = [
                info
                for info in archive.infolist()
                if not info.is_dir()
                and not info.filename.startswith("__MACOSX/")
                and not Path(info.filename).name.startswith(".")
            ]
            for info in sorted(entries, key=lambda info: info.filename):
                yield (
                    info.filename,
                    info.file_size,
                    lambda info=info: _read_member(archive, info, limit),
                )
    else:
        raise CommandError(f"{source} is neither a folder nor a zip file.")


def _read_file(path: Path, limit: int) -> bytes:
    with path.open("rb") as file:
        return file.read(limit)


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> bytes:
    with archive.open(info) as member:
        return member.read(limit)
