"""Input rules of fruits shared by the API serializers and the admin forms: one rule, one place."""

from django.core.exceptions import ValidationError

from catalog.languages import ISO_639_1
from catalog.models import NAME_NOTE_MAX, NameKind
from fruitcatalog.db.search import name_key

SYNONYMS_MAX = 100
TEXT_MAX = 200


def clean_names(records: list[dict], *, fruit_name: str) -> list[dict]:
    """Check a fruit's other names as a whole; return them trimmed, with their defaults.

    Each is `name` (1 to 200 characters, unique within the fruit and not the fruit's own name,
    compared under Unicode case folding), `kind` (`NameKind`), `language` ("" or ISO 639-1)
    and `note` (at most 500 characters).
    """
    if len(records) > SYNONYMS_MAX:
        raise ValidationError(f"Ensure this field has no more than {SYNONYMS_MAX} elements.")
    cleaned, seen = [], set()
    own_name = name_key(fruit_name)
    for record in records:
        name = record["name"].strip()
        if not name:
            raise ValidationError("A name may not be blank.")
        if len(name) > TEXT_MAX:
            raise ValidationError(f"A name has at most {TEXT_MAX} characters: {name[:40]!r}…")
        key = name_key(name)
        if key == own_name:
            raise ValidationError(f"{name!r} is the fruit's own name, not another name of it.")
        if key in seen:
            raise ValidationError(f"Duplicate name: {name!r}.")
        kind = record.get("kind") or NameKind.SYNONYM
        if kind not in NameKind.values:
            raise ValidationError(
                f"{kind!r} is not a kind of name; one of {', '.join(NameKind.values)}."
            )
        language = record.get("language") or ""
        if language and language not in ISO_639_1:
            raise ValidationError(
                f"{language!r} is not a two-letter lowercase ISO 639-1 language code."
            )
        note = (record.get("note") or "").strip()
        if len(note) > NAME_NOTE_MAX:
            raise ValidationError(f"A name's note has at most {NAME_NOTE_MAX} characters.")
        seen.add(key)
        cleaned.append({"name": name, "kind": str(kind), "language": language, "note": note})
    return cleaned


def names_from_synonyms(synonyms: list[str], *, current: list[dict]) -> list[dict]:
    """Name records for a list of synonym strings: a name whose text is unchanged keeps its
    kind, language and note; a new one is a plain synonym."""
    kept = {record["name"]: record for record in current}
    return [
        {
            **kept.get(text.strip(), {"kind": NameKind.SYNONYM, "language": "", "note": ""}),
            "name": text,
        }
        for text in synonyms
    ]


def clean_synonyms(names: list[str], *, fruit_name: str) -> list[str]:
    """Trim synonym strings and check them as `clean_names` does."""
    records = clean_names([{"name": name} for name in names], fruit_name=fruit_name)
    return [record["name"] for record in records]
