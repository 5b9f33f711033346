"""Columns other apps add to the fruits' spreadsheets, read and written without the catalog
importing those apps (identification: a fruit's characteristics as `char:<code>`).

An app offers its provider by connecting, in its `AppConfig.ready()`, a receiver of
`catalog.signals.spreadsheet_columns` that returns it. The CSV export (`catalog.exports`) writes
its columns after the catalog's own and dates the file by its `last_modified()` too; the import
(`catalog.imports`) hands it the header's columns it owns, and each row's cells of them.
"""

from collections.abc import Iterable
from datetime import datetime
from typing import Protocol

from catalog.models import Fruit
from catalog.signals import spreadsheet_columns


class ColumnError(Exception):
    """A column of the header the provider cannot take (an unknown code): the file's error."""

    def __init__(self, column: str, message: str):
        super().__init__(message)
        self.column = column
        self.message = message


class ColumnImport(Protocol):
    """One import's reading of a provider's columns, holding what their header names."""

    # What the import's preview calls these columns ("Characteristics").
    label: str

    def parse(
        self, row: int, fruit_type: str | None, cells: dict[str, str]
    ) -> tuple[object, list[tuple[str, str]]]:
        """The row's cells of these columns (`cells`: all of the row's, by column) as an opaque
        record, and its errors as `(column, message)`. `fruit_type` is None when the row's type
        is not valid."""

    def cells(self, record: object) -> dict[str, str]:
        """The record as the file's cells of these columns, by column (no query)."""

    def changes(self, records: dict[int, object]) -> dict[int, dict[str, tuple[str, str]]]:
        """For each fruit (keys of `records`) whose stored values differ from its record, the
        cells that differ as `{column: (stored, recorded)}`, both as a cell's text: a bounded
        number of queries, whatever the number of fruits."""

    def store_new(self, items: list[tuple[Fruit, object]]) -> None:
        """Store the records of fruits just created (`(fruit, record)`), which hold nothing
        yet, in the import's transaction: a bounded number of queries for them all. A
        `ValidationError` is raised before anything is written (the import then stores them
        one at a time to name the row)."""

    def store(self, fruit, record: object, *, new: bool) -> None:
        """Store the record for a saved fruit, in the import's transaction (the fruit locked);
        a `new` fruit was just created and holds nothing yet.

        A `ValidationError` naming a column (`{column: [message]}`) is that row's error."""


class ColumnProvider(Protocol):
    """What an app adds to the fruits' CSV export and import."""

    def owns(self, column: str) -> bool:
        """Whether a header's column is one of the provider's (by its prefix)."""

    def columns(self) -> list[str]:
        """The columns the export writes, in order (one query at most)."""

    def export_values(self, fruit_ids: list[int]) -> dict[int, dict[str, str]]:
        """The cells of these fruits, by fruit id and column (one query); absent: empty."""

    def last_modified(self) -> datetime | None:
        """The newest change of what the columns hold, deletions included."""

    def reading(self, columns: list[str]) -> ColumnImport:
        """What an import needs to read these columns of the header (the provider's own);
        `ColumnError` for a column it cannot take."""


def providers() -> list["ColumnProvider"]:
    """The column providers the apps above offer, in the order their receivers were connected."""
    return [provider for _receiver, provider in spreadsheet_columns.send(sender=Fruit)]


def extra_columns() -> list[str]:
    """The columns every provider adds to the export, in the providers' order."""
    return [column for provider in providers() for column in provider.columns()]


def extra_values(fruit_ids: list[int]) -> dict[int, dict[str, str]]:
    """The providers' cells of these fruits, by fruit id and column (a query a provider)."""
    found: dict[int, dict[str, str]] = {}
    for provider in providers():
        for fruit_id, cells in provider.export_values(fruit_ids).items():
            found.setdefault(fruit_id, {}).update(cells)
    return found


def extra_last_modified() -> list[datetime | None]:
    """Each provider's newest change."""
    return [provider.last_modified() for provider in providers()]


def owner(column: str):
    """The provider that owns a header's column, or None."""
    return next((provider for provider in providers() if provider.owns(column)), None)


def readings(header: Iterable[str]) -> list[ColumnImport]:
    """For an import's header, each owning provider's reading of its columns (`ColumnError`
    for one a provider cannot take)."""
    offered = providers()  # asked once, not once a column
    owned: dict[ColumnProvider, list[str]] = {}
    for column in header:
        provider = next((provider for provider in offered if provider.owns(column)), None)
        if provider is not None:
            owned.setdefault(provider, []).append(column)
    return [provider.reading(columns) for provider, columns in owned.items()]
