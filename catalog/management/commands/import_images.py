"""`manage.py import_images DIR_OR_ZIP [--dry-run]`: photos named by catalog number, attached.

`1042.jpg`, `1042-2.png` and `1042_section.webp` go to the fruit numbered 1042 (a suffix that is
an image role, such as `_section` or `-blossom`, sets the image's role). Each file passes the
checks of an upload; bytes the fruit already has are skipped, so running it again adds nothing.
One file is read at a time: memory stays flat over thousands of photos.

A file that cannot be read (a zip member whose data is corrupt, a file the operator may not
read) is that file's failure, and the others go on. Nothing outside the source is read: a link
in the folder to a file outside it, and a zip name with `..` or an absolute path, are refused.
"""

import os
import re
import stat
import zipfile
import zlib
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from blobs import imaging
from blobs.rights import ImageRole, validate_attribution
from blobs.uploads import (
    apply_image_upload,
    store_image_unless_duplicate,
)
from catalog.models import Fruit, FruitImage
from core.history import door

FILE_NAME = re.compile(
    r"^(?P<number>\d{1,10})(?:[-_](?P<suffix>[^/]*))?\.(jpe?g|png|gif|webp)$", re.I
)
# What reading a zip member's data raises when it is corrupt: a CRC or header that does not
# match, a truncated or broken deflate stream, an encrypted or unsupported member.
ZIP_READ_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    OSError,
    RuntimeError,
    NotImplementedError,
    ValueError,
)


class Unreadable(Exception):
    """A file of the source that cannot be read: its message says why (the file's failure)."""


class SourceFile(NamedTuple):
    """A file of the folder or zip: its name, size and reader, or why it is refused unread."""

    name: str
    size: int = 0
    read: Callable[[], bytes] | None = None
    refusal: str = ""


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
        with door("command"):  # the images it adds are one revision of each fruit
            self.add_images(options)

    def add_images(self, options):
        source, dry_run = options["source"], options["dry_run"]
        counts = {"added": 0, "skipped": 0, "failed": 0}
        self.fruits: dict[int, Fruit | None] = {}  # by catalog number, looked up once
        for file in files_in(source):
            if file.refusal:
                outcome, message = "failed", f"refused: {file.refusal}"
            else:
                try:
                    outcome, message = self.attach(file.name, file.size, file.read, dry_run=dry_run)
                except Unreadable as error:
                    outcome, message = "failed", str(error)
            counts[outcome] += 1
            line = f"{file.name}: {message}"
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
            # The details the command sets pass the upload's rule too (a licence requiring
            # attribution needs a creator), before any byte is checked.
            validate_attribution(license=image.license, creator=image.creator)
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


def files_in(source: Path) -> Iterator[SourceFile]:
    """Each file in a folder or a zip, by name; its `read()` reads at most the upload limit and
    one byte, whatever the zip claims, and raises `Unreadable` for a file it cannot read."""
    limit = settings.FRUITCATALOG_MAX_UPLOAD_BYTES + 1
    if source.is_dir():
        yield from _folder_files(source, limit)
    elif zipfile.is_zipfile(source):
        try:
            archive = zipfile.ZipFile(source)
        except (zipfile.BadZipFile, OSError) as error:
            raise CommandError(f"{source} is not a readable zip file ({error}).") from None
        with archive:
            yield from _zip_files(archive, limit)
    else:
        raise CommandError(f"{source} is neither a folder nor a zip file.")


def _folder_files(folder: Path, limit: int) -> Iterator[SourceFile]:
    base = folder.resolve()
    for path in sorted(p for p in folder.iterdir() if not p.name.startswith(".")):
        try:
            target = path.resolve(strict=True)
        except (OSError, RuntimeError):  # a broken link, or a loop of links
            continue
        if not target.is_relative_to(base):
            yield SourceFile(path.name, refusal="a link to outside the folder")
        elif target.is_file():  # not a folder, a device or a pipe
            yield SourceFile(path.name, target.stat().st_size, partial(_read_file, target, limit))


def _read_file(path: Path, limit: int) -> bytes:
    # The resolved path, opened without following a link and without waiting on a pipe: what
    # was swapped in since it was listed is not read.
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(descriptor, "rb") as file:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                raise Unreadable("cannot be read (not a regular file)")
            return file.read(limit)
    except OSError as error:
        raise Unreadable(f"cannot be read ({error.strerror})") from None


def _zip_files(archive: zipfile.ZipFile, limit: int) -> Iterator[SourceFile]:
    for info in sorted(archive.infolist(), key=lambda info: info.filename):
        name = info.filename
        if info.is_dir():
            continue
        if is_outside(name):  # before the hidden files: "..\\1042.jpg" looks like one
            yield SourceFile(name, refusal="a name outside the zip file")
        elif not name.startswith("__MACOSX/") and not Path(name).name.startswith("."):
            yield SourceFile(name, info.file_size, partial(_read_member, archive, info, limit))


def is_outside(name: str) -> bool:
    """Whether a zip member's name is absolute or climbs out with `..` (either separator)."""
    path = PurePosixPath(name.replace("\\", "/"))
    return path.is_absolute() or ".." in path.parts or bool(re.match(r"[A-Za-z]:", name))


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> bytes:
    try:
        with archive.open(info) as member:
            return member.read(limit)
    except ZIP_READ_ERRORS as error:
        raise Unreadable(f"cannot be read from the zip file ({error})") from None
