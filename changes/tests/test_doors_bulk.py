"""Imports (through the API, the admin and `manage.py import_fruits`) and the other management
commands are one entry per object they change, like every other door."""

import io

import pytest
from django.core.management import call_command

from catalog.models import Fruit
from catalog.services import fruit_create
from catalog.tests.test_imports import post_csv
from core.testing.media import make_image_bytes, make_object_png
from identification.tests.helpers import describe
from publications.models import Publication

pytestmark = pytest.mark.django_db

CSV = (
    "catalog_number,name,type,synonyms,char:fruit_size\n"
    "7,Schöner aus Boskoop,apple,Boskoop,7\n"  # renamed
    "8,Topaz,apple,,5\n"  # only its value changes
    "9,Elstar,apple,,3\n"  # unchanged
    "12,Conference,pear,,\n"  # new
    "13,Gravensteiner,apple,Grafensteiner,5|7\n"  # new, with a value
)


@pytest.fixture
def catalog():
    """The fruits the import changes or leaves, by catalog number."""
    fruits = {
        7: fruit_create(name="Boskop", type="apple", catalog_number=7),
        8: fruit_create(name="Topaz", type="apple", catalog_number=8),
        9: fruit_create(name="Elstar", type="apple", catalog_number=9),
    }
    describe(fruits[8], {"fruit_size": [3]})
    describe(fruits[9], {"fruit_size": [3]})
    return fruits


def expected(catalog) -> list[tuple[str, int, str]]:
    new = dict(
        Fruit.objects.filter(catalog_number__in=[12, 13]).values_list("catalog_number", "pk")
    )
    return [
        ("fruit", catalog[7].pk, "changed"),
        ("fruit", catalog[8].pk, "changed"),
        ("fruit", new[12], "created"),
        ("fruit", new[13], "created"),
    ]


def test_an_import_through_the_api_is_an_entry_per_fruit_it_creates_or_changes(
    feed, curator_client, catalog
):
    start = feed.mark()

    response = post_csv(curator_client, CSV)

    assert response.status_code == 200, response.json()
    assert response.json()["created"] == 2 and response.json()["updated"] == 2
    assert sorted(feed.entries(after=start)) == sorted(expected(catalog))


def test_an_import_with_an_error_or_a_dry_run_is_no_entry(feed, curator_client, catalog):
    start = feed.mark()

    assert post_csv(curator_client, CSV, dry_run=1).status_code == 200
    assert post_csv(curator_client, CSV + "14,,apple,,\n").status_code == 400

    assert feed.entries(after=start) == []


def test_the_import_command_is_an_entry_per_fruit_it_creates_or_changes(feed, catalog, tmp_path):
    path = tmp_path / "fruits.csv"
    path.write_text(CSV)
    start = feed.mark()

    call_command("import_fruits", str(path), stdout=io.StringIO())

    assert sorted(feed.entries(after=start)) == sorted(expected(catalog))


def test_the_image_import_command_changes_each_fruit_once(feed, tmp_path):
    topaz = fruit_create(name="Topaz", type="apple", catalog_number=1042)
    elstar = fruit_create(name="Elstar", type="apple", catalog_number=77)
    (tmp_path / "1042.jpg").write_bytes(make_image_bytes("JPEG", size=(200, 150)))
    (tmp_path / "1042-2.png").write_bytes(make_object_png(size=(130, 100)))
    (tmp_path / "77.jpg").write_bytes(make_image_bytes("JPEG", size=(100, 100)))
    start = feed.mark()

    call_command("import_images", str(tmp_path), stdout=io.StringIO(), stderr=io.StringIO())

    entries = feed.entries(after=start)
    assert set(entries) == {("fruit", topaz.pk, "changed"), ("fruit", elstar.pk, "changed")}


def test_loading_the_demo_creates_its_fruits_and_publications_once(feed):
    start = feed.mark()

    call_command("load_demo_data", stdout=io.StringIO())
    first = feed.entries(after=start)
    again = feed.mark()
    call_command("load_demo_data", stdout=io.StringIO())

    fruits = set(Fruit.objects.values_list("pk", flat=True))
    publications = set(Publication.objects.values_list("pk", flat=True))
    # (The test's one transaction merges the demo's later writes of its fruits into `created`.)
    assert {(kind, action) for kind, _, action in first} == {
        ("fruit", "created"),
        ("publication", "created"),
    }
    assert {pk for kind, pk, action in first if action == "created" and kind == "fruit"} == fruits
    assert {pk for kind, pk, _ in first if kind == "publication"} == publications
    assert feed.entries(after=again) == []  # a second run changes nothing
