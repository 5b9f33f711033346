"""A fruit's characteristics in the fruits' spreadsheets: a column `char:<code>` per
characteristic, its cell the state values joined by `|` (`5|7`), empty for none.

Offered to the catalog by `characteristic_columns`, a receiver of
`catalog.signals.spreadsheet_columns` that `IdentificationConfig` connects: the CSV export
writes a column for every characteristic, in question order (a file mixes fruit types); an
import changes the characteristics whose columns it has, and only those. The checks are
`clean_fruit_characteristics`' (a known code, one that applies to the row's type, values that
are its states), made on what the header names, read once per import.
"""

import re
from collections import defaultdict

from django.core.exceptions import ValidationError
from django.db.models import Max
from django.utils.translation import gettext as _

from catalog.columns import ColumnError
from identification.models import (
    Characteristic,
    CharacteristicState,
    FruitCharacteristic,
    FruitCharacteristicState,
    ValuesVersion,
)
from identification.services import fruit_set_characteristics, fruits_add_characteristics

PREFIX = "char:"
VALUE_JOIN = "|"
VALUE = re.compile(r"[0-9]{1,3}")  # ASCII digits only, as the catalog number's
BATCH = 1000  # fruits whose values are compared per query


def column_of(code: str) -> str:
    return f"{PREFIX}{code}"


def joined(values) -> str:
    """A cell: the values ascending, joined by `|`."""
    return VALUE_JOIN.join(str(value) for value in sorted(values))


def held_values(
    fruit_ids: list[int], characteristic_ids: list[int] | None = None, *, by: str = "id"
) -> dict[int, dict]:
    """The states the fruits show, as `{fruit_id: {characteristic id (or code): [values]}}`
    (one query), for some characteristics only when `characteristic_ids` is given."""
    rows = FruitCharacteristicState.objects.filter(fruit_characteristic__fruit_id__in=fruit_ids)
    if characteristic_ids is not None:
        rows = rows.filter(fruit_characteristic__characteristic_id__in=characteristic_ids)
    held: dict[int, dict] = defaultdict(lambda: defaultdict(list))
    for fruit_id, key, value in rows.order_by().values_list(
        "fruit_characteristic__fruit_id",
        f"fruit_characteristic__characteristic__{by}",
        "state__value",
    ):
        held[fruit_id][key].append(value)
    return held


class CharacteristicColumns:
    """The provider of the `char:<code>` columns (`catalog.columns.ColumnProvider`)."""

    def owns(self, column: str) -> bool:
        return column.startswith(PREFIX)

    def columns(self) -> list[str]:
        codes = Characteristic.objects.in_question_order().values_list("code", flat=True)
        return [column_of(code) for code in codes]

    def export_values(self, fruit_ids: list[int]) -> dict[int, dict[str, str]]:
        """The fruits' cells (one query)."""
        held = held_values(fruit_ids, by="code")
        return {
            fruit_id: {column_of(code): joined(values) for code, values in by_code.items()}
            for fruit_id, by_code in held.items()
        }

    def last_modified(self):
        """When characteristics or fruits' values last changed, a deletion included.

        Every write of them bumps its fruit types' `ValuesVersion` in its transaction
        (`identification.services.bump_versions`), which dates the bump: a value
        removed or a characteristic deleted leaves no row of its own to date it. One query on
        a table of a row per fruit type.
        """
        return ValuesVersion.objects.aggregate(at=Max("updated_at"))["at"]

    def reading(self, columns: list[str]) -> "CharacteristicReading":
        return CharacteristicReading(columns)


class CharacteristicReading:
    """One import's `char:<code>` columns: the characteristics they name, with their states.

    A row's record is `{characteristic_id: (value, ...)}` for every column, `()` for an empty
    cell (the fruit's values for it are removed).
    """

    label = "Characteristics"

    def __init__(self, columns: list[str]):
        codes = {column.removeprefix(PREFIX): column for column in columns}
        # Every characteristic and state is read and the header's picked here (the tables hold
        # a few dozen a fruit type): a query whose parameters grew with the header would meet
        # the database's limit on them (PostgreSQL's 65,535) before any check.
        found = {
            char.code: char
            for char in Characteristic.objects.only("id", "code", "name", "fruit_types")
            if char.code in codes
        }
        for code, column in codes.items():
            if code not in found:
                raise ColumnError(
                    column,
                    _(
                        'Unknown column "%(column)s": no characteristic has the code "%(code)s" '
                        "(the characteristics' codes are listed under /api/v1/characteristics)."
                    )
                    % {"column": column, "code": code},
                )
        self.columns = {column: found[code] for code, column in codes.items()}
        self.types = {char.pk: set(char.type_list) for char in found.values()}
        self.states: dict[int, dict[int, int]] = {char.pk: {} for char in found.values()}
        for characteristic_id, value, state_id in CharacteristicState.objects.values_list(
            "characteristic_id", "value", "pk"
        ):
            if characteristic_id in self.states:
                self.states[characteristic_id][value] = state_id

    def parse(self, row: int, fruit_type: str | None, cells: dict[str, str]):
        record, problems = {}, []
        for column, char in self.columns.items():
            text = (cells.get(column) or "").strip()
            pieces = [piece.strip() for piece in text.split(VALUE_JOIN)] if text else []
            pieces = [piece for piece in pieces if piece]
            if not pieces:
                record[char.pk] = ()
                continue
            if fruit_type is not None and fruit_type not in self.types[char.pk]:
                problems.append(
                    (
                        column,
                        _(
                            '"%(name)s" does not apply to a fruit of type %(type)s: leave the '
                            "cell empty."
                        )
                        % {"name": char.name, "type": fruit_type},
                    )
                )
                continue
            states = self.states[char.pk]
            values = set()
            for piece in pieces:
                value = int(piece) if VALUE.fullmatch(piece) else None
                if value not in states:
                    choices = ", ".join(str(value) for value in sorted(states))
                    problems.append(
                        (
                            column,
                            _(
                                '"%(value)s" is not a state of "%(name)s": one of %(choices)s, '
                                "several joined by %(join)s."
                            )
                            % {
                                "value": piece[:40],
                                "name": char.name,
                                "choices": choices,
                                "join": VALUE_JOIN,
                            },
                        )
                    )
                    break
                values.add(value)
            else:
                record[char.pk] = tuple(sorted(values))
        return record, problems

    def cells(self, record: dict) -> dict[str, str]:
        """The record's cells as the export writes them, by column."""
        return {
            column: joined(record[char.pk])
            for column, char in self.columns.items()
            if char.pk in record
        }

    def changes(self, records: dict[int, dict]) -> dict[int, dict[str, tuple[str, str]]]:
        """The fruits whose values for these columns differ from their records, with the cells
        that differ as `{column: (stored, recorded)}` (a query for every `BATCH` fruits)."""
        ids = list(records)
        held: dict[int, dict[int, list[int]]] = {}
        characteristic_ids = [char.pk for char in self.columns.values()]
        for start in range(0, len(ids), BATCH):
            held |= held_values(ids[start : start + BATCH], characteristic_ids)
        found = {}
        for fruit_id, record in records.items():
            stored = held.get(fruit_id, {})
            differing = {}
            for column, new in self.cells(record).items():
                old = joined(stored.get(self.columns[column].pk, ()))
                if old != new:
                    differing[column] = (old, new)
            if differing:
                found[fruit_id] = differing
        return found

    def store_new(self, items: list[tuple[object, dict]]) -> None:
        """Store the records of fruits just created, all at once (`fruits_add_characteristics`):
        a `ValidationError` comes before anything is written."""
        values = [
            (fruit, [self._new_record(id_, wanted) for id_, wanted in record.items() if wanted])
            for fruit, record in items
        ]
        values = [(fruit, records) for fruit, records in values if records]
        if values:
            fruits_add_characteristics(values=values)

    def store(self, fruit, record: dict, *, new: bool) -> None:
        """Change the fruit's values for these columns; the others stay, and so do the source,
        pages and note of a value whose states are unchanged (a changed one loses them: the
        source said something else). A `new` fruit holds no values to read or keep."""
        if new:
            records = [self._new_record(id_, wanted) for id_, wanted in record.items() if wanted]
            if records:
                self._set(fruit, records, new=True)
            return
        rows = list(
            FruitCharacteristic.objects.filter(fruit=fruit).only(
                "id", "characteristic_id", "source_publication_id", "pages", "note"
            )
        )
        links = defaultdict(list)
        for row_id, state_id, value in (
            FruitCharacteristicState.objects.filter(fruit_characteristic__fruit=fruit)
            .order_by("state__value")
            .values_list("fruit_characteristic_id", "state_id", "state__value")
        ):
            links[row_id].append((value, state_id))
        records, is_changed, seen = [], False, set()
        for row in rows:
            seen.add(row.characteristic_id)
            wanted = record.get(row.characteristic_id)
            if wanted is None or wanted == tuple(value for value, _ in links[row.pk]):
                records.append(
                    {
                        "characteristic_id": row.characteristic_id,
                        "state_ids": [state_id for _, state_id in links[row.pk]],
                        "source_publication_id": row.source_publication_id,
                        "pages": row.pages,
                        "note": row.note,
                    }
                )
            else:
                is_changed = True
                if wanted:
                    records.append(self._new_record(row.characteristic_id, wanted))
        for characteristic_id, wanted in record.items():
            if wanted and characteristic_id not in seen:
                is_changed = True
                records.append(self._new_record(characteristic_id, wanted))
        if is_changed:
            self._set(fruit, records)

    def _set(self, fruit, records: list[dict], *, new: bool = False) -> None:
        try:
            if new:
                fruits_add_characteristics(values=[(fruit, records)])
            else:
                fruit_set_characteristics(fruit=fruit, records=records)
        except ValidationError as error:  # a kept source unlinked meanwhile
            cited = [r["characteristic_id"] for r in records if r["source_publication_id"]]
            column = next(
                (c for c, char in self.columns.items() if char.pk in cited),
                next(iter(self.columns)),
            )
            raise ValidationError({column: error.messages}) from None

    def _new_record(self, characteristic_id: int, values: tuple) -> dict:
        states = self.states[characteristic_id]
        return {
            "characteristic_id": characteristic_id,
            "state_ids": [states[value] for value in values],
            "source_publication_id": None,
            "pages": "",
            "note": "",
        }


CHARACTERISTIC_COLUMNS = CharacteristicColumns()


def characteristic_columns(sender, **kwargs) -> CharacteristicColumns:
    """The `char:<code>` columns' provider, for the catalog's spreadsheets."""
    return CHARACTERISTIC_COLUMNS
