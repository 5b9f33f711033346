"""The migration history: rows stored at 0003 survive to the latest schema intact."""

import hashlib

import pytest
from django.db import connection
from django.db.migrations.loader import MigrationLoader
from PIL import Image

from blobs import imaging
from core.testing.media import make_image_bytes, make_object_png

pytestmark = pytest.mark.slow


def latest(app_label: str) -> tuple[str, str]:
    """The leaf migration of an app."""
    (leaf,) = MigrationLoader(connection).graph.leaf_nodes(app_label)
    return leaf


@pytest.mark.django_db(transaction=True)
def test_rows_from_0003_survive_with_null_catalog_number_and_no_thumbnail(migrator):
    old_state = migrator.apply_initial_migration(("catalog", "0003_fruitimage_thumbnail_data"))
    Fruit = old_state.apps.get_model("catalog", "Fruit")
    FruitImage = old_state.apps.get_model("catalog", "FruitImage")
    FruitSynonym = old_state.apps.get_model("catalog", "FruitSynonym")
    fruit = Fruit.objects.create(name="Gräfin von Paris", type="pear")
    FruitSynonym.objects.create(fruit=fruit, name="Comtesse de Paris", position=0)
    png = make_object_png()
    image = FruitImage.objects.create(fruit=fruit, data=png)
    # A phone's portrait photo: stored landscape, with EXIF saying to turn it a quarter.
    exif = Image.Exif()
    exif[0x0112] = 6
    portrait = make_image_bytes("JPEG", size=(64, 48), exif=exif.tobytes())
    rotated = FruitImage.objects.create(fruit=fruit, data=portrait)
    broken = FruitImage.objects.create(fruit=fruit, data=b"not an image")

    new_state = migrator.apply_tested_migration(latest("catalog"))
    Fruit = new_state.apps.get_model("catalog", "Fruit")
    FruitImage = new_state.apps.get_model("catalog", "FruitImage")
    fruit = Fruit.objects.get(pk=fruit.pk)
    assert fruit.name == "Gräfin von Paris"
    assert fruit.catalog_number is None
    assert "grafin von paris" in fruit.search_text and "comtesse" in fruit.search_text
    image = FruitImage.objects.get(pk=image.pk)
    assert bytes(image.data) == png
    assert image.thumbnail_data is None
    assert image.thumbnail_sha256 == ""
    assert (image.content_type, image.width, image.height) == ("image/png", 120, 100)
    assert (image.size, image.sha256) == (len(png), hashlib.sha256(png).hexdigest())
    rotated = FruitImage.objects.get(pk=rotated.pk)
    assert (rotated.content_type, rotated.width, rotated.height) == ("image/jpeg", 48, 64)
    broken = FruitImage.objects.get(pk=broken.pk)
    assert bytes(broken.data) == b"not an image"
    assert (broken.content_type, broken.width, broken.height) == ("text/plain", 0, 0)

    migrator.reset()


@pytest.mark.django_db(transaction=True)
def test_stored_thumbnails_get_their_width_and_height_from_their_headers(migrator):
    old_state = migrator.apply_initial_migration(("catalog", "0013_store_images_uncompressed"))
    Fruit = old_state.apps.get_model("catalog", "Fruit")
    FruitImage = old_state.apps.get_model("catalog", "FruitImage")
    fruit = Fruit.objects.create(name="Gravensteiner", type="apple")
    png = make_object_png(size=(600, 200), box=(0, 0, 599, 199))
    thumbnail = imaging.make_thumbnail(png)

    def stored(data, thumbnail):
        return FruitImage.objects.create(
            fruit=fruit,
            data=data,
            sha256=hashlib.sha256(data).hexdigest(),
            thumbnail_data=thumbnail,
            thumbnail_sha256=hashlib.sha256(thumbnail).hexdigest() if thumbnail else "",
        )

    with_thumbnail = stored(png, thumbnail)
    without = stored(png, None)
    broken = stored(png, b"not a JPEG")

    new_state = migrator.apply_tested_migration(latest("catalog"))
    FruitImage = new_state.apps.get_model("catalog", "FruitImage")
    sizes = {
        image.pk: (image.thumbnail_width, image.thumbnail_height, image.is_card_image)
        for image in FruitImage.objects.all()
    }
    assert sizes == {
        with_thumbnail.pk: (300, 100, False),
        without.pk: (0, 0, False),
        broken.pk: (0, 0, False),
    }
    migrator.reset()


@pytest.mark.django_db(transaction=True)
def test_migrations_reverse_to_the_baseline(migrator):
    migrator.apply_initial_migration(latest("catalog"))
    migrator.apply_tested_migration(("catalog", "0001_initial"))
    assert "catalog_fruit" not in connection.introspection.table_names()
    migrator.reset()


@pytest.mark.django_db(transaction=True)
def test_synonym_key_migration_reverses_over_names_lower_would_merge(migrator):
    state = migrator.apply_initial_migration(("catalog", "0010_fruitsynonym_name_key"))
    Fruit = state.apps.get_model("catalog", "Fruit")
    FruitSynonym = state.apps.get_model("catalog", "FruitSynonym")
    fruit = Fruit.objects.create(name="Apfel", type="apple")
    # Distinct under casefold (what the application enforces), one under ASCII LOWER().
    FruitSynonym.objects.create(fruit=fruit, name="Inci", name_key="inci", position=0)
    FruitSynonym.objects.create(fruit=fruit, name="INCI x", name_key="inci x", position=1)
    FruitSynonym.objects.create(fruit=fruit, name="inci", name_key="inci ", position=2)

    old = migrator.apply_tested_migration(("catalog", "0009_fruit_name_index"))
    names = list(
        old.apps.get_model("catalog", "FruitSynonym").objects.values_list("name", flat=True)
    )
    assert sorted(names) == ["INCI x", "Inci"]
    migrator.reset()


@pytest.mark.django_db(transaction=True)
def test_the_catalog_number_mark_starts_at_the_highest_number_held(migrator):
    old_state = migrator.apply_initial_migration(("catalog", "0017_fruit_type_order_index"))
    Fruit = old_state.apps.get_model("catalog", "Fruit")
    for number in (3, 12, None):
        Fruit.objects.create(name=f"Fruit {number}", type="apple", catalog_number=number)

    new_state = migrator.apply_tested_migration(("catalog", "0018_catalog_number_mark"))
    mark = new_state.apps.get_model("catalog", "CatalogNumberMark").objects.get()
    assert mark.highest_assigned == 12

    back = migrator.apply_tested_migration(("catalog", "0017_fruit_type_order_index"))
    assert back.apps.get_model("catalog", "Fruit").objects.count() == 3
    migrator.reset()


@pytest.mark.django_db(transaction=True)
def test_synonyms_become_typed_names_in_their_order_and_back(migrator):
    old_state = migrator.apply_initial_migration(("catalog", "0018_catalog_number_mark"))
    Fruit = old_state.apps.get_model("catalog", "Fruit")
    FruitSynonym = old_state.apps.get_model("catalog", "FruitSynonym")
    fruit = Fruit.objects.create(name="Schöner aus Boskoop", type="apple")
    for position, name in enumerate(["Boskoop", "Belle de Boskoop"]):
        FruitSynonym.objects.create(
            fruit=fruit, name=name, name_key=name.casefold(), position=position
        )

    new_state = migrator.apply_tested_migration(("catalog", "0019_typed_names"))
    names = new_state.apps.get_model("catalog", "FruitSynonym").objects.order_by("position")
    assert [(n.name, n.kind, n.language, n.note) for n in names] == [
        ("Boskoop", "synonym", "", ""),
        ("Belle de Boskoop", "synonym", "", ""),
    ]

    back = migrator.apply_tested_migration(("catalog", "0018_catalog_number_mark"))
    names = back.apps.get_model("catalog", "FruitSynonym").objects.order_by("position")
    assert [n.name for n in names] == ["Boskoop", "Belle de Boskoop"]
    migrator.reset()


@pytest.mark.django_db(transaction=True)
def test_the_search_column_is_refilled_with_both_spellings_and_back(migrator):
    old_state = migrator.apply_initial_migration(("catalog", "0019_typed_names"))
    Fruit = old_state.apps.get_model("catalog", "Fruit")
    fruit = Fruit.objects.create(name="Cox's Orange-Pippin", type="apple", catalog_number=7)

    new_state = migrator.apply_tested_migration(
        ("catalog", "0020_refill_search_text_with_spellings")
    )
    text = new_state.apps.get_model("catalog", "Fruit").objects.get(pk=fruit.pk).search_text
    assert text == "coxs orange pippin\x1e7"

    back = migrator.apply_tested_migration(("catalog", "0019_typed_names"))
    text = back.apps.get_model("catalog", "Fruit").objects.get(pk=fruit.pk).search_text
    assert text == "7\x1fcox's orange-pippin"
    migrator.reset()


@pytest.mark.django_db(transaction=True)
def test_each_fruit_gets_its_spellings_as_rows_and_back(migrator):
    old_state = migrator.apply_initial_migration(
        ("catalog", "0020_refill_search_text_with_spellings")
    )
    Fruit = old_state.apps.get_model("catalog", "Fruit")
    fruit = Fruit.objects.create(name="Schöner aus Boskoop", type="apple", catalog_number=7)
    old_state.apps.get_model("catalog", "FruitSynonym").objects.create(
        fruit=fruit, name="Boskoop", name_key="boskoop", position=0
    )

    new_state = migrator.apply_tested_migration(("catalog", "0021_fruit_spellings"))
    rows = new_state.apps.get_model("catalog", "FruitSpelling").objects.order_by("pk")
    assert [(row.spelling, row.is_own_name, row.catalog_number) for row in rows] == [
        ("schoner aus boskoop", True, 7),
        ("schoener aus boskoop", True, 7),
        ("7", False, 7),
        ("boskoop", False, 7),
    ]

    back = migrator.apply_tested_migration(("catalog", "0020_refill_search_text_with_spellings"))
    assert back.apps.get_model("catalog", "Fruit").objects.get(pk=fruit.pk).name == fruit.name
    migrator.reset()


@pytest.mark.django_db(transaction=True)
def test_the_names_model_rename_keeps_every_name_and_the_curators_rights_both_ways(migrator):
    old_state = migrator.apply_initial_migration(
        ("catalog", "0025_curators_newer_catalog_permissions")
    )
    Fruit = old_state.apps.get_model("catalog", "Fruit")
    FruitSynonym = old_state.apps.get_model("catalog", "FruitSynonym")
    boskoop = Fruit.objects.create(name="Schöner aus Boskoop", type="apple")
    luise = Fruit.objects.create(name="Gute Luise", type="pear")
    rows = [
        (boskoop.pk, "Boskoop", "synonym", "", ""),
        (boskoop.pk, "Belle de Boskoop", "translation", "fr", "in French nurseries"),
        (luise.pk, "Louise Bonne d'Avranches", "historic", "fr", ""),
    ]
    for position, (fruit_id, name, kind, language, note) in enumerate(rows):
        FruitSynonym.objects.create(
            fruit_id=fruit_id,
            name=name,
            name_key=name.casefold(),
            position=position,
            kind=kind,
            language=language,
            note=note,
        )

    def stored(state, model):
        names = state.apps.get_model("catalog", model).objects.order_by("position")
        return [(n.fruit_id, n.name, n.kind, n.language, n.note) for n in names]

    def curators_codenames(state):
        group = state.apps.get_model("auth", "Group").objects.get(name="Curators")
        codenames = group.permissions.values_list("codename", flat=True)
        return {
            codename for codename in codenames if "fruitname" in codename or "synonym" in codename
        }

    new_state = migrator.apply_tested_migration(("catalog", "0026_rename_fruitsynonym_fruitname"))
    assert stored(new_state, "FruitName") == rows
    assert curators_codenames(new_state) == {
        f"{action}_fruitname" for action in ("add", "change", "delete", "view")
    }
    tables = connection.introspection.table_names()
    assert "catalog_fruitname" in tables and "catalog_fruitsynonym" not in tables
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            constraints = connection.introspection.get_constraints(cursor, "catalog_fruitname")
        assert {
            "fruitname_unique_name_key_per_fruit",
            "fruitname_name_not_empty",
            "fruitname_kind_valid",
            "fruitname_language_iso_639_1",
        } <= set(constraints)

    back = migrator.apply_tested_migration(("catalog", "0025_curators_newer_catalog_permissions"))
    assert stored(back, "FruitSynonym") == rows
    assert curators_codenames(back) == {
        f"{action}_fruitsynonym" for action in ("add", "change", "delete", "view")
    }
    migrator.reset()


@pytest.mark.django_db(transaction=True)
def test_the_dictionary_of_words_is_filled_from_the_spellings_held(migrator):
    old_state = migrator.apply_initial_migration(("catalog", "0027_fruitrelation_name_key"))
    Fruit = old_state.apps.get_model("catalog", "Fruit")
    FruitSpelling = old_state.apps.get_model("catalog", "FruitSpelling")
    fruit = Fruit.objects.create(name="Schöner aus Boskoop", type="apple", catalog_number=7)
    for spelling in ("schoner aus boskoop", "schoener aus boskoop", "7", "rote sorte 12"):
        FruitSpelling.objects.create(fruit=fruit, spelling=spelling, catalog_number=7)

    new_state = migrator.apply_tested_migration(("catalog", "0028_searchword"))
    words = new_state.apps.get_model("catalog", "SearchWord").objects.values_list("word", flat=True)
    assert sorted(words) == ["aus", "boskoop", "rote", "schoener", "schoner", "sorte"]

    migrator.apply_tested_migration(("catalog", "0027_fruitrelation_name_key"))
    migrator.reset()
