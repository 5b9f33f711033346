"""Fruits from a spreadsheet: one importer behind the API, the admin and `manage.py import_fruits`.

A file (CSV with comma or semicolon, UTF-8 with or without a BOM; or XLSX) is read into rows,
every row is checked and compared with the catalog (`plan_import`: new, changed, unchanged or
an error, with the spreadsheet's row and column), and a clean plan is applied in one
transaction through the catalog's services (`apply_import`), so numbers, names and search are
stored as any other write stores them. A file with any error changes nothing.

Other apps' columns (`catalog.signals.spreadsheet_columns`: identification's `char:<code>`) are
checked in the header, read in each row and compared by their providers, and stored after
the row's fruit, in the same transaction.
"""

import csv
import io
import re
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext

from catalog.columns import ColumnError, ColumnImport, owner, readings
from catalog.exports import from_text_cell
from catalog.models import CATALOG_NUMBER_MAX, Fruit, FruitType, ImportBatch
from catalog.services import CatalogNumberTaken, fruit_touch, fruits_create, fruits_update
from catalog.validators import TEXT_MAX, clean_names, names_from_synonyms, validate_name_text
from core.db.deadlines import renew_for_next_step
from core.history import current_door, door

REQUIRED_COLUMNS = ["catalog_number", "name", "type"]
OPTIONAL_COLUMNS = ["synonyms"]
# What the CSV export adds besides: read-only, so an exported file imports back as it is.
IGNORED_COLUMNS = ["image_count", "url", "updated_at"]
SYNONYM_SEPARATOR = ";"
XLSX_MAGIC = b"PK\x03\x04"
DIGITS = re.compile(r"[0-9]{1,10}")  # ASCII digits only: `str.isdigit()` also takes "²"
# What one import may cost: rows checked and written in one request (the API's and the admin's;
# the command takes any number), and the XML a workbook may unpack to (a zip bomb stays shut).
ROWS_MAX = 10_000
XLSX_UNPACKED_MAX = 50 * 1024 * 1024
BATCH = 1000  # catalog numbers looked up per query
# The columns a header may have: the export writes 7 and one per characteristic (a few dozen
# for each fruit type that has them); every cell of every row is read and checked.
COLUMNS_MAX = 1000


class ImportFileError(Exception):
    """The file as a whole cannot be read: not UTF-8, no header, a column missing or unknown."""

    def __init__(self, message: str, *, row: int = 1, field: str = ""):
        super().__init__(message)
        self.error = RowError(row=row, field=field, message=message)


@dataclass(frozen=True, slots=True)
class RowError:
    row: int  # as a spreadsheet numbers it: the header is row 1
    field: str
    message: str

    def as_dict(self) -> dict:
        return {"row": self.row, "field": self.field, "message": self.message}


class CellChange(NamedTuple):
    """One cell of another app's columns as the preview shows it: `old` is None for a new
    fruit's cell (nothing is stored to change)."""

    column: str
    old: str | None
    new: str


@dataclass(slots=True)
class PlannedRow:
    """One data row: what it says, and what importing it does (`action`)."""

    row: int
    catalog_number: int | None
    name: str
    type: str
    synonyms: list[str]
    action: str = "error"  # "new", "changed", "unchanged" or "error"
    fruit: Fruit | None = None
    # A changed row changes the fruit's own fields or names, not only other apps' columns.
    changes_fruit: bool = True
    names: list[dict] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)
    # Other apps' columns: each reading with this row's record of them, kept for storing.
    extra: list[tuple[ColumnImport, object]] = field(default_factory=list)
    # For each reading of the file, the cells of a stored fruit that the row changes, as
    # `{column: (stored, new)}` (read with the catalog's values, a batch at a time).
    extra_changes: list[dict[str, tuple[str, str]]] = field(default_factory=list)

    @property
    def old(self) -> dict:
        """What the fruit holds now in each of the row's cells that would change it (the
        preview shows them old → new): `name`, `type` or `synonyms`."""
        if self.fruit is None:
            return {}
        now = {
            "name": self.fruit.name,
            "type": self.fruit.type,
            "synonyms": [name["name"] for name in self.fruit.name_list],
        }
        new = {"name": self.name, "type": self.type, "synonyms": self.synonyms}
        return {cell: value for cell, value in now.items() if value != new[cell]}

    @property
    def extra_cells(self) -> list[list[CellChange]]:
        """Other apps' cells the preview shows, a list for each reading of the file: a new
        fruit's cells that hold something, a stored fruit's cells that change (old → new)."""
        if self.action == "new":
            return [
                [
                    CellChange(column, None, text)
                    for column, text in reading.cells(record).items()
                    if text
                ]
                for reading, record in self.extra
            ]
        return [
            [CellChange(column, old, new) for column, (old, new) in changed.items()]
            for changed in self.extra_changes
        ]


@dataclass
class ImportReport:
    """What an import found and did: the counts, the errors, and the rows (for a preview).

    Errors past `errors_max` are counted in `more_errors`, not kept.
    """

    dry_run: bool
    rows: list[PlannedRow] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)
    errors_max: int | None = None
    more_errors: int = 0
    counts: Counter = field(default_factory=Counter)  # rows by action
    # What the preview calls each reading of other apps' columns ("Characteristics").
    extra_labels: list[str] = field(default_factory=list)
    batch: object = None  # the `ImportBatch` an applied import is

    def count(self, action: str) -> int:
        return self.counts[action]

    @property
    def count_new(self) -> int:
        """The fruits the import creates (for templates, which cannot call `count`)."""
        return self.count("new")

    @property
    def count_changed(self) -> int:
        """The fruits the import changes."""
        return self.count("changed")

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def error_count(self) -> int:
        """Every error, the ones not kept included."""
        return len(self.errors) + self.more_errors

    def add_error(self, error: RowError) -> None:
        """Keep the error, or only count it once `errors_max` are kept."""
        if self.errors_max is None or len(self.errors) < self.errors_max:
            self.errors.append(error)
        else:
            self.more_errors += 1

    def summary(self) -> str:
        """The counts as "3 new, 1 changed, 20 unchanged": what the admin and the command say."""
        return gettext("%(new)s new, %(changed)s changed, %(unchanged)s unchanged") % {
            "new": self.count("new"),
            "changed": self.count("changed"),
            "unchanged": self.count("unchanged"),
        }

    def as_dict(self) -> dict:
        """The answer of the API."""
        return {
            "dry_run": self.dry_run,
            "created": self.count("new"),
            "updated": self.count("changed"),
            "unchanged": self.count("unchanged"),
            "errors": [error.as_dict() for error in self.errors],
            "batch": self.batch.pk if self.batch is not None else None,
        }


# --- reading -------------------------------------------------------------------------------------


def read_rows(data: bytes) -> tuple[list[str], Iterator[tuple[int, dict]]]:
    """The header and the data rows (with their spreadsheet row numbers) of a CSV or XLSX file.

    Raises `ImportFileError` when the file cannot be read or its columns are wrong.
    """
    if data.startswith(XLSX_MAGIC):
        header, rows = _read_xlsx(data)
    else:
        header, rows = _read_csv(data)
    _check_header(header)
    return header, rows


def _read_csv(data: bytes) -> tuple[list[str], Iterator[tuple[int, dict]]]:
    try:
        data.decode("utf-8-sig")  # checked whole, before any row; read below as a stream
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise ImportFileError(
            gettext(
                "The file is not UTF-8 text (byte 0x%(byte)s on line %(line)s); save it as CSV "
                "UTF-8 or as XLSX."
            )
            % {"byte": f"{data[error.start]:02x}", "line": line},
            row=line,
        ) from None
    if b"\x00" in data:
        raise ImportFileError(gettext("The file holds NUL characters: it is not a CSV file."))
    end = data.find(b"\n")
    first_line = data[:end] if end >= 0 else data
    delimiter = ";" if first_line.count(b";") > first_line.count(b",") else ","
    # Decoded a piece at a time: the whole text at once (as a StringIO, four bytes a character)
    # would hold several times the file while the rows are read.
    text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", newline="")
    reader = csv.reader(text, delimiter=delimiter, strict=True)
    try:
        header = next(reader, None)
    except csv.Error as error:
        raise ImportFileError(
            gettext("The header row cannot be read: %(error)s.") % {"error": error}
        ) from None
    if not header or not any(cell.strip() for cell in header):
        raise ImportFileError(
            gettext("The file has no header row (catalog_number, name, type, …).")
        )
    header = [cell.strip() for cell in header]

    def rows():
        try:
            for values in reader:
                number = reader.line_num  # a cell with line breaks spans lines: its last one
                if not any(value.strip() for value in values):
                    continue  # an empty line, as spreadsheets leave at the end
                if len(values) > len(header):
                    raise ImportFileError(
                        gettext("Row %(row)s has %(cells)s cells, the header %(header)s.")
                        % {"row": number, "cells": len(values), "header": len(header)},
                        row=number,
                    )
                yield number, dict(zip(header, values, strict=False))
        except csv.Error as error:
            raise ImportFileError(
                gettext("Row %(row)s cannot be read: %(error)s.")
                % {"row": reader.line_num, "error": error},
                row=reader.line_num,
            ) from None

    return header, rows()


def _read_xlsx(data: bytes) -> tuple[list[str], Iterator[tuple[int, dict]]]:
    from openpyxl import load_workbook

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        raise ImportFileError(unreadable_workbook(error)) from None
    if unpacked > XLSX_UNPACKED_MAX:
        raise ImportFileError(
            gettext(
                "The workbook unpacks to %(bytes)s bytes, more than %(max)s: save it as CSV, or "
                "split it."
            )
            % {"bytes": unpacked, "max": XLSX_UNPACKED_MAX}
        )
    try:
        workbook = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        sheet = workbook.worksheets[0]
        cells = sheet.iter_rows(values_only=True)
        header = next(cells, None)
    except Exception as error:  # a broken workbook fails in many ways: all are a 400
        raise ImportFileError(unreadable_workbook(error)) from None
    if not header or not any(header):
        raise ImportFileError(
            gettext("The first sheet has no header row (catalog_number, name, type, …).")
        )
    header = ["" if cell is None else str(cell).strip() for cell in header]

    def rows():
        number = 1
        try:
            for number, values in enumerate(cells, start=2):  # `number` is read in the except
                if not any(value not in (None, "") for value in values):
                    continue
                yield (
                    number,
                    {
                        column: _cell_text(value)
                        for column, value in zip(header, values, strict=False)
                    },
                )
        except Exception as error:  # a broken sheet fails in many ways
            raise ImportFileError(
                gettext("Row %(row)s of the workbook cannot be read (%(error)s).")
                % {"row": number + 1, "error": error},
                row=number + 1,
            ) from None
        finally:
            workbook.close()

    return header, rows()


def unreadable_workbook(error: Exception) -> str:
    return gettext("The file is not a readable XLSX workbook (%(error)s).") % {"error": error}


def _cell_text(value) -> str:
    """A spreadsheet cell as the text a CSV would hold (a whole number without ".0")."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _check_header(header: list[str]) -> None:
    if len(header) > COLUMNS_MAX:
        raise ImportFileError(
            gettext("The header has %(columns)s columns; an import takes at most %(max)s.")
            % {"columns": f"{len(header):,}", "max": f"{COLUMNS_MAX:,}"}
        )
    known = {*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS, *IGNORED_COLUMNS}
    for column in header:
        if column not in known and owner(column) is None:
            raise ImportFileError(
                gettext(
                    'Unknown column "%(column)s": the columns are %(required)s (required) and '
                    "%(optional)s (optional)."
                )
                % {
                    "column": column,
                    "required": ", ".join(REQUIRED_COLUMNS),
                    "optional": ", ".join(OPTIONAL_COLUMNS),
                },
                field=column,
            )
    seen = set()
    for column in header:
        if column in seen:
            raise ImportFileError(
                gettext('The column "%(column)s" appears twice.') % {"column": column}, field=column
            )
        seen.add(column)
    for column in REQUIRED_COLUMNS:
        if column not in header:
            raise ImportFileError(
                gettext('The required column "%(column)s" is missing.') % {"column": column},
                field=column,
            )


# --- checking ------------------------------------------------------------------------------------


def plan_import(
    data: bytes,
    *,
    dry_run: bool,
    progress: Callable | None = None,
    bounded: bool = True,
    errors_max: int | None = None,
) -> ImportReport:
    """Read and check every row and compare it with the catalog; write nothing.

    `progress(n)` is called as rows are checked (the command's progress bar). Rows are compared
    a batch at a time, as they are read. `bounded` (the API and the admin): more data rows than
    `ROWS_MAX` is an error of the file, and every row is kept for the preview. Not `bounded`
    (the command), any number of rows, kept only while the file has no error (applying needs
    them; a file with an error is not applied), and at most `errors_max` errors kept: the
    memory a file with errors takes does not grow with its rows.
    """
    rows_max = ROWS_MAX if bounded else None  # read when called: a setting of the module
    report = ImportReport(dry_run=dry_run, errors_max=errors_max)
    try:
        header, rows = read_rows(data)
        try:
            extra = readings(header)
        except ColumnError as error:
            raise ImportFileError(error.message, field=error.column) from None
        report.extra_labels = [reading.label for reading in extra]
        plan = _Plan(report, extra, progress, keeps_every_row=bounded)
        for count, (number, values) in enumerate(rows):
            if count == rows_max:
                raise ImportFileError(
                    gettext(
                        "More than %(max)s rows: split the file, or import it with "
                        "`manage.py import_fruits`."
                    )
                    % {"max": rows_max},
                    row=number,
                )
            plan.add(_parse_row(number, values, extra))
        plan.compare()
    except ImportFileError as error:
        return ImportReport(dry_run=dry_run, errors=[error.error])
    return report


class _Plan:
    """The rows of a file as they are read, compared with the catalog a batch at a time."""

    def __init__(
        self,
        report: ImportReport,
        extra: list[ColumnImport],
        progress: Callable | None,
        *,
        keeps_every_row: bool,
    ):
        self.report, self.extra, self.progress = report, extra, progress
        self.keeps_every_row = keeps_every_row
        self.first_row: dict[int, int] = {}  # each catalog number's first row
        self.pending: list[PlannedRow] = []

    def add(self, row: PlannedRow) -> None:
        """Check the row's catalog number against the earlier rows'; compare a full batch."""
        if row.catalog_number is not None:
            first = self.first_row.setdefault(row.catalog_number, row.row)
            if first != row.row:
                message = gettext("Catalog number %(number)s is also in row %(row)s.") % {
                    "number": row.catalog_number,
                    "row": first,
                }
                row.errors.append(RowError(row.row, "catalog_number", message))
        self.pending.append(row)
        if len(self.pending) == BATCH:
            self.compare()

    def compare(self) -> None:
        """Compare the pending rows with the catalog; count them and keep their errors."""
        batch, self.pending = self.pending, []
        _compare_with_catalog(batch, self.extra)
        report = self.report
        for row in batch:
            report.counts[row.action] += 1
            for error in row.errors:
                report.add_error(error)
        if self.keeps_every_row or report.ok:
            report.rows.extend(batch)
        else:
            report.rows = []  # a file with an error is not applied: its rows are of no use
        if self.progress is not None and batch:
            self.progress(len(batch))


def _parse_row(number: int, values: dict, extra: list[ColumnImport]) -> PlannedRow:
    errors = []
    raw_number = (values.get("catalog_number") or "").strip()
    catalog_number = None
    if not raw_number:
        errors.append(RowError(number, "catalog_number", gettext("A catalog number is required.")))
    elif not DIGITS.fullmatch(raw_number) or not 1 <= int(raw_number) <= CATALOG_NUMBER_MAX:
        errors.append(
            RowError(
                number,
                "catalog_number",
                gettext('"%(value)s" is not a whole number from 1 to %(max)s.')
                % {"value": raw_number[:40], "max": CATALOG_NUMBER_MAX},
            )
        )
    else:
        catalog_number = int(raw_number)
    name = from_text_cell((values.get("name") or "").strip())
    if not name:
        errors.append(RowError(number, "name", gettext("A name is required.")))
    elif len(name) > TEXT_MAX:
        errors.append(
            RowError(
                number,
                "name",
                gettext("A name has at most %(max)s characters.") % {"max": TEXT_MAX},
            )
        )
    else:
        try:
            validate_name_text(name)
        except ValidationError as error:
            errors.extend(RowError(number, "name", message) for message in error.messages)
    fruit_type = (values.get("type") or "").strip().lower()
    if fruit_type not in FruitType.values:
        errors.append(
            RowError(
                number,
                "type",
                gettext('"%(value)s" is not a valid choice; one of %(choices)s.')
                % {"value": fruit_type[:40], "choices": ", ".join(FruitType.values)},
            )
        )
    synonyms = [
        piece.strip()
        for piece in from_text_cell((values.get("synonyms") or "").strip()).split(SYNONYM_SEPARATOR)
        if piece.strip()
    ]
    row = PlannedRow(number, catalog_number, name, fruit_type, synonyms, errors=errors)
    row.extra_changes = [{} for _ in extra]
    valid_type = fruit_type if fruit_type in FruitType.values else None
    cells = {column: from_text_cell(text or "") for column, text in values.items()} if extra else {}
    for reading in extra:
        record, problems = reading.parse(number, valid_type, cells)
        errors.extend(RowError(number, column, message) for column, message in problems)
        row.extra.append((reading, record))
    if name:
        try:
            clean_names([{"name": text} for text in synonyms], fruit_name=name)
        except ValidationError as error:
            errors.extend(RowError(number, "synonyms", message) for message in error.messages)
    return row


def _compare_with_catalog(planned: list[PlannedRow], extra: list[ColumnImport]) -> None:
    """Each row without errors becomes new, changed or unchanged (a query per `BATCH` rows).

    Other apps' columns count too: their readings compare a batch of fruits at a time."""
    numbers = [row.catalog_number for row in planned if not row.errors]
    existing = {}
    for start in range(0, len(numbers), BATCH):
        batch = numbers[start : start + BATCH]
        for fruit in Fruit.objects.with_names().filter(catalog_number__in=batch):
            existing[fruit.catalog_number] = fruit
    changes = _extra_changes(planned, existing, extra)
    for row in planned:
        if row.errors:
            continue
        fruit = existing.get(row.catalog_number)
        current = fruit.name_list if fruit is not None else []
        row.names = clean_names(
            names_from_synonyms(row.synonyms, current=current), fruit_name=row.name
        )
        if fruit is None:
            row.action = "new"
            continue
        # What another app's columns would not change is not stored again.
        row.extra_changes = [changed.get(fruit.pk, {}) for changed in changes]
        row.extra = [
            (reading, record)
            for index, (reading, record) in enumerate(row.extra)
            if fruit.pk in changes[index]
        ]
        texts = [name["name"] for name in fruit.name_list]
        same = (fruit.name, fruit.type, texts) == (row.name, row.type, row.synonyms)
        row.action = "unchanged" if same and not row.extra else "changed"
        row.fruit, row.changes_fruit = fruit, not same


def _extra_changes(
    planned: list[PlannedRow], existing: dict[int, Fruit], extra: list[ColumnImport]
) -> list[dict[int, dict[str, tuple[str, str]]]]:
    """For each reading, the fruits whose stored values its rows would change, by id, with the
    cells that change (`ColumnImport.changes`: a bounded number of queries a reading)."""
    changes = []
    for index, reading in enumerate(extra):
        records = {}
        for row in planned:
            fruit = existing.get(row.catalog_number)
            if fruit is not None and not row.errors:
                records[fruit.pk] = row.extra[index][1]
        changes.append(reading.changes(records) if records else {})
    return changes


# --- applying ------------------------------------------------------------------------------------


def import_fruits(
    data: bytes,
    *,
    dry_run: bool,
    progress: Callable | None = None,
    bounded: bool = True,
    errors_max: int | None = None,
    file_name: str = "",
) -> ImportReport:
    """Check the file and, unless `dry_run` or it has errors, apply it in one transaction."""
    report = plan_import(
        data, dry_run=dry_run, progress=progress, bounded=bounded, errors_max=errors_max
    )
    if report.ok and not dry_run:
        apply_import(report, file_name=file_name)
    return report


def apply_import(report: ImportReport, *, file_name: str = "") -> None:
    """Store the new and changed rows through the catalog's services, all or nothing.

    New fruits are created a batch at a time (`fruits_create`: a few statements for up to
    `BATCH` rows in a run of new rows), and so are changed fruits' fields and names
    (`fruits_update`), in the file's order; other apps' columns are stored a row at a time. A
    catalog number another write took meanwhile (the plan saw it free) is reported as that
    row's error and nothing is stored.

    An import that changes anything is an `ImportBatch` (`report.batch`), and every change it
    makes is recorded as made by it, whichever door its file came through.
    """
    if not (report.count_new or report.count_changed):
        return
    outer = current_door()
    try:
        with transaction.atomic():
            report.batch = ImportBatch.objects.create(
                user=outer.writer if outer is not None else None,
                file_name=file_name[: ImportBatch._meta.get_field("file_name").max_length],
                created_count=report.count_new,
                changed_count=report.count_changed,
            )
            with door("import", batch=report.batch.pk):
                _apply_rows(report)
    except _RowFailed as failed:
        report.batch = None
        report.add_error(failed.error)


def _apply_rows(report: ImportReport) -> None:
    """The rows' writes, in the file's order (`apply_import`): a run of new rows, or of rows
    changing their fruits' fields or names, is written a batch at a time."""
    run: list[PlannedRow] = []
    for row in report.rows:
        if row.action not in ("new", "changed"):
            continue
        if run and (_step(run[0]) != _step(row) or len(run) == BATCH):
            _write(run)
            run = []
        run.append(row)
    if run:
        _write(run)


def _step(row: PlannedRow) -> str:
    """How the row is written: "new", "changed" (its fruit's fields or names) or "touched"
    (only other apps' columns: the fruit stays)."""
    if row.action == "new":
        return "new"
    return "changed" if row.changes_fruit else "touched"


def _write(rows: list[PlannedRow]) -> None:
    """Write a run of rows of one `_step`."""
    step = _step(rows[0])
    if step == "new":
        _create(rows)
    elif step == "changed":
        _update(rows)
    else:
        for row in rows:
            _store(row, lambda row=row: fruit_touch(fruit=row.fruit))


class _RowFailed(Exception):
    def __init__(self, error: RowError):
        super().__init__(error.message)
        self.error = error


def _create(rows: list[PlannedRow]) -> None:
    """Create the rows' fruits at once, then store other apps' columns of them, a reading at
    a time."""
    renew_for_next_step()  # each wait on the database stays bounded, not the whole import
    records = [{**_fields(row), "names": row.names} for row in rows]
    try:
        fruits = fruits_create(records=records)
    except CatalogNumberTaken as taken:
        row = next(row for row in rows if row.catalog_number == taken.catalog_number)
        raise _RowFailed(_row_error(row, taken)) from None
    except IntegrityError as error:
        raise _RowFailed(_row_error(rows[0], error)) from None
    readings = [reading for reading, _ in rows[0].extra]  # a new row has a record of each
    for index, reading in enumerate(readings):
        items = [(fruit, row.extra[index][1]) for row, fruit in zip(rows, fruits, strict=True)]
        try:
            reading.store_new(items)
        except ValidationError as error:
            # Nothing of it was written: a row at a time, the failing row is named.
            for row, (fruit, record) in zip(rows, items, strict=True):
                _store(row, lambda fruit=fruit: fruit, extra=[(reading, record)])
            raise _RowFailed(_row_error(rows[0], error)) from None


def _update(rows: list[PlannedRow]) -> None:
    """Change the rows' fruits' fields and names at once (`fruits_update`), then store other
    apps' columns of them, a row at a time."""
    renew_for_next_step()  # each wait on the database stays bounded, not the whole import
    changes = [
        (row.fruit, {"name": row.name, "type": row.type, "names": row.names}) for row in rows
    ]
    try:
        fruits_update(changes=changes)
    except ObjectDoesNotExist:
        ids = [row.fruit.pk for row in rows]
        stored = set(Fruit.objects.filter(pk__in=ids).values_list("pk", flat=True))
        row = next(row for row in rows if row.fruit.pk not in stored)
        raise _RowFailed(_deleted_meanwhile(row)) from None
    except (ValidationError, IntegrityError) as error:
        raise _RowFailed(_row_error(rows[0], error)) from None
    for row in rows:
        _store(row, lambda row=row: row.fruit)


def _store(row: PlannedRow, write, *, extra: list | None = None) -> None:
    """Write the row's fruit (`write`, which returns it) and then its other apps' columns
    (`extra`, else the row's); what fails is the row's error."""
    if row.row % 200 == 0:
        renew_for_next_step()  # each wait on the database stays bounded, not the whole import
    try:
        fruit = write()
        for reading, record in row.extra if extra is None else extra:
            reading.store(fruit, record, new=row.action == "new")
    except (ValidationError, IntegrityError) as error:
        raise _RowFailed(_row_error(row, error)) from None
    except ObjectDoesNotExist:
        raise _RowFailed(_deleted_meanwhile(row)) from None


def _deleted_meanwhile(row: PlannedRow) -> RowError:
    message = gettext("The fruit numbered %(number)s was deleted meanwhile; check again.") % {
        "number": row.catalog_number
    }
    return RowError(row.row, "catalog_number", message)


def _row_error(row: PlannedRow, error: ValidationError | IntegrityError) -> RowError:
    """A refused write as the row's error, on the column the error names (else the number)."""
    messages = getattr(error, "messages", None) or [str(error)]
    named = getattr(error, "error_dict", None) or {}
    column = next((key for key in named if owner(key) is not None), "catalog_number")
    return RowError(row.row, column, "; ".join(messages))


def _fields(row: PlannedRow) -> dict:
    return {"catalog_number": row.catalog_number, "name": row.name, "type": row.type}
