"""Helpers of the identification tests of every app: describing a fruit, and the standard
characteristics for tests that run after a transactional test flushed the tables."""

import importlib

from django.apps import apps

from identification.models import Characteristic
from identification.services import fruit_set_characteristics
from identification.validators import clean_fruit_characteristics

MIGRATION = "identification.migrations.0002_standard_characteristics"
GERMAN_MIGRATION = "identification.migrations.0006_standard_characteristics_german"


def ensure_standard_characteristics() -> None:
    """Install the standard characteristics again, with their German wording, when a flush
    removed them (their data migrations' rows are gone then, as the Curators group is)."""
    migration = importlib.import_module(MIGRATION)
    if not Characteristic.objects.filter(code__in=migration.CODES).exists():
        migration.install(apps, None)
        importlib.import_module(GERMAN_MIGRATION).add_german(apps, None)


def describe(fruit, entries: dict, **extra) -> None:
    """Store the fruit's values as the API does: `{code: [values]}` (`extra`: more fields of an
    entry, by code)."""
    records = clean_fruit_characteristics(
        [
            {"code": code, "values": values, **extra.get(code, {})}
            for code, values in entries.items()
        ],
        fruit_type=fruit.type,
    )
    fruit_set_characteristics(fruit=fruit, records=records)
