"""The publication models: derived columns, constraints, protection, backfill, permissions."""

import hashlib
import importlib

import pytest
from django.apps import apps
from django.contrib.auth.models import Group, Permission
from django.db import IntegrityError, transaction
from django.db.models import ProtectedError

from blobs.backfill import backfill_thumbnails
from core.rest.curators import CURATORS_GROUP
from core.testing.media import make_object_png, make_pdf_bytes
from publications.models import Publication, PublicationFruit, PublicationFruitImage
from publications.services import publication_link_fruit

pytestmark = pytest.mark.django_db


def test_search_column_folds_title_and_authors_on_save(publication_factory):
    publication = publication_factory(title="Deutschlands Obstsorten", authors="Müller, Bißmann")
    # Both spellings of the umlaut; punctuation folded away.
    assert publication.search_text == (
        "deutschlands obstsorten\x1fmuller bissmann\x1fmueller bissmann"
    )


def test_a_partial_save_of_the_title_refreshes_the_search_column(publication_factory):
    publication = publication_factory(title="Old")
    publication.title = "Pomologie Française"
    publication.save(update_fields=["title"])
    assert Publication.objects.get().search_text == "pomologie francaise"


def test_cover_metadata_is_derived_from_bytes_set_directly(publication_factory, png_bytes):
    publication = publication_factory(cover_data=png_bytes)
    stored = Publication.objects.get(pk=publication.pk)
    assert stored.has_cover
    assert (stored.cover_content_type, stored.cover_size) == ("image/png", len(png_bytes))
    assert stored.cover_sha256 == hashlib.sha256(png_bytes).hexdigest()
    stored.cover_data = None
    stored.save()
    stored.refresh_from_db()
    assert (stored.has_cover, stored.cover_content_type, stored.cover_size) == (False, "", 0)


def test_saving_without_the_cover_loaded_keeps_cover_and_metadata(publication_factory, png_bytes):
    publication = publication_factory(cover_data=png_bytes)
    loaded = Publication.objects.without_blobs().get(pk=publication.pk)
    loaded.title = "Renamed"
    loaded.save()
    stored = Publication.objects.get(pk=publication.pk)
    assert bytes(stored.cover_data) == png_bytes
    assert stored.cover_sha256 == hashlib.sha256(png_bytes).hexdigest()


def test_description_size_and_hash_are_derived_on_save(publication_factory, fruit_factory):
    pdf = make_pdf_bytes()
    link = PublicationFruit.objects.create(
        publication=publication_factory(), fruit=fruit_factory(), description_data=pdf
    )
    link.refresh_from_db()
    assert link.has_description
    assert (link.description_size, link.description_sha256) == (
        len(pdf),
        hashlib.sha256(pdf).hexdigest(),
    )


@pytest.mark.parametrize("year", [1399, 2101, -5])
def test_the_database_refuses_years_out_of_range(publication_factory, year):
    publication = publication_factory(year=1900)
    with pytest.raises(IntegrityError), transaction.atomic():
        Publication.objects.filter(pk=publication.pk).update(year=year)


def test_the_database_refuses_an_empty_title(db):
    with pytest.raises(IntegrityError), transaction.atomic():
        Publication.objects.create(title="")


def test_a_fruit_is_linked_at_most_once_per_publication(
    publication_factory, fruit_factory, link_fruit
):
    publication, fruit = publication_factory(), fruit_factory()
    link_fruit(publication, fruit)
    with pytest.raises(IntegrityError), transaction.atomic():
        PublicationFruit.objects.create(publication=publication, fruit=fruit)


def test_deleting_a_linked_fruit_is_protected(publication_factory, fruit_factory, link_fruit):
    fruit = fruit_factory()
    link_fruit(publication_factory(), fruit)
    with pytest.raises(ProtectedError):
        fruit.delete()


def test_conflict_labels_name_the_publications_without_reading_bytes(
    publication_factory, fruit_factory, link_fruit, png_bytes, reads_no_bytes
):
    fruit = fruit_factory()
    for title in ["Pomona Franconica", "Der Obstgarten"]:
        link_fruit(publication_factory(title=title, cover_data=png_bytes), fruit, make_pdf_bytes())
    with reads_no_bytes():
        labels = sorted(PublicationFruit.objects.filter(fruit=fruit).conflict_labels())
    assert labels == ["Der Obstgarten", "Pomona Franconica"]


def test_fruit_images_get_their_thumbnail_on_save(
    publication_factory, fruit_factory, link_fruit, add_publication_image
):
    image = add_publication_image(link_fruit(publication_factory(), fruit_factory()))
    assert image.has_thumbnail
    assert (image.content_type, image.width, image.height) == ("image/png", 120, 100)


def test_the_backfill_reports_publication_fruit_images_under_their_key(
    publication_factory, fruit_factory, link_fruit
):
    link = link_fruit(publication_factory(), fruit_factory())
    # bulk_create skips the save hook, as loaddata does: the backfill exists for such rows.
    (image,) = PublicationFruitImage.objects.bulk_create(
        [PublicationFruitImage(link=link, data=make_object_png())]
    )
    results = backfill_thumbnails()
    assert results["publication_fruit_images"].as_dict() == {
        "generated": 1,
        "failed": 0,
        "failed_ids": [],
    }
    assert PublicationFruitImage.objects.get(pk=image.pk).has_thumbnail


def test_curators_hold_every_publications_permission(db):
    granted = Group.objects.get(name=CURATORS_GROUP).permissions.filter(
        content_type__app_label="publications"
    )
    every = Permission.objects.filter(content_type__app_label="publications")
    assert every.count() == 12  # view, add, change, delete of three models
    assert set(granted) == set(every)


def test_the_permissions_migration_reverses_to_catalog_permissions_only(db):
    migration = importlib.import_module(
        "publications.migrations.0002_curators_publication_permissions"
    )
    migration.revoke(apps, None)
    group = Group.objects.get(name=CURATORS_GROUP)
    assert not group.permissions.filter(content_type__app_label="publications").exists()
    assert group.permissions.filter(content_type__app_label="catalog").exists()


def test_links_and_their_images_read_as_a_person_says_them(fruit_factory, publication_factory):
    fruit = fruit_factory(name="Cox Orange", catalog_number=7)
    publication = publication_factory(title="Deutschlands Obstsorten", year=1905)
    link, _ = publication_link_fruit(publication=publication, fruit=fruit)
    plate = PublicationFruitImage.objects.create(link=link, data=make_object_png())

    assert str(PublicationFruit.objects.get(pk=link.pk)) == (
        "Cox Orange in Deutschlands Obstsorten (1905)"
    )
    assert str(PublicationFruitImage.objects.get(pk=plate.pk)) == (
        f"Image {plate.pk} of Cox Orange in Deutschlands Obstsorten (1905)"
    )


def test_naming_a_link_never_reads_the_cover(
    fruit_factory, publication_factory, png_bytes, reads_no_bytes
):
    publication = publication_factory(title="Pomona", cover_data=png_bytes)
    link, _ = publication_link_fruit(publication=publication, fruit=fruit_factory(name="Kaiser"))

    with reads_no_bytes():
        name = str(PublicationFruit.objects.without_blobs().get(pk=link.pk))

    assert name == "Kaiser in Pomona"
