"""Input rules of fruits shared by the API serializers and the admin forms: one rule, one place."""

from django.core.exceptions import ValidationError

from fruitcatalog.db.search import name_key

SYNONYMS_MAX = 100
TEXT_MAX = 200


def clean_synonyms(names, *, fruit_name: str) -> list[str]:
    """Trim synonyms and reject empty, too long, duplicate (case-insensitive) or the name itself."""
    if len(names) > SYNONYMS_MAX:
        raise ValidationError(f"Ensure this field has no more than {SYNONYMS_MAX} elements.")
    cleaned, seen = [], set()
    own_name = name_key(fruit_name)
    for raw in names:
        name = raw.strip()
        if not name:
            raise ValidationError("A synonym may not be blank.")
        if len(name) > TEXT_MAX:
            raise ValidationError(f"A synonym has at most {TEXT_MAX} characters: {name[:40]!r}…")
        key = name_key(name)
        if key == own_name:
            raise ValidationError(f"{name!r} is the fruit's own name, not a synonym.")
        if key in seen:
            raise ValidationError(f"Duplicate synonym: {name!r}.")
        seen.add(key)
        cleaned.append(name)
    return cleaned
