"""The forgiving fruit search: any name, any spelling, relevance first, "did you mean".

A fruit's `search_text` holds the folded spellings of its own name (the document's head), then
its catalog number and the spellings of its other names (`core.db.search`). A search:

- matches every fruit whose document contains the folded term, and the fuzzy matches: on
  PostgreSQL those whose `word_similarity` to the term reaches `FUZZY_MATCH` (pg_trgm, through
  the trigram index on `search_text`); on SQLite the same measure computed in Python over at most
  `SQLITE_FUZZY_SCAN` fruits;
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

from django.db import connection
from django.db.models import Case, F, FloatField, IntegerField, Q, Value, When

from core.db.budgets import OutOfTime, time_budget
from core.db.search import (
    HEAD_END,
    PART_SEPARATOR,
    contains_any,
    search_query,
    search_terms,
    trigrams,
    variants,
    word_similarity,
)

SEARCH_MAX = 200  # characters of a search term: a name's length, and a bounded cost
FUZZY_MATCH = 0.5  # least word similarity of a fuzzy match
SUGGESTION_MIN = 0.3  # least word similarity of a "did you mean" suggestion
SUGGESTIONS_MAX = 5
SQLITE_FUZZY_SCAN = 20_000  # SQLite: fruits whose similarity is computed, at most
FUZZY_MAX = 200  # fuzzy matches kept, at most (the best ones)
FUZZY_WHEN_FEWER = 24  # substring matches below this (a page): the closest spellings join them
FUZZY_SCAN = 300  # PostgreSQL: similar fruits found, at most, before the best are kept
FUZZY_BUDGET_MS = 60  # PostgreSQL: time a fuzzy lookup may take before it guesses nothing
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

    The work is bounded: among more fruits than that, any are as good a guess. PostgreSQL:
    pg_trgm's `%>` finds the candidates (from `pg_trgm.word_similarity_threshold`, set to
    `least` here), through the trigram index or in storage order, as the planner judges the
    term's frequency; a scan that outlasts `FUZZY_BUDGET_MS` (the index's candidates for a term
    made of common trigrams can be many, each measured) guesses nothing. SQLite: the same
    measure in Python over at most `SQLITE_FUZZY_SCAN` fruits (by id): the embedded database
    serves small catalogs.
    """
    from catalog.models import Fruit

    if connection.vendor == "postgresql":
        from django.contrib.postgres.search import TrigramWordSimilarity

        try:
            with time_budget(FUZZY_BUDGET_MS), connection.cursor() as cursor:
                cursor.execute(  # for this transaction only
                    "SELECT set_config('pg_trgm.word_similarity_threshold', %s, true)", [str(least)]
                )
                rows = list(
                    Fruit.objects.filter(search_text__trigram_word_similar=term)
                    .annotate(similarity=TrigramWordSimilarity(term, "search_text"))
                    .order_by()
                    .values_list("pk", "similarity")[:FUZZY_SCAN]
                )
        except OutOfTime:
            logger.info("fuzzy search for %r outlasted %s ms: no guesses", term, FUZZY_BUDGET_MS)
            return {}
    else:
        documents = Fruit.objects.order_by("pk").values_list("pk", "search_text")
        wanted = trigrams(term)
        rows = [
            (pk, word_similarity(term, document, wanted))
            for pk, document in documents[:SQLITE_FUZZY_SCAN]
        ]
    best = sorted((row for row in rows if row[1] >= least), key=lambda row: (-row[1], row[0]))
    return dict(best[:FUZZY_MAX])


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
