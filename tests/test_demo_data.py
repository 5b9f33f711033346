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


@pytest.mark.django_db
def test_demo_values_cite_the_publication_describing_the_fruit_with_its_pages(anon_client):
    run()

    boskoop = Fruit.objects.get(name="Schöner aus Boskoop")
    detail = anon_client.get(f"/api/v1/fruits/{boskoop.pk}").json()
    (citation,) = detail["citations"]
    assert citation["publication"]["title"] == "Deutschlands Obstsorten"
    assert {
        (value["source"]["publication_id"], value["source"]["pages"])
        for value in detail["characteristics"]
    } == {(citation["publication"]["id"], citation["pages"])}
    page = anon_client.get(f"/fruits/{boskoop.pk}/").content.decode()
    assert (
        f'(<a href="/publications/{citation["publication"]["id"]}/">Deutschlands Obstsorten</a>, '
        f"p. {citation['pages']})"
    ) in page
    # Every demo fruit a demo publication describes and the demo describes cites it; a source is
    # always a publication linking the fruit, never one that does not describe it.
    cited = {}
    for fruit in Fruit.objects.filter(characteristics__isnull=False).distinct():
        detail = anon_client.get(f"/api/v1/fruits/{fruit.pk}").json()
        linked = {c["publication"]["id"]: c["pages"] for c in detail["citations"]}
        sources = {
            (value["source"]["publication_id"], value["source"]["pages"])
            for value in detail["characteristics"]
            if value["source"]
        }
        assert sources <= set(linked.items()), fruit.name
        if linked:
            assert sources, fruit.name
            cited[fruit.name] = sources
    assert set(cited) == {
        "Schöner aus Boskoop", "Gravensteiner", "Williams Christ", "Goldparmäne", "Gute Luise",
    }  # fmt: skip


@pytest.mark.django_db
def test_demo_data_has_two_varieties_often_confused_with_a_link_comparing_them(anon_client):
    run()

    gold = Fruit.objects.get(name="Goldparmäne")
    cox = Fruit.objects.get(name="Cox Orange")
    for fruit, other in [(gold, cox), (cox, gold)]:
        page = anon_client.get(f"/fruits/{fruit.pk}/").content.decode()
        assert "<dt>Often confused with</dt>" in page
        assert f'<a href="/fruits/{other.pk}/">{other.name}</a>' in page
        assert f'href="/compare/?fruits={fruit.pk},{other.pk}"' in page
    # Cox Orange keeps its parentage beside it.
    assert set(cox.relations.values_list("kind", flat=True)) == {"seedling_of"}
    assert set(gold.relations.values_list("kind", "other__name")) == {
        ("confused_with", "Cox Orange")
    }

    counts = row_counts()
    assert "nothing to do" in run()
    assert row_counts() == counts


@pytest.mark.django_db
def test_an_earlier_demo_gets_the_confused_pair_once_and_says_so():
    run()
    Fruit.objects.get(name="Goldparmäne").relations.all().delete()

    assert "Gave 1 demo fruit its relations." in run()
    assert "nothing to do" in run()
    assert Fruit.objects.get(name="Goldparmäne").relations.count() == 1


@pytest.mark.django_db
def test_demo_publications_credit_their_drawn_covers(anon_client):
    run()

    for publication in Publication.objects.without_blobs():
        page = anon_client.get(f"/publications/{publication.pk}/").content.decode()
        assert "Cover: drawn for the Fruit Catalog demo" in page
        detail = anon_client.get(f"/api/v1/publications/{publication.pk}").json()
        assert detail["description"].endswith(
            "Cover: drawn for the Fruit Catalog demo (publications/demo.py), CC0 1.0."
        )
