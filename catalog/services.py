"""Writes that span several catalog models."""

import random
import time

from django.db import IntegrityError, transaction
from django.db.models import Max
from rest_framework.exceptions import ValidationError

from catalog.models import CATALOG_NUMBER_MAX, Fruit, FruitSynonym
from catalog.search import name_key

# Concurrent creates may pick the same "maximum + 1"; the loser retries with a fresh maximum,
# after a short random pause so that writers racing in lockstep spread out.
CATALOG_NUMBER_ATTEMPTS = 50
RETRY_PAUSE_SECONDS = 0.002


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


def fruit_create(*, synonym_names: list[str] | None = None, **fields) -> Fruit:
    """Create a fruit with its synonyms, assigning the next free catalog number when none is given.

    The assignment is safe under concurrent creates: the unique constraint decides, and a create
    that lost the race retries inside a savepoint with the new maximum.
    """
    synonym_names = synonym_names or []
    wants_number = fields.get("catalog_number") is None
    for attempt in range(CATALOG_NUMBER_ATTEMPTS):
        try:
            with transaction.atomic():
                fruit = Fruit(**fields)
                if wants_number:
                    fruit.catalog_number = next_catalog_number()
                fruit.save()
                fruit_set_synonyms(fruit=fruit, names=synonym_names)
                fruit.refresh_search_text(synonym_names)
                return fruit
        except IntegrityError:
            if not wants_number or attempt == CATALOG_NUMBER_ATTEMPTS - 1:
                raise ValidationError(
                    {"catalog_number": ["fruit with this catalog number already exists."]}
                ) from None
            time.sleep(random.uniform(0, RETRY_PAUSE_SECONDS * (attempt + 1)))  # noqa: S311
    raise AssertionError("unreachable")


@transaction.atomic
def fruit_update(*, fruit: Fruit, synonym_names: list[str] | None = None, **fields) -> Fruit:
    """Update a fruit's fields and, when given, replace its synonyms."""
    for name, value in fields.items():
        setattr(fruit, name, value)
    try:
        with transaction.atomic():
            fruit.save()
    except IntegrityError:
        raise ValidationError(
            {"catalog_number": ["fruit with this catalog number already exists."]}
        ) from None
    if synonym_names is not None:
        fruit_set_synonyms(fruit=fruit, names=synonym_names)
    fruit.refresh_search_text(synonym_names)
    return fruit
