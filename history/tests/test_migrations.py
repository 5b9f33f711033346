"""Rows stored before the history was installed get a first version, which the reverse removes."""

import pytest

pytestmark = pytest.mark.slow


@pytest.mark.django_db(transaction=True)
def test_rows_stored_before_the_history_get_a_baseline_version(migrator):
    old = migrator.apply_initial_migration(("history", "0002_purgedfruit"))
    Fruit = old.apps.get_model("catalog", "Fruit")
    FruitName = old.apps.get_model("catalog", "FruitName")
    fruit = Fruit.objects.create(name="Topaz", type="apple", catalog_number=3)
    FruitName.objects.create(fruit=fruit, name="Topas", name_key="topas", position=0)

    new = migrator.apply_tested_migration(("history", "0003_baseline_versions"))
    (row,) = new.apps.get_model("history", "HistoricalFruit").objects.filter(id=fruit.pk)
    assert (row.name, row.history_type, row.via, row.history_user_id) == (
        "Topaz",
        "+",
        "command",
        None,
    )
    (name,) = new.apps.get_model("history", "HistoricalFruitName").objects.all()
    assert (name.name, name.fruit_id, name.revision) == ("Topas", fruit.pk, row.revision)

    back = migrator.apply_tested_migration(("history", "0002_purgedfruit"))
    assert not back.apps.get_model("history", "HistoricalFruit").objects.exists()
    migrator.reset()
