"""The standard characteristics for tests that run after a transactional test flushed the
tables: their data migration's rows are gone then (as the Curators group is)."""

import importlib

from django.apps import apps

from identification.models import Characteristic

MIGRATION = "identification.migrations.0002_standard_characteristics"


def ensure_standard_characteristics() -> None:
    """Install the standard characteristics again when a flush removed them."""
    migration = importlib.import_module(MIGRATION)
    if not Characteristic.objects.filter(code__in=migration.CODES).exists():
        migration.install(apps, None)
