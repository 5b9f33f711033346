"""The forgiving fruit search: any name, any spelling, relevance first, "did you mean".

A fruit's `search_text` holds the folded spellings of its own name (the document's head), then
its catalog number and the spellings of its other names (`core.db.search`). A search:

- matches every fruit whose document contains the folded term, and, when those are few, the
  fuzzy matches: fruits holding the term's words or their corrections from the dictionary of
  the catalog's words (`SearchWord`, as a search engine's term suggester), whose
  `word_similarity` to the term (pg_trgm's measure; the same in Python on SQLite) reaches
  `FUZZY_MATCH`. Guessing costs what the dictionary costs, not the catalog, and does not depend
  on the machine's load;
- ranks them: the fruit's own name equal to the term, another name equal to it, a name starting
  with it, a name containing it, then the fuzzy matches by similarity; ties in catalog order.
  Ranked, a search lists its best `RANKED_MAX` matches, found without ranking every match: the
  fruit's spellings (`FruitSpelling`) give each tier's first matches in catalog order by index;
- names, for each fruit shown, the name it matched through when that is not its own
  (`matched_name`), and, when nothing matched, up to five of the closest names (`suggestions`).

`FUZZY_MATCH` and `SUGGESTION_MIN` were chosen with the quality test's real variety names and
misspellings (`catalog/tests/test_search_quality.py`).
"""

import logging
from functools import cached_property

from django.db import connection
from django.db.models import Case, F, FloatField, IntegerField, Q, Value, When

from core.db.budgets import OutOfTime, time_budget
from core.db.search import (
    HEAD_END,
    PART_SEPARATOR,
    contains_any,
    search_query,
    search_terms,
    similarity,
    trigrams,
    variants,
    word_similarity,
)

SEARCH_MAX = 200  # characters of a search term: a name's length, and a bounded cost
FUZZY_MATCH = 0.5  # least word similarity of a fuzzy match
SUGGESTION_MIN = 0.3  # least word similarity of a "did you mean" suggestion
SUGGESTIONS_MAX = 5
FUZZY_MAX = 100  # fuzzy matches kept, at most (the best ones: four pages)
FUZZY_WHEN_FEWER = 24  # substring matches below this (a page): the closest spellings join them
FUZZY_SCAN = 300  # candidates measured, at most, before the best are kept
CORRECTION_MIN = 0.2  # least similarity of a dictionary word a misspelled word is corrected to
CORRECTIONS_MAX = 5  # corrections of one word, at most (the closest)
CORRECTED_WORDS_MAX = 5  # words of a term looked up in the dictionary, at most
SQLITE_WORD_SCAN = 50_000  # SQLite: dictionary words whose similarity is computed, at most
FUZZY_GUARD_MS = 2_000  # PostgreSQL: a guard against a pathological lookup, not a budget
RANKED_MAX = 1_000  # a search by relevance lists its best matches, this many at most

logger = logging.getLogger(__name__)

EXACT_OWN_NAME, EXACT_OTHER_NAME, STARTS_WITH, CONTAINS, FUZZY = range(5)


def forgives(term: str) -> bool:
    """Whether a folded term is looked up fuzzily too: a word of four letters or more, no digits.

    Numbers are identifiers (catalog 4711 is not 4712), and in a term of one to three letters a
    single trigram decides, which would find nearly anything.
    """
    return len(term) >= 4 and not any(char.isdigit() for char in term)


def relevance(terms: list[str]):
    """SQL: how a fruit's document matches one of the folded `terms` (lower is better)."""
    sep, head = PART_SEPARATOR, HEAD_END
    own_name, other_name, starts = Q(), Q(), Q()
    for term in terms:
        own_name |= (
            Q(search_text__startswith=f"{term}{head}")
            | Q(search_text__startswith=f"{term}{sep}")  # the first of two spellings
            | Q(search_text__contains=f"{sep}{term}{head}")  # the second
        )
        other_name |= (
            Q(search_text__endswith=f"{head}{term}")
            | Q(search_text__endswith=f"{sep}{term}")
            | Q(search_text__contains=f"{head}{term}{sep}")
            | Q(search_text__contains=f"{sep}{term}{sep}")
        )
        starts |= (
            Q(search_text__startswith=term)
            | Q(search_text__contains=f"{sep}{term}")
            | Q(search_text__contains=f"{head}{term}")
        )
    return Case(
        When(own_name, then=Value(EXACT_OWN_NAME)),
        When(other_name, then=Value(EXACT_OTHER_NAME)),
        When(starts, then=Value(STARTS_WITH)),
        When(contains_any(terms), then=Value(CONTAINS)),
        default=Value(FUZZY),
        output_field=IntegerField(),
    )


def search_fruits(queryset, text: str, *, by_relevance: bool):
    """`queryset` narrowed to the fruits `text` finds, ranked when `by_relevance`.

    The closest spellings join the matches when the term's substring matches do not fill a
    page: a term that names many fruits as typed ("boskoop") needs no guessing. Ranked, a
    search lists its best `RANKED_MAX` matches (`ranked_window`).
    """
    term, terms = search_query(text), search_terms(text)
    if not term:
        # Only punctuation ("%", "'"): it resembles no name, so it finds nothing.
        return queryset.none() if text.strip() else queryset
    matches = contains_any(terms)
    # Whether the substring matches fill a page, and whether they are few enough to rank all.
    some = list(queryset.filter(matches).order_by().values_list("pk", flat=True)[: RANKED_MAX + 1])
    scores = {}
    if forgives(term) and len(some) < FUZZY_WHEN_FEWER:
        scores = fuzzy_scores(term, FUZZY_MATCH)
    found = queryset.filter(matches | Q(pk__in=list(scores)) if scores else matches)
    found = found.annotate(
        search_similarity=Case(
            *(When(pk=pk, then=Value(score)) for pk, score in scores.items()),
            default=Value(0.0),
            output_field=FloatField(),
        )
    )
    if not by_relevance:
        return found
    # Similarity orders the fuzzy matches only; every other rank keeps the catalog order.
    fuzzy_similarity = Case(
        When(search_rank=FUZZY, then=F("search_similarity")),
        default=Value(0.0),
        output_field=FloatField(),
    )
    ranked = found.annotate(search_rank=relevance(terms)).order_by(
        "search_rank",
        fuzzy_similarity.desc(),
        F("catalog_number").asc(nulls_last=True),
        "pk",
    )
    if len(some) <= RANKED_MAX:  # all of them: ranking them costs little
        return ranked.filter(pk__in=[*some, *scores])
    candidates = ranked_window(queryset, terms)
    best = ranked.filter(pk__in=candidates).values_list("pk", flat=True)[:RANKED_MAX]
    return ranked.filter(pk__in=list(best))


def ranked_window(queryset, terms: list[str]) -> list[int]:
    """Ids among which the first `RANKED_MAX` fruits by relevance are, whatever the catalog's
    size: the first `RANKED_MAX` in catalog order of each tier's matches (a term with that
    many substring matches has no fuzzy ones).

    Each tier's matches come in catalog order from an index (the spellings' B-tree for exact
    names and name starts, the catalog order for the rest), so no query ranks every match.
    A fruit ranked within the first `RANKED_MAX` is among the first `RANKED_MAX` matches of
    its tier, or of a wider condition, in catalog order: the fruits before it there rank before
    it too.
    """
    from catalog.models import FruitSpelling

    order = [F("catalog_number").asc(nulls_last=True), "fruit_id"]
    spellings = FruitSpelling.objects.all()
    if queryset.query.has_filters():  # another filter (type, catalog number) narrows each tier
        spellings = spellings.filter(fruit__in=queryset.values("pk"))
    ids = set()
    # One query per spelling of the term: each is one index range (an OR of two is not).
    for term in terms:
        for condition in (
            Q(spelling=term, is_own_name=True),
            Q(spelling=term),
            Q(spelling__startswith=term),
        ):
            rows = (
                spellings.filter(condition)
                .order_by(*order)
                .values_list("catalog_number", "fruit_id")
                .distinct()[:RANKED_MAX]
            )
            ids.update(fruit_id for _, fruit_id in rows)
    in_order = queryset.filter(contains_any(terms)).order_by(*order[:1], "pk")
    ids.update(in_order.values_list("pk", flat=True)[:RANKED_MAX])
    return sorted(ids)


def fuzzy_scores(term: str, least: float) -> dict[int, float]:
    """Fruits whose document is at least `least` word-similar to `term`: the best `FUZZY_MAX`
    of at most `FUZZY_SCAN` such fruits, best first, ties by id.

    Guessed as a search engine's term suggester does, so that the cost follows the dictionary of
    words (`SearchWord`), not the catalog: each word of the term is joined by its closest words
    of the catalog (`corrections`); the candidates are the fruits
    whose document holds, for every word, the word as typed or a correction of it, else (none
    does) for any word that may be corrected. Among more candidates than `FUZZY_SCAN`, any are as
    good a guess. Each candidate is then measured against the whole term, as typed:
    PostgreSQL's `word_similarity` (pg_trgm), the same measure in Python on SQLite.
    """
    try:
        with time_budget(FUZZY_GUARD_MS):
            rows = _fuzzy_candidates(term)
    except OutOfTime:
        logger.warning("fuzzy search for %r outlasted %s ms: no guesses", term, FUZZY_GUARD_MS)
        return {}
    best = sorted((row for row in rows if row[1] >= least), key=lambda row: (-row[1], row[0]))
    return dict(best[:FUZZY_MAX])


def _fuzzy_candidates(term: str) -> list[tuple[int, float]]:
    """`(fruit id, word similarity to term)` of at most `FUZZY_SCAN` candidates (`fuzzy_scores`)."""
    from catalog.models import Fruit

    words = corrections(term)
    if words is None:
        return []
    every = Q()
    for spellings in words:
        every &= contains_any(spellings)
    forgiving = [spellings for spellings in words if forgives(spellings[0])]
    any_forgiving = Q()
    for spellings in forgiving:
        any_forgiving |= contains_any(spellings)
    conditions = [every]
    if len(words) > 1 and forgiving:  # else no wider than `every`
        conditions.append(any_forgiving)
    for condition in conditions:
        candidates = Fruit.objects.filter(condition).order_by()
        if connection.vendor == "postgresql":
            from django.contrib.postgres.search import TrigramWordSimilarity

            rows = list(
                candidates.annotate(
                    similarity=TrigramWordSimilarity(term, "search_text")
                ).values_list("pk", "similarity")[:FUZZY_SCAN]
            )
        else:
            wanted = trigrams(term)
            rows = [
                (pk, word_similarity(term, document, wanted))
                for pk, document in candidates.values_list("pk", "search_text")[:FUZZY_SCAN]
            ]
        if rows:
            return rows
    return []


def corrections(term: str) -> list[list[str]] | None:
    """For each word of the folded `term`, the spellings a document may hold it in: the word as
    typed, then, for a word of four letters or more (`forgives`), its closest other words in the
    dictionary (`CORRECTIONS_MAX` at most, each at least `CORRECTION_MIN` similar): a word of
    the catalog has neighbours a spelling away too ("boskoop", "boskop"). None when no word has
    any: the term's substring search already said all there is.

    At most `CORRECTED_WORDS_MAX` words are looked up (one indexed query each on PostgreSQL,
    the trigram GiST index's nearest neighbours); the others stay as typed.
    """
    words, dictionary = list(dict.fromkeys(term.split())), SqliteDictionary()
    if not any(forgives(word) for word in words):
        return None  # no word may be guessed at ("ab cd"): nothing the substring search missed
    result, corrected, looked_up = [], False, 0
    for word in words:
        spellings = [word]
        if forgives(word) and looked_up < CORRECTED_WORDS_MAX:
            looked_up += 1
            spellings += [found for found in closest_words(word, dictionary) if found != word]
            corrected = corrected or len(spellings) > 1
        result.append(spellings)
    return result if corrected or len(words) > 1 else None


class SqliteDictionary:
    """SQLite's dictionary, read once for all the words of a term (and only if one is looked
    up): at most `SQLITE_WORD_SCAN` words, in their order."""

    @cached_property
    def words(self) -> list[str]:
        from catalog.models import SearchWord

        return list(
            SearchWord.objects.order_by("word").values_list("word", flat=True)[:SQLITE_WORD_SCAN]
        )


def closest_words(word: str, dictionary: "SqliteDictionary") -> list[str]:
    """The dictionary's words closest to `word` (itself first when it is one), at most
    `CORRECTIONS_MAX`, each at least `CORRECTION_MIN` similar (pg_trgm's `similarity`)."""
    from catalog.models import SearchWord

    if connection.vendor == "postgresql":
        from django.contrib.postgres.search import TrigramDistance

        nearest = (
            SearchWord.objects.annotate(distance=TrigramDistance("word", word))
            .order_by("distance", "word")
            .values_list("word", "distance")[:CORRECTIONS_MAX]
        )
        return [found for found, distance in nearest if 1 - distance >= CORRECTION_MIN]
    scored = ((similarity(word, found), found) for found in dictionary.words)
    best = sorted((row for row in scored if row[0] >= CORRECTION_MIN), key=lambda r: (-r[0], r[1]))
    return [found for _, found in best[:CORRECTIONS_MAX]]


def explain_page(fruits, text: str, total: int) -> list[dict]:
    """What a page of search results tells besides its rows, the API's and the grid's alike:
    each fruit's `matched_name`, and the suggestions (`[]` unless the search matched nothing).

    A fruit none of whose own names explains the match was found through a name another app
    holds for it (a name its sources use): those names are read for such fruits only, in one
    query.
    """
    from catalog.models import searched_names_elsewhere

    if not search_query(text):
        return []
    unexplained = []
    for fruit in fruits:
        explained, fruit.matched_name = _matched(fruit, text, [])
        if not explained:
            unexplained.append(fruit)
    if unexplained:
        elsewhere = searched_names_elsewhere([fruit.pk for fruit in unexplained])
        for fruit in unexplained:
            fruit.matched_name = matched_name(fruit, text, elsewhere.get(fruit.pk, []))
    return suggestions(text) if total == 0 else []


def matched_name(fruit, text: str, elsewhere: list[str] = ()) -> str | None:
    """The name through which `fruit` matched `text`, when it is not its own name.

    Its other names are looked at, then `elsewhere` (names other apps hold for it: the names
    its sources use). None when the fruit matched through its own name or its catalog number:
    a name counts only when it contains the term, or (for a term looked up fuzzily) is similar
    enough to match.
    """
    return _matched(fruit, text, elsewhere)[1]


def _matched(fruit, text: str, elsewhere: list[str]) -> tuple[bool, str | None]:
    """Whether one of the fruit's names (own, other, `elsewhere`) matches `text`, and which
    one when it is not the own name."""
    term, terms = search_query(text), search_terms(text)
    if not term:
        return False, None
    least = FUZZY_MATCH if forgives(term) else 2.0  # 2: a substring match, at least
    names = [fruit.name, *(name["name"] for name in fruit.name_list), *elsewhere]
    best_index, best_score = 0, -1.0
    for index, name in enumerate(names):
        score = _name_score(term, name, terms)
        if score > best_score:  # ties: the earlier name, the fruit's own first
            best_index, best_score = index, score
    if best_score < least:
        return False, None
    return True, (None if best_index == 0 else names[best_index])


def _name_score(term: str, name: str, terms: list[str] | None = None) -> float:
    """How well one name matches the term: exact 4, start 3, contains 2, else similarity.

    `terms`: the term's spellings (`search_terms`) for the exact tests; `term` alone otherwise.
    """
    spellings, terms = variants(name), terms or [term]
    if any(form in spellings for form in terms):
        return 4.0
    if any(spelling.startswith(form) for spelling in spellings for form in terms):
        return 3.0
    if any(form in spelling for spelling in spellings for form in terms):
        return 2.0
    return max(word_similarity(term, spelling) for spelling in spellings)


def suggestions(text: str) -> list[dict]:
    """Up to five of the closest names in the catalog ("did you mean"), closest first."""
    from catalog.models import Fruit

    term = search_query(text)
    if not forgives(term):
        return []
    scores = fuzzy_scores(term, SUGGESTION_MIN)
    top = list(scores)[:SUGGESTIONS_MAX]
    found = Fruit.objects.only("pk", "name").with_names().in_bulk(top)
    fruits = [found[pk] for pk in top if pk in found]
    result = []
    for fruit in fruits:
        names = [fruit.name, *(name["name"] for name in fruit.name_list)]
        closest = max(names, key=lambda name: _name_score(term, name))
        result.append({"name": closest, "fruit_id": fruit.pk})
    return result
