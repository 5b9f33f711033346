"""Synonym uniqueness on a stored casefolded key instead of the database's LOWER().

PostgreSQL's LOWER() follows the database locale (it folds "İ" to "i"), Python's casefold does not
(and folds "ß" to "ss", which LOWER() does not), so validation and the constraint could disagree.
"""

from django.db import migrations, models
from django.db.models.functions import Lower

from fruitcatalog.search import name_key


def fill_name_keys(apps, schema_editor):
    FruitSynonym = apps.get_model("catalog", "FruitSynonym")
    seen, duplicates, batch = set(), [], []
    for synonym in FruitSynonym.objects.order_by("fruit_id", "position", "pk").iterator():
        synonym.name_key = name_key(synonym.name)
        if (synonym.fruit_id, synonym.name_key) in seen:
            # Only possible for names LOWER() told apart and casefold does not ("Straße",
            # "STRASSE"): the same synonym twice, so the later one goes.
            duplicates.append(synonym.pk)
            continue
        seen.add((synonym.fruit_id, synonym.name_key))
        batch.append(synonym)
        if len(batch) == 1000:
            FruitSynonym.objects.bulk_update(batch, ["name_key"])
            batch = []
    FruitSynonym.objects.bulk_update(batch, ["name_key"])
    FruitSynonym.objects.filter(pk__in=duplicates).delete()


def drop_lower_duplicates(apps, schema_editor):
    """Before the LOWER(name) constraint returns: drop synonyms it would see as duplicates.

    LOWER() is the database's (PostgreSQL's follows its locale), so it is asked, not imitated.
    """
    FruitSynonym = apps.get_model("catalog", "FruitSynonym")
    seen, duplicates = set(), []
    rows = (
        FruitSynonym.objects.annotate(lowered=Lower("name"))
        .order_by("fruit_id", "position", "pk")
        .values_list("pk", "fruit_id", "lowered")
    )
    for pk, fruit_id, lowered in rows.iterator():
        if (fruit_id, lowered) in seen:
            duplicates.append(pk)
        seen.add((fruit_id, lowered))
    FruitSynonym.objects.filter(pk__in=duplicates).delete()


class Migration(migrations.Migration):
    dependencies = [("catalog", "0009_fruit_name_index")]

    operations = [
        migrations.AddField(
            model_name="fruitsynonym",
            name="name_key",
            field=models.TextField(default="", editable=False),
            preserve_default=False,
        ),
        migrations.RunPython(fill_name_keys, migrations.RunPython.noop),
        migrations.RemoveConstraint(
            model_name="fruitsynonym", name="fruitsynonym_unique_name_per_fruit"
        ),
        # Runs only backwards, between dropping the new constraint and restoring the old one.
        migrations.RunPython(migrations.RunPython.noop, drop_lower_duplicates),
        migrations.AddConstraint(
            model_name="fruitsynonym",
            constraint=models.UniqueConstraint(
                fields=("fruit", "name_key"), name="fruitsynonym_unique_name_key_per_fruit"
            ),
        ),
    ]
