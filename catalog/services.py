"""Writes of fruits: the API and the admin both store through these."""

import random
import time

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max

from catalog.models import CATALOG_NUMBER_MAX, Fruit, FruitSynonym
from fruitcatalog.search import name_key

# Concurrent creates may pick the same "maximum + 1"; the loser retries with a fresh maximum,
# after a short random pause so that writers racing in lockstep spread out.
CATALOG_NUMBER_ATTEMPTS = 50
RETRY_PAUSE_SECONDS = 0.002
NUMBER_TAKEN = "fruit with this catalog number already exists."


def next_catalog_number() -> int:
    """The current maximum catalog number + 1."""
    current = Fruit.objects.aggregate(highest=Max("catalog_number"))["highest"] or 0
    if current >= CATALOG_NUMBER_MAX:
        raise ValidationError({"catalog_number": ["No free catalog number is left; give one."]})
    return current + 1


def fruit_set_synonyms(*, fruit: Fruit, names: list[str]) -> None:
    """Replace the fruit's synonyms with `names` (already cleaned), keeping their order."""
    FruitSynonym.objects.filter(fruit=fruit).delete()
    FruitSynonym.objects.bulk_create(
        FruitSynonym(fruit=fruit, name=name, name_key=name_key(name), position=index)
        for index, name in enumerate(names)
    )


def fruit_save(*, fruit: Fruit, synonym_names: list[str] | None = None) -> Fruit:
    """Store a new or changed fruit; an empty catalog number gets the next free one.

    The assignment is safe under concurrent creates: the unique constraint decides, and a save
    that lost the race retries inside a savepoint with the new maximum. `synonym_names`, when
    given, replace the synonyms; the search column follows name, number and synonyms.
    """
    wants_number = fruit.catalog_number is None
    for attempt in range(CATALOG_NUMBER_ATTEMPTS):
        try:
            with transaction.atomic():
                if wants_number:
                    fruit.catalog_number = next_catalog_number()
                fruit.save()
                if synonym_names is not None:
                    fruit_set_synonyms(fruit=fruit, names=synonym_names)
                fruit.refresh_search_text(synonym_names)
                return fruit
        except IntegrityError:
            if fruit._state.adding:
                fruit.pk = None  # the failed INSERT must not leave an id behind for the retry
            if not wants_number or attempt == CATALOG_NUMBER_ATTEMPTS - 1:
                raise ValidationError({"catalog_number": [NUMBER_TAKEN]}) from None
            time.sleep(random.uniform(0, RETRY_PAUSE_SECONDS * (attempt + 1)))  # noqa: S311
    raise AssertionError("unreachable")


def fruit_create(*, synonym_names: list[str] | None = None, **fields) -> Fruit:
    """Create a fruit with its synonyms."""
    return fruit_save(fruit=Fruit(**fields), synonym_names=synonym_names or [])


def fruit_update(*, fruit: Fruit, synonym_names: list[str] | None = None, **fields) -> Fruit:
    """Update a fruit's fields and, when given, replace its synonyms."""
    for name, value in fields.items():
        setattr(fruit, name, value)
    return fruit_save(fruit=fruit, synonym_names=synonym_names)
