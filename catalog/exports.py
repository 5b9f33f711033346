"""The catalog as files for others: the fruit list as CSV, streamed in chunks of the catalog.

Rows come in catalog order, a chunk at a time by keyset (each chunk one short indexed query),
so memory stays flat and the first bytes leave at once whatever the catalog's size. Every file
is dated by `last_modified()`: the newest change of what it holds, deletions included.

Other apps' columns (`catalog.signals.spreadsheet_columns`: identification's `char:<code>`)
follow the catalog's own, a query a chunk, and their providers' changes date the files too.
"""

import csv
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime

from django.db.models import Max
from django.urls import reverse

from catalog.columns import extra_columns, extra_last_modified, extra_values
from catalog.models import Deletion, Fruit, FruitImage
from core.db.deadlines import keyset_chunks

# The catalog's own columns; other apps' (`extra_columns()`) follow them.
CSV_COLUMNS = ["catalog_number", "name", "type", "synonyms", "image_count", "url", "updated_at"]
SYNONYM_JOIN = "; "
# A cell a spreadsheet would run as a formula (=, +, -, @, or a tab or carriage return first)
# is written with an apostrophe before it, which spreadsheets hide; the import takes it off.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# A text that starts with an apostrophe gets one too: the import then takes off exactly the one
# the export added, and "'=x" comes back as "'=x", not "=x".
QUOTED_STARTS = (*FORMULA_STARTS, "'")


def as_text_cell(text: str) -> str:
    """Text for a CSV cell that no spreadsheet runs as a formula."""
    return f"'{text}" if text.startswith(QUOTED_STARTS) else text


def from_text_cell(text: str) -> str:
    """`as_text_cell` undone: `from_text_cell(as_text_cell(text)) == text` for every text."""
    return text[1:] if text.startswith("'") and text[1:].startswith(QUOTED_STARTS) else text


def newest(*stamps: datetime | None) -> datetime | None:
    """The latest of the stamps that exist."""
    present = [stamp for stamp in stamps if stamp is not None]
    return max(present) if present else None


def last_modified() -> datetime | None:
    """When the fruits, their names, their images or other apps' columns last changed (a
    deletion included): one index probe per table, and a query per column provider."""
    return newest(
        Fruit.objects.aggregate(at=Max("updated_at"))["at"],
        FruitImage.objects.aggregate(at=Max("updated_at"))["at"],
        Deletion.objects.aggregate(at=Max("deleted_at"))["at"],
        *extra_last_modified(),
    )


def in_chunks(queryset) -> Iterator[list]:
    """The rows of `queryset` in catalog order (numbered fruits, then the others by id), one
    chunk per query (`keyset_chunks`)."""
    yield from keyset_chunks(queryset.filter(catalog_number__isnull=False), "catalog_number")
    yield from keyset_chunks(queryset.filter(catalog_number__isnull=True), "pk")


def iso(moment: datetime) -> str:
    """An instant as ISO 8601 in UTC ("2026-11-27T01:46:00.123456Z"), as the API writes it."""
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat() + "Z"


def fruit_page_url(request) -> Callable[[int], str]:
    """`url(id)`: the absolute URL of a fruit's public page, built once and filled per row
    (no `reverse()` for each of a million rows)."""
    marker = 987654321
    template = request.build_absolute_uri(reverse("fruit-page", kwargs={"pk": marker}))
    head, tail = template.split(str(marker))
    return lambda pk: f"{head}{pk}{tail}"


def with_export_data(queryset):
    """What a CSV row needs: names (one array per row) and the image count, nothing else."""
    return (
        queryset.with_names()
        .with_image_count()
        .only("catalog_number", "name", "type", "updated_at")
    )


CSV_MEDIA_TYPE = "text/csv; charset=utf-8"


def csv_bytes(queryset, request) -> Iterator[bytes]:
    """The CSV file of `queryset`'s fruits as streamed chunks (the API's export and the
    admin's action: the same file, which imports back unchanged)."""
    return batched_bytes(csv_lines(csv_rows(queryset, fruit_page_url(request))))


def csv_rows(queryset, page_url: Callable[[int], str]) -> Iterator[list]:
    """The header, then one row per fruit of `queryset` (`page_url(id)`: its public page).

    Other apps' columns follow the catalog's (`catalog.columns`), read a chunk at a time."""
    extra = extra_columns()
    yield [*CSV_COLUMNS, *extra]
    for chunk in in_chunks(with_export_data(queryset)):
        cells = extra_values([fruit.pk for fruit in chunk]) if extra else {}
        for fruit in chunk:
            held = cells.get(fruit.pk, {})
            yield [
                fruit.catalog_number if fruit.catalog_number is not None else "",
                as_text_cell(fruit.name),
                fruit.type,
                as_text_cell(SYNONYM_JOIN.join(name["name"] for name in fruit.name_list)),
                fruit.image_count,
                page_url(fruit.pk),
                iso(fruit.updated_at),
                *(as_text_cell(held.get(column, "")) for column in extra),
            ]


class _Line:
    """A file-like object `csv.writer` writes one line into, handed back as text."""

    def write(self, text: str) -> str:
        return text


def csv_lines(rows: Iterable[list], *, delimiter: str = ",") -> Iterator[str]:
    """Rows as CSV text, a line at a time."""
    writer = csv.writer(_Line(), delimiter=delimiter, lineterminator="\r\n")
    for row in rows:
        yield writer.writerow(row)


def batched_bytes(lines: Iterable[str], size: int = 64 * 1024) -> Iterator[bytes]:
    """Text lines as UTF-8 bytes in pieces of about `size` (fewer, larger writes)."""
    pending, length = [], 0
    for line in lines:
        pending.append(line)
        length += len(line)
        if length >= size:
            yield "".join(pending).encode()
            pending, length = [], 0
    if pending:
        yield "".join(pending).encode()
