"""Accent- and case-insensitive text matching that behaves the same on SQLite and PostgreSQL."""

import unicodedata


def fold(text: str) -> str:
    """Fold for matching: decompose, drop combining marks, casefold ("Schöner" -> "schoner")."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(char for char in decomposed if not unicodedata.combining(char))
    return stripped.casefold()


def name_key(name: str) -> str:
    """The key under which two names are the same: trimmed and casefolded ("Straße" = "STRASSE").

    Computed here, stored, and made unique in the database, so the database's own case rules
    (PostgreSQL's `LOWER()` depends on the locale) never disagree with validation.
    """
    return name.strip().casefold()


# Between the parts of a search document: a control character no name contains and
# `search_query` removes, so a match never spans two parts.
PART_SEPARATOR = "\x1f"


def search_document(*parts: object) -> str:
    """Join the folded, non-empty parts into one text column that `contains` lookups can scan."""
    return PART_SEPARATOR.join(
        fold(str(part)).replace(PART_SEPARATOR, " ") for part in parts if part not in (None, "")
    )


def search_query(text: str) -> str:
    """A user's search text folded like the documents, without the part separator."""
    return fold(text.strip()).replace(PART_SEPARATOR, "")


class SearchQuerySetMixin:
    """`search()` for a model whose `search_text` column holds its folded searchable text.

    A substring match ignoring case and accents: one indexed `LIKE` (a trigram index on
    PostgreSQL), whatever the model folds into the column (a fruit's names and catalog number,
    a publication's title and authors).
    """

    def search(self, query: str):
        folded = search_query(query)
        if not folded:
            return self
        return self.filter(search_text__contains=folded)
