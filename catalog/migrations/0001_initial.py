"""Baseline: the catalog app exists, with no tables yet."""

from django.db import migrations


class Migration(migrations.Migration):
    initial = True

    dependencies = []

    operations = []
