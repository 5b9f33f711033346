"""The publications' migration history: stored covers and thumbnails get their sizes."""

import hashlib

import pytest
from django.db import connection
from django.db.migrations.loader import MigrationLoader

from blobs import imaging
from core.testing.media import make_image_bytes, make_object_png

pytestmark = pytest.mark.slow


def latest(app_label: str) -> tuple[str, str]:
    """The leaf migration of an app."""
    (leaf,) = MigrationLoader(connection).graph.leaf_nodes(app_label)
    return leaf


def sha256(data: bytes | None) -> str:
    return hashlib.sha256(data).hexdigest() if data else ""


@pytest.mark.django_db(transaction=True)
def test_stored_covers_and_thumbnails_get_their_width_and_height(migrator):
    old = migrator.apply_initial_migration(
        [
            ("catalog", "0013_store_images_uncompressed"),
            ("publications", "0004_store_images_uncompressed"),
        ]
    )
    Fruit = old.apps.get_model("catalog", "Fruit")
    Publication = old.apps.get_model("publications", "Publication")
    PublicationFruit = old.apps.get_model("publications", "PublicationFruit")
    PublicationFruitImage = old.apps.get_model("publications", "PublicationFruitImage")
    cover = make_image_bytes("JPEG", size=(240, 320))
    with_cover = Publication.objects.create(
        title="Pomona", cover_data=cover, cover_sha256=sha256(cover)
    )
    without = Publication.objects.create(title="Without a cover")
    link = PublicationFruit.objects.create(
        publication=with_cover, fruit=Fruit.objects.create(name="Cox", type="apple")
    )
    plate = make_object_png(size=(140, 100), box=(10, 10, 99, 69))
    thumbnail = imaging.make_thumbnail(plate)
    image = PublicationFruitImage.objects.create(
        link=link,
        data=plate,
        sha256=sha256(plate),
        thumbnail_data=thumbnail,
        thumbnail_sha256=sha256(thumbnail),
    )

    new = migrator.apply_tested_migration(latest("publications"))
    Publication = new.apps.get_model("publications", "Publication")
    PublicationFruitImage = new.apps.get_model("publications", "PublicationFruitImage")
    covers = dict(Publication.objects.values_list("pk", "cover_width"))
    assert covers == {with_cover.pk: 240, without.pk: 0}
    assert Publication.objects.get(pk=with_cover.pk).cover_height == 320
    stored = PublicationFruitImage.objects.get(pk=image.pk)
    assert (stored.thumbnail_width, stored.thumbnail_height) == (100, 70)
    migrator.reset()


@pytest.mark.django_db(transaction=True)
def test_the_size_migrations_reverse(migrator):
    migrator.apply_initial_migration(latest("publications"))
    state = migrator.apply_tested_migration(("publications", "0004_store_images_uncompressed"))
    fields = {f.name for f in state.apps.get_model("publications", "Publication")._meta.fields}
    assert "cover_width" not in fields
    migrator.reset()
