"""Checks of a fruit's characteristics as written, before anything is stored."""

from django.core.exceptions import ValidationError
from django.utils.translation import gettext, gettext_lazy

from identification.models import Characteristic, CharacteristicState

PAGES_WITHOUT_SOURCE = gettext_lazy(
    "Pages need a source: choose the publication they refer to (one that links the fruit), or "
    "leave the pages empty."
)


def validate_pages_have_source(*, pages: str, source) -> None:
    """Refuse pages without the publication they are pages of: no page or API answer could
    show them. A note needs no source (it is the curator's own remark)."""
    if pages.strip() and source is None:
        raise ValidationError(PAGES_WITHOUT_SOURCE, code="pages_without_source")


def clean_fruit_characteristics(entries: list[dict], *, fruit_type: str) -> list[dict]:
    """The entries (`code`, `values`, `source_publication`, `pages`, `note`) as records to store
    (`fruit_set_characteristics`), or a `ValidationError` naming the first bad entry: an unknown
    code, one that does not apply to `fruit_type`, a value that is not one of its states, the
    same code twice. Whether a source links the fruit is checked where it is stored."""
    codes = {entry["code"] for entry in entries}
    found = {char.code: char for char in Characteristic.objects.filter(code__in=codes)}
    states = {}
    for state in CharacteristicState.objects.filter(characteristic__code__in=codes).only(
        "id", "value", "characteristic_id"
    ):
        states[(state.characteristic_id, state.value)] = state.pk
    records, seen = [], set()
    for number, entry in enumerate(entries, start=1):
        code = entry["code"]
        where = {"number": number, "code": code}
        char = found.get(code)
        if char is None:
            raise ValidationError(
                gettext("Entry %(number)s (%(code)s): no characteristic has this code.") % where
            )
        if fruit_type not in char.type_list:
            raise ValidationError(
                gettext(
                    "Entry %(number)s (%(code)s): it does not apply to a fruit of type %(type)s."
                )
                % {**where, "type": fruit_type}
            )
        if code in seen:
            raise ValidationError(
                gettext("Entry %(number)s (%(code)s): the same characteristic is given twice.")
                % where
            )
        seen.add(code)
        values = sorted(set(entry["values"]))
        if not values:
            raise ValidationError(
                gettext("Entry %(number)s (%(code)s): give one or more values.") % where
            )
        unknown = [value for value in values if (char.pk, value) not in states]
        if unknown:
            raise ValidationError(
                gettext("Entry %(number)s (%(code)s): %(value)s is not one of its states.")
                % {**where, "value": unknown[0]}
            )
        records.append(
            {
                "characteristic_id": char.pk,
                "state_ids": [states[(char.pk, value)] for value in values],
                "source_publication_id": entry.get("source_publication"),
                "pages": entry.get("pages", ""),
                "note": entry.get("note", ""),
            }
        )
    return records
