"""Text matching that forgives what visitors type, the same on SQLite and PostgreSQL.

One folding function (`fold`) is used when storing and when searching: case, accents,
apostrophes and punctuation are folded away ("Cox's Orange-Pippin" -> "coxs orange pippin").
German umlauts have two spellings, so a stored text keeps both (`variants`: "schoner" and
"schoener"), and a query folded one way finds either. `word_similarity` is pg_trgm's measure of
how well a query matches the best run of words in a text, for SQLite, which has no pg_trgm.
"""

import re
import unicodedata

from django.db.models import Q

# German transliterations: "Köstliche" is also written "Koestliche".
TRANSLITERATIONS = str.maketrans(
    {"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue", "ß": "ss", "ẞ": "SS"}
)
APOSTROPHES = str.maketrans("", "", "'\u2019\u2018\u02bc`\u00b4")
NOT_A_WORD = re.compile(r"[\W_]+")


def fold(text: str, *, transliterate: bool = False) -> str:
    """Fold for matching: umlauts written out (`transliterate`) or not, marks dropped, casefolded,
    apostrophes removed and any other punctuation a single space ("Schöner" -> "schoner")."""
    if transliterate:
        # Composed first, so that "o" + a combining diaeresis is written out too.
        text = unicodedata.normalize("NFC", text).translate(TRANSLITERATIONS)
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(char for char in decomposed if not unicodedata.combining(char))
    words = NOT_A_WORD.sub(" ", stripped.casefold().translate(APOSTROPHES))
    return " ".join(words.split())


def variants(text: str) -> list[str]:
    """The folded spellings a stored text is found under: with umlauts dropped and written out."""
    plain, written_out = fold(text), fold(text, transliterate=True)
    return [plain] if plain == written_out else [plain, written_out]


def name_key(name: str) -> str:
    """The key under which two names are the same: trimmed and casefolded ("Straße" = "STRASSE").

    Computed here, stored, and made unique in the database, so the database's own case rules
    (PostgreSQL's `LOWER()` depends on the locale) never disagree with validation.
    """
    return name.strip().casefold()


# Between the parts of a search document: control characters no folded text contains (`fold`
# turns them into spaces), so a match never spans two parts. A document may have a head (a
# fruit's own name, in its spellings) ended by HEAD_END, so that a match of the head is known.
PART_SEPARATOR = "\x1f"
HEAD_END = "\x1e"


def search_document(*parts: object, head: object = None) -> str:
    """The folded spellings of the non-empty parts as one text column `contains` can scan.

    With `head`, the document starts with the head's spellings and `HEAD_END`.
    """
    body = PART_SEPARATOR.join(
        spelling
        for part in parts
        if part not in (None, "")
        for spelling in variants(str(part))
        if spelling
    )
    if head is None:
        return body
    return PART_SEPARATOR.join(variants(str(head))) + HEAD_END + body


def spellings_of(head: object, *parts: object) -> list[tuple[str, bool]]:
    """`(spelling, of_head)` for each folded spelling of `head` and the non-empty `parts`, each
    spelling once (one that the head has counts as the head's): the rows of a spellings table."""
    seen, found = set(), []
    for part, of_head in [(head, True), *((part, False) for part in parts)]:
        if part in (None, ""):
            continue
        for spelling in variants(str(part)):
            if spelling and spelling not in seen:
                seen.add(spelling)
                found.append((spelling, of_head))
    return found


def search_query(text: str) -> str:
    """A user's search text folded like the documents, umlauts written out (it never holds a
    separator): the one form of the term that similarity is measured with."""
    return fold(text, transliterate=True)


def search_terms(text: str) -> list[str]:
    """The folded forms a document may contain the search text in: its spellings (`variants`).

    "Köst" is looked for as "kost" (in "Köstliche", stored as "kostliche" too) and as "koest"
    (in "Koestliche", which has no other spelling).
    """
    return [term for term in variants(text) if term]


def contains_any(terms: list[str], field: str = "search_text"):
    """A filter: the column contains one of `terms`."""
    condition = Q()
    for term in terms:
        condition |= Q(**{f"{field}__contains": term})
    return condition


def trigrams(text: str) -> set[str]:
    """pg_trgm's trigrams of a folded text: each word padded with two spaces before, one after."""
    found = set()
    for word in text.split():
        padded = f"  {word} "
        found.update(padded[index : index + 3] for index in range(len(padded) - 2))
    return found


def similarity(word: str, other: str) -> float:
    """pg_trgm's `similarity`: the trigrams two folded texts share over those either has, 0 to 1."""
    mine, theirs = trigrams(word), trigrams(other)
    both = mine | theirs
    return len(mine & theirs) / len(both) if both else 0.0


def dictionary_words(spellings: list[str]) -> set[str]:
    """The words of folded spellings a misspelled word may be corrected to: three characters or
    more, no digit (numbers are identifiers, and a shorter word is never corrected)."""
    return {
        word
        for spelling in spellings
        for word in spelling.split()
        if len(word) >= 3 and not any(char.isdigit() for char in word)
    }


def word_similarity(query: str, document: str, wanted: set[str] | None = None) -> float:
    """How much of the folded query's trigrams the best run of words of one part holds, 0 to 1.

    Close to pg_trgm's `word_similarity(query, document)`: an exact word scores 1, a word with
    one letter wrong about 0.5 to 0.8 depending on its length. `wanted`: the query's trigrams,
    when the caller scores many documents against one query.
    """
    wanted = trigrams(query) if wanted is None else wanted
    if not wanted:
        return 0.0
    width = len(query.split()) + 1
    best = 0.0
    for part in re.split(f"[{PART_SEPARATOR}{HEAD_END}]", document):
        words = part.split()
        for start in range(len(words)):
            window = trigrams(" ".join(words[start : start + width]))
            best = max(best, len(wanted & window) / len(wanted))
            if best == 1.0:
                return best
    return best


class SearchQuerySetMixin:
    """`search()` for a model whose `search_text` column holds its folded searchable text.

    A substring match ignoring case and accents: one indexed `LIKE` (a trigram index on
    PostgreSQL), whatever the model folds into the column (a fruit's names and catalog number,
    a publication's title and authors).
    """

    def search(self, query: str):
        terms = search_terms(query)
        if not terms:
            # Only punctuation ("%", "'"): it resembles no text, so it finds nothing.
            return self.none() if query.strip() else self
        return self.filter(contains_any(terms))
