"""The save hook of thumbnailed images, and names that read as a person would say them."""

import hashlib
import io

import pytest
from PIL import Image

from catalog.models import FruitImage
from core.testing.media import make_image_bytes, make_object_png

pytestmark = pytest.mark.django_db


def test_saving_new_bytes_derives_metadata_and_thumbnail(fruit_factory):
    data = make_object_png(size=(1000, 800), box=(200, 100, 399, 299))

    image = FruitImage.objects.create(fruit=fruit_factory(), data=data)

    stored = FruitImage.objects.get(pk=image.pk)
    assert (stored.content_type, stored.size) == ("image/png", len(data))
    assert (stored.width, stored.height) == (1000, 800)
    assert stored.sha256 == hashlib.sha256(data).hexdigest()
    thumbnail = bytes(stored.thumbnail_data)
    assert stored.thumbnail_sha256 == hashlib.sha256(thumbnail).hexdigest()
    assert Image.open(io.BytesIO(thumbnail)).size == (210, 210)
    assert (stored.thumbnail_width, stored.thumbnail_height) == (210, 210)


def test_replacing_the_bytes_replaces_metadata_and_thumbnail(fruit_factory, add_image):
    image = add_image(fruit_factory())
    old_thumbnail = image.thumbnail_sha256
    jpeg = make_image_bytes("JPEG", size=(640, 480), color=(20, 120, 20))

    image.data = jpeg
    image.save()

    stored = FruitImage.objects.get(pk=image.pk)
    assert (stored.content_type, stored.width, stored.height) == ("image/jpeg", 640, 480)
    assert stored.sha256 == hashlib.sha256(jpeg).hexdigest()
    assert stored.thumbnail_sha256 != old_thumbnail


def test_a_partial_save_of_the_bytes_writes_what_they_determine(fruit_factory, add_image):
    image = add_image(fruit_factory())
    gif = make_image_bytes("GIF", size=(30, 20))

    image.data = gif
    image.save(update_fields=["data"])

    stored = FruitImage.objects.get(pk=image.pk)
    assert (stored.content_type, stored.size, stored.width) == ("image/gif", len(gif), 30)
    assert stored.sha256 == hashlib.sha256(gif).hexdigest()
    assert stored.thumbnail_sha256 == hashlib.sha256(bytes(stored.thumbnail_data)).hexdigest()
    assert (stored.thumbnail_width, stored.thumbnail_height) == (30, 20)


def test_saving_a_row_loaded_without_its_bytes_reads_and_changes_no_bytes(
    fruit_factory, add_image, reads_no_bytes
):
    image = add_image(fruit_factory())
    before = FruitImage.objects.values_list("sha256", "thumbnail_sha256").get(pk=image.pk)
    other = fruit_factory(name="Other")

    with reads_no_bytes():
        loaded = FruitImage.objects.without_blobs().get(pk=image.pk)
        loaded.fruit = other
        loaded.save(update_fields=["fruit"])

    after = FruitImage.objects.values_list("sha256", "thumbnail_sha256").get(pk=image.pk)
    assert after == before


def test_bytes_written_around_the_save_hook_are_noticed_on_the_next_save(fruit_factory, add_image):
    image = add_image(fruit_factory())
    jpeg = make_image_bytes("JPEG", size=(50, 40))
    FruitImage.objects.filter(pk=image.pk).update(data=jpeg)  # update() skips save()

    stale = FruitImage.objects.get(pk=image.pk)
    stale.save()

    stored = FruitImage.objects.get(pk=image.pk)
    assert (stored.content_type, stored.width) == ("image/jpeg", 50)


def test_images_are_named_after_their_fruit(fruit_factory, add_image):
    fruit = fruit_factory(name="Cox Orange", catalog_number=7)
    image = add_image(fruit)

    assert str(fruit) == "7 Cox Orange"
    assert str(FruitImage.objects.get(pk=image.pk)) == f"Image {image.pk} of Cox Orange"


def test_a_deleted_image_is_still_named_after_its_fruit(fruit_factory, add_image):
    image = add_image(fruit_factory(name="Cox Orange"))
    image.delete()
    assert str(image) == "Image of Cox Orange"
