"""Texts stored in the default language (English) with a column per other language beside them.

A characteristic's `name` is English and `name_de` its German, `""` when no one has written it.
What a page or an answer shows is the text in the active language where it exists, else the
English one: `in_language(name, de=name_de)`, or `localized(characteristic, "name")` for a row
that has the columns. Field names and codes never change with the language; only these texts do.
"""

from django.utils.translation import get_language


def active_language() -> str:
    """The active language's code without its region (`de` for `de-at`)."""
    return (get_language() or "").split("-")[0].lower()


def in_language(default: str, **translations: str) -> str:
    """The translation in the active language where one is given and not empty, else `default`
    (the English text)."""
    return translations.get(active_language()) or default


def localized(instance, field: str) -> str:
    """`instance.<field>` in the active language: its `<field>_<language>` column where the
    model has one and it is not empty, else `<field>` itself."""
    language = active_language()
    translated = getattr(instance, f"{field}_{language}", "") if language else ""
    return translated or getattr(instance, field)
