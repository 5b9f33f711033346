"""`manage.py purge_deleted`: past the retention, a deleted fruit's kept images go and it can no
longer be restored nor is it listed; its history stays. Idempotent; a dry run changes nothing."""

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db.models import F

from catalog.models import Fruit, FruitImage, KeptFruitImage
from history.models import RECORDED, PurgedFruit

pytestmark = pytest.mark.django_db

FRUITS = "/api/v1/fruits"
DELETED = "/api/v1/deleted-fruits"


def purge(*args) -> str:
    out = io.StringIO()
    call_command("purge_deleted", *args, stdout=out)
    return out.getvalue()


def deleted_fruit(client, fruit_factory, add_image, *, name, images, days_ago) -> int:
    """A fruit with `images` images, deleted through the API `days_ago` days ago; its id."""
    fruit = fruit_factory(name=name)
    for _ in range(images):
        add_image(fruit)
    assert client.delete(f"{FRUITS}/{fruit.pk}").status_code == 204
    ago = timedelta(days=days_ago)
    revisions = {
        *Fruit.history.filter(id=fruit.pk).values_list("revision", flat=True),
        *FruitImage.history.filter(fruit_id=fruit.pk).values_list("revision", flat=True),
    }
    for model, _ in RECORDED:  # its whole history, as if it had all happened that long ago
        model.history.filter(revision__in=revisions).update(history_date=F("history_date") - ago)
    KeptFruitImage.objects.filter(fruit_id=fruit.pk).update(kept_at=F("kept_at") - ago)
    return fruit.pk


@pytest.fixture
def deleted(curator_client, fruit_factory, add_image):
    """Two fruits deleted 40 and 31 days ago (two images and one kept), one yesterday (one)."""
    return [
        deleted_fruit(curator_client, fruit_factory, add_image, name=name, images=n, days_ago=d)
        for name, n, d in (("Boskoop", 2, 40), ("Topaz", 1, 31), ("Elstar", 1, 1))
    ]


def listed(client) -> list[int]:
    return sorted(row["id"] for row in client.get(DELETED).json()["results"])


def kept_of(*fruit_ids) -> int:
    return KeptFruitImage.objects.filter(fruit_id__in=fruit_ids).count()


def test_a_dry_run_counts_and_changes_nothing(curator_client, deleted):
    output = purge("--dry-run")

    assert "Dry run: 2 deleted fruits (3 kept images, " in output
    assert "deleted more than 30 days ago would be purged" in output
    assert kept_of(*deleted) == 4
    assert not PurgedFruit.objects.exists()
    assert listed(curator_client) == sorted(deleted)


def test_the_purge_removes_what_the_retention_no_longer_keeps_and_such_a_fruit_is_no_restore(
    curator_client, deleted, reads_no_bytes
):
    old, older, recent = deleted

    with reads_no_bytes():
        output = purge("--batch-size", "1")

    assert "2 deleted fruits (3 kept images, " in output
    assert "deleted more than 30 days ago purged: they can no longer be restored" in output
    assert (kept_of(old, older), kept_of(recent)) == (0, 1)
    assert set(PurgedFruit.objects.values_list("fruit_id", flat=True)) == {old, older}
    assert listed(curator_client) == [recent]
    assert curator_client.post(f"{DELETED}/{old}/restore").status_code == 404
    assert curator_client.post(f"{DELETED}/{older}/restore").status_code == 404
    history = curator_client.get(f"{FRUITS}/{old}/history")
    assert history.status_code == 200
    actions = [version["action"] for version in history.json()["results"]]
    assert (actions[0], actions[-1]) == ("deleted", "created")
    restored = curator_client.post(f"{DELETED}/{recent}/restore")
    assert restored.status_code == 201, restored.content
    assert len(restored.json()["images"]) == 1

    assert "nothing to do" in purge()
    assert PurgedFruit.objects.count() == 2


def test_a_retention_of_zero_purges_every_deleted_fruit_even_one_just_deleted(
    curator_client, deleted, fruit_factory, add_image, settings
):
    settings.FRUITCATALOG_DELETED_RETENTION_DAYS = 0
    just_now = deleted_fruit(
        curator_client, fruit_factory, add_image, name="Pinova", images=1, days_ago=0
    )

    output = purge()

    assert "4 deleted fruits (5 kept images, " in output
    assert "deleted more than 0 days ago purged" in output
    assert not KeptFruitImage.objects.exists()
    assert listed(curator_client) == []
    assert curator_client.post(f"{DELETED}/{just_now}/restore").status_code == 404


def test_images_kept_of_a_fruit_whose_deletion_left_the_history_are_purged_too(
    curator_client, deleted
):
    old, _, recent = deleted
    Fruit.history.filter(id=old).delete()

    output = purge()

    assert "1 deleted fruits (3 kept images, " in output
    assert (kept_of(old), kept_of(recent)) == (0, 1)


def test_nothing_deleted_is_nothing_to_do(db):
    assert "No fruit was deleted more than 30 days ago: nothing to do." in purge()


def test_a_negative_retention_is_refused(settings):
    settings.FRUITCATALOG_DELETED_RETENTION_DAYS = -1
    with pytest.raises(CommandError, match="0 or more"):
        purge()
