"""Input rules of fruits shared by the API serializers and the admin forms: one rule, one place."""

import unicodedata

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from catalog.languages import ISO_639_1
from catalog.models import (
    ANCESTRY,
    NAME_NOTE_MAX,
    RELATION_NOTE_MAX,
    SINGLE_KINDS,
    Fruit,
    FruitRelation,
    NameKind,
)
from core.db.search import name_key

NAMES_MAX = 100
RELATIONS_MAX = 100
LOOP_MESSAGE = gettext_lazy("A parentage loop: the fruit would become its own ancestor.")
TEXT_MAX = 200
# What a name never holds: control characters (Cc: tabs, line breaks, \x0b, \x0c, \x85),
# format characters (Cf: invisible, or reordering what a reader sees, as U+202E does), line and
# paragraph separators (Zl, Zp) and lone surrogates (Cs). The zero-width non-joiner and joiner
# are Cf too, but Persian and Indic scripts spell words with them.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
JOINERS = frozenset({"\u200c", "\u200d"})


def too_many(limit: int) -> str:
    """DRF's message for a list over its length, which DRF's German catalog translates."""
    return _("Ensure this field has no more than {max_length} elements.").format(max_length=limit)


def validate_name_text(text: str) -> None:
    """Refuse a name (a fruit's, another of its names, a related variety's) holding a control,
    format or line-separating character."""
    if text.isprintable():  # the usual name: no character of those categories
        return
    for char in text:
        if char not in JOINERS and unicodedata.category(char) in REFUSED_CATEGORIES:
            raise ValidationError(
                _(
                    "A name may not hold control characters, line breaks or invisible "
                    "formatting characters (U+%(code)s here)."
                )
                % {"code": f"{ord(char):04X}"}
            )


def clean_names(records: list[dict], *, fruit_name: str) -> list[dict]:
    """Check a fruit's other names as a whole; return them trimmed, with their defaults.

    Each is `name` (1 to 200 characters, unique within the fruit and not the fruit's own name,
    compared under Unicode case folding), `kind` (`NameKind`), `language` ("" or ISO 639-1)
    and `note` (at most 500 characters).
    """
    if len(records) > NAMES_MAX:
        raise ValidationError(too_many(NAMES_MAX))
    cleaned, seen = [], set()
    own_name = name_key(fruit_name)
    for record in records:
        name = record["name"].strip()
        if not name:
            raise ValidationError(_("A name may not be blank."))
        if len(name) > TEXT_MAX:
            raise ValidationError(
                _("A name has at most %(max)s characters: %(name)s…")
                % {"max": TEXT_MAX, "name": repr(name[:40])}
            )
        validate_name_text(name)
        key = name_key(name)
        if key == own_name:
            raise ValidationError(
                _("%(name)s is the fruit's own name, not another name of it.")
                % {"name": repr(name)}
            )
        if key in seen:
            raise ValidationError(_("Duplicate name: %(name)s.") % {"name": repr(name)})
        kind = record.get("kind") or NameKind.SYNONYM
        if kind not in NameKind.values:
            raise ValidationError(
                _("%(kind)s is not a kind of name; one of %(kinds)s.")
                % {"kind": repr(kind), "kinds": ", ".join(NameKind.values)}
            )
        language = record.get("language") or ""
        if language and language not in ISO_639_1:
            raise ValidationError(
                _("%(language)s is not a two-letter lowercase ISO 639-1 language code.")
                % {"language": repr(language)}
            )
        note = (record.get("note") or "").strip()
        if len(note) > NAME_NOTE_MAX:
            raise ValidationError(
                _("A name's note has at most %(max)s characters.") % {"max": NAME_NOTE_MAX}
            )
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


def clean_relations(records: list[dict], *, fruit_id: int | None) -> list[dict]:
    """Check a fruit's relations as a whole; return them with the related fruits' names.

    Each is `kind`, exactly one of `fruit_id` (a fruit of the catalog) and `name` (1 to 200
    characters), and `note` (at most 500). Refused: a relation to the fruit itself, more than
    one mother, father or `sport_of`, the same relation twice, an unknown fruit, and a parentage
    loop (the fruit would become its own ancestor).
    """
    if len(records) > RELATIONS_MAX:
        raise ValidationError(too_many(RELATIONS_MAX))
    ids = {record["fruit_id"] for record in records if record.get("fruit_id") is not None}
    names = dict(Fruit.objects.filter(pk__in=ids).values_list("pk", "name"))
    cleaned, seen, counts = [], set(), {}
    for record in records:
        kind, other, text = record["kind"], record.get("fruit_id"), (record.get("name") or "")
        text = text.strip()
        if (other is None) == (not text):
            raise ValidationError(_("Give a relation either `fruit_id` or `name`, not both."))
        if other is not None:
            if fruit_id is not None and other == fruit_id:
                raise ValidationError(_("A fruit cannot be related to itself."))
            if other not in names:
                raise ValidationError(_("There is no fruit %(id)s.") % {"id": other})
            text = names[other]
        elif len(text) > TEXT_MAX:
            raise ValidationError(
                _("A related name has at most %(max)s characters.") % {"max": TEXT_MAX}
            )
        else:
            validate_name_text(text)
        note = (record.get("note") or "").strip()
        if len(note) > RELATION_NOTE_MAX:
            raise ValidationError(
                _("A relation's note has at most %(max)s characters.") % {"max": RELATION_NOTE_MAX}
            )
        key = (kind, name_key(text))  # a fruit and its name are the same variety
        if key in seen:
            raise ValidationError(
                _("The relation %(kind)s %(name)s is given twice.")
                % {"kind": kind, "name": repr(text)}
            )
        seen.add(key)
        counts[kind] = counts.get(kind, 0) + 1
        if kind in SINGLE_KINDS and counts[kind] > 1:
            raise ValidationError(_("A fruit has one `%(kind)s` at most.") % {"kind": kind})
        cleaned.append({"kind": str(kind), "other_id": other, "name": text, "note": note})
    if fruit_id is not None:
        ancestors = [r["other_id"] for r in cleaned if r["kind"] in ANCESTRY and r["other_id"]]
        if descends_from(ancestors, fruit_id):
            raise ValidationError(LOOP_MESSAGE)
    return cleaned


def descends_from(starts: list[int], ancestor: int, limit: int = 10_000) -> bool:
    """Whether `ancestor` is among `starts` or their ancestors (mother, father, parent,
    `sport_of`, `seedling_of`): one query per generation, at most `limit` fruits visited."""
    seen, frontier = set(), set(starts)
    while frontier and len(seen) < limit:
        if ancestor in frontier:
            return True
        seen |= frontier
        frontier = (
            set(
                FruitRelation.objects.filter(
                    fruit_id__in=frontier, kind__in=ANCESTRY, other__isnull=False
                ).values_list("other_id", flat=True)
            )
            - seen
        )
    return False
