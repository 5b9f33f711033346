"""A relation's name key (the name trimmed and casefolded, as other names are keyed), indexed
for the relations still given by name: a fruit written finds the relations that name it."""

from django.db import migrations, models

from catalog.migration_data import name_key

BATCH_SIZE = 1000


def fill(apps, schema_editor):
    FruitRelation = apps.get_model("catalog", "FruitRelation")
    last_pk = 0
    while True:
        batch = list(
            FruitRelation.objects.filter(pk__gt=last_pk)
            .order_by("pk")
            .only("pk", "name")[:BATCH_SIZE]
        )
        if not batch:
            return
        for relation in batch:
            relation.name_key = name_key(relation.name)
        FruitRelation.objects.bulk_update(batch, ["name_key"])
        last_pk = batch[-1].pk


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0026_rename_fruitsynonym_fruitname"),
    ]

    operations = [
        migrations.AddField(
            model_name="fruitrelation",
            name="name_key",
            field=models.TextField(default="", editable=False),
            preserve_default=False,
        ),
        # Backwards, dropping the column removes the keys.
        migrations.RunPython(fill, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name="fruitrelation",
            index=models.Index(fields=["name_key", "other"], name="catalog_relation_by_name_idx"),
        ),
    ]
