"""`manage.py load_demo_data`: real varieties with drawn images, idempotent."""

import io

import pytest
from django.apps import apps
from django.core.management import call_command
from PIL import Image, ImageChops

from blobs.pdf import validate_pdf_bytes
from catalog.demo import BACKGROUND, DEMO_FRUITS, DemoFruit, draw_fruit
from catalog.models import Fruit, FruitImage, FruitType
from publications import demo as publications_demo
from publications.models import Publication, PublicationFruit, PublicationFruitImage


def run(*args) -> str:
    """Run the command; return its output."""
    out = io.StringIO()
    call_command("load_demo_data", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_demo_data_loads_varieties_with_synonyms_and_thumbnailed_images_once():
    first = run()

    assert 25 <= len(DEMO_FRUITS) <= 40
    assert Fruit.objects.count() == len(DEMO_FRUITS)
    assert FruitImage.objects.count() == len(DEMO_FRUITS)
    assert f"Created {len(DEMO_FRUITS)} demo fruits" in first
    boskoop = Fruit.objects.get(name="Schöner aus Boskoop")
    assert [name["name"] for name in boskoop.name_list] == ["Boskoop", "Belle de Boskoop"]
    assert boskoop.catalog_number is not None
    assert list(Fruit.objects.search("schoner")) == [boskoop]
    williams = Fruit.objects.get(name="Williams Christ")
    assert williams.type == FruitType.PEAR
    assert "Bartlett" in [name["name"] for name in williams.name_list]
    assert set(Fruit.objects.values_list("type", flat=True)) >= {
        "apple", "pear", "quince", "cherry", "plum", "apricot", "peach",
    }  # fmt: skip
    assert not FruitImage.objects.missing_thumbnail().exists()
    assert set(FruitImage.objects.values_list("content_type", flat=True)) == {"image/jpeg"}
    # Every image says what it shows, who made it and under which licence.
    assert not FruitImage.objects.filter(alt_text="").exists()
    assert set(FruitImage.objects.values_list("creator", "license")) == {
        ("Fruit Catalog demo", "CC0-1.0")
    }

    counts = row_counts()
    updated = set(Fruit.objects.values_list("updated_at", flat=True))
    second = run()

    assert "nothing to do" in second
    assert row_counts() == counts
    assert set(Fruit.objects.values_list("updated_at", flat=True)) == updated


def row_counts() -> dict[str, int]:
    """Rows of every catalog and publications model."""
    return {
        model._meta.label: model.objects.count()
        for app in ("catalog", "publications")
        if apps.is_installed(app)
        for model in apps.get_app_config(app).get_models()
    }


@pytest.mark.django_db
def test_demo_data_loads_two_publications_with_cover_linked_fruits_pdfs_and_plates():
    output = run()

    assert "2 demo publications" in output
    publications = Publication.objects.without_blobs().order_by("year")
    assert [p.title for p in publications] == [
        "Illustrirtes Handbuch der Obstkunde",
        "Deutschlands Obstsorten",
    ]
    for publication in publications:
        assert publication.cover_content_type == "image/jpeg"
        links = publication.links.without_blobs()
        assert links.count() == 4
        for link in links:
            validate_pdf_bytes(bytes(type(link).objects.get(pk=link.pk).description_data))
    assert PublicationFruitImage.objects.count() == 2
    assert not PublicationFruitImage.objects.missing_thumbnail().exists()
    assert list(Publication.objects.search("bissmann")) == [publications[1]]
    # Citations with pages and plates, a first description, a name in the source (searchable);
    # plates with their alt text, creator and licence.
    links = PublicationFruit.objects.without_blobs()
    assert all(link.pages for link in links)
    assert links.exclude(plate="").count() == 2
    assert links.filter(is_first_description=True).count() == 1
    assert Fruit.objects.search("reine claude verte").get().name == "Große Grüne Reneklode"
    for plate in PublicationFruitImage.objects.without_blobs():
        assert (plate.role, plate.license) == ("plate", "public-domain")
        assert plate.alt_text and plate.creator

    assert "nothing to do" in run()
    assert Publication.objects.count() == 2


@pytest.mark.django_db
def test_demo_data_adds_only_the_missing_varieties(fruit_factory):
    fruit_factory(name="Conference", type=FruitType.PEAR, catalog_number=500)

    output = run()

    assert Fruit.objects.filter(name="Conference").count() == 1
    assert not FruitImage.objects.filter(fruit__name="Conference").exists()
    assert f"Created {len(DEMO_FRUITS) - 1} demo fruits" in output
    assert "1 were already there" in output


@pytest.mark.parametrize("kind", ["apple", "pear", "quince", "cherry", "plum", "apricot", "peach"])
def test_a_drawn_fruit_sits_on_a_plain_background_with_margins(kind):
    image = Image.open(io.BytesIO(draw_fruit(DemoFruit("x", kind, (), (200, 40, 40)))))

    assert image.format == "JPEG"
    assert image.size == (800, 600)
    rgb = image.convert("RGB")
    corners = [rgb.getpixel(xy) for xy in [(2, 2), (797, 2), (2, 597), (797, 597)]]
    assert all(min(pixel) > 225 for pixel in corners)  # light background
    drawn = ImageChops.difference(rgb, Image.new("RGB", rgb.size, BACKGROUND)).convert("L")
    left, top, right, bottom = drawn.point(lambda v: 255 if v > 40 else 0).getbbox()
    assert (right - left) * (bottom - top) > 0.1 * 800 * 600  # a fruit, not a speck
    assert min(left, top, 800 - right, 600 - bottom) > 40  # with margins all round


def test_covers_are_drawn_without_system_fonts_too(monkeypatch):
    # The slim Docker image has no DejaVu: Pillow's own font, with the text spelled in ASCII.
    monkeypatch.setattr(publications_demo, "FONT_FILES", ("no-such-font.ttf", "no-such-font.ttf"))
    publication = publications_demo.DEMO_PUBLICATIONS[0]

    cover = Image.open(io.BytesIO(publications_demo.draw_cover(publication, DEMO_FRUITS[0])))

    assert cover.size == (600, 850)


@pytest.mark.django_db
def test_demo_data_gives_varieties_their_real_parentage():
    run()
    elstar = Fruit.objects.get(name="Elstar")
    assert list(elstar.relations.values_list("kind", "name")) == [
        ("mother", "Golden Delicious"),
        ("father", "Ingrid Marie"),
    ]
    red = Fruit.objects.get(name="Roter Boskoop")
    (sport,) = red.relations.all()
    assert (sport.kind, sport.other.name) == ("sport_of", "Schöner aus Boskoop")
    run()  # again: nothing doubled
    assert elstar.relations.count() == 2
