"""A fruit's public page: its names, images and relations, the publications that describe it and
the characteristics it shows, in a fixed number of queries that read no bytes."""

import html
import re

import pytest

from catalog.models import FruitRelation
from core.testing.media import make_object_png
from identification.tests.helpers import describe
from publications.services import publication_link_fruit
from publications.tests.factories import PublicationFactory

pytestmark = pytest.mark.django_db


def text_of(response) -> str:
    return response.content.decode()


def words_of(response) -> str:
    """The page's text without its markup, runs of white space as one space."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def test_a_fruit_page_shows_its_images_synonyms_and_the_publications_describing_it(
    client,
    fruit_factory,
    add_image,
    publication_factory,
    link_fruit,
    add_publication_image,
    pdf_bytes,
):
    fruit = fruit_factory(name="Cox Orange", synonyms=["Cox's Orange Pippin"])
    image = add_image(fruit)
    publication = publication_factory(
        title="Deutschlands Obstsorten", authors="Müller", year=1905, cover_data=make_object_png()
    )
    link = link_fruit(publication, fruit, pdf=pdf_bytes)
    plate = add_publication_image(link)

    response = client.get(f"/fruits/{fruit.pk}/")

    assert response.status_code == 200
    text = text_of(response)
    assert "<title>Cox Orange (No. 1) · Fruit Catalog</title>" in text
    assert "<h1>Cox Orange</h1>" in text
    assert "Cox&#x27;s Orange Pippin" in text
    # The thumbnail opens the full image; both URLs carry the content's version.
    assert f'href="{html.escape(image.get_data_url())}"' in text
    assert f'src="{html.escape(image.get_thumbnail_url())}"' in text
    assert "?v=" in image.get_data_url() and "?v=" in image.get_thumbnail_url()
    assert 'alt="Cox Orange, fruit"' in text  # no alt text written: name and role
    # The publication: its page, cover, the PDF of this fruit and its image of it.
    assert f'href="/publications/{publication.pk}/"' in text
    # The cover as its thumbnail, sized as stored: a 95 px slot never loads the full cover.
    cover = publication.cover_thumbnail_source
    assert "/cover/thumbnail?v=" in cover.url and publication.cover_thumbnail.exists
    assert f'src="{html.escape(cover.url)}" width="{cover.width}" height="{cover.height}"' in text
    assert html.escape(publication.get_cover_url()) not in text
    assert f'href="{html.escape(link.get_description_url())}"' in text
    assert html.escape(plate.get_thumbnail_url()) in text
    assert "Müller, 1905" in text


def test_a_fruit_page_without_images_or_publications_says_so(client, fruit_factory):
    fruit = fruit_factory(name="Bare")

    text = text_of(client.get(f"/fruits/{fruit.pk}/"))

    assert "No photo of this fruit yet." in text
    assert "No publication in the catalog describes this fruit yet." in text


def test_images_carry_their_stored_dimensions_so_nothing_shifts_while_loading(
    client, fruit_factory, add_image
):
    fruit = fruit_factory()
    image = add_image(fruit, make_object_png(size=(300, 200), box=(10, 10, 99, 49)))

    text = text_of(client.get(f"/fruits/{fruit.pk}/"))

    tag = re.search(r'<img src="[^"]*thumbnail[^"]*"[^>]*>', text).group(0)
    assert f'width="{image.thumbnail_width}"' in tag
    assert f'height="{image.thumbnail_height}"' in tag
    assert image.thumbnail_width and image.thumbnail_height


@pytest.mark.parametrize("path", ["/fruits/999999/", "/fruits/99999999999999999999999/"])
def test_an_unknown_fruit_is_the_sites_404_page(client, path):
    response = client.get(path)

    assert response.status_code == 404
    assert "Page not found" in text_of(response)
    assert "The catalog has no fruit with this number." in text_of(response)


def test_a_fruit_page_runs_the_same_queries_however_much_is_linked_and_reads_no_bytes(
    client,
    fruit_factory,
    add_image,
    publication_factory,
    link_fruit,
    add_publication_image,
    pdf_bytes,
    reads_no_bytes,
):
    fruit = fruit_factory(synonyms=["A"])

    def queries() -> int:
        with reads_no_bytes() as captured:
            assert client.get(f"/fruits/{fruit.pk}/").status_code == 200
        return len(captured.captured_queries)

    add_image(fruit)
    add_publication_image(link_fruit(publication_factory(), fruit, pdf=pdf_bytes))
    few = queries()
    for _ in range(4):
        add_image(fruit)
        link = link_fruit(publication_factory(cover_data=make_object_png()), fruit, pdf=pdf_bytes)
        add_publication_image(link)
        add_publication_image(link)

    assert queries() == few
    assert few <= 6


def test_a_fruit_page_groups_the_names_by_kind_with_their_language(client, fruit_factory):
    fruit = fruit_factory(
        name="Schöner aus Boskoop",
        names=[
            {"name": "Boskoop", "language": "nl"},
            {"name": "Belle de Boskoop", "kind": "translation", "language": "fr"},
            {"name": "Renette von Montfort", "kind": "historic", "note": "before 1860"},
            {"name": "Kaiser Alexander", "kind": "misapplied"},
        ],
    )
    groups = re.findall(
        r"<dt>([^<]+)</dt>\s*<dd>(.*?)</dd>",
        client.get(f"/fruits/{fruit.pk}/").content.decode(),
        re.S,
    )
    shown = {label: re.sub(r"<[^>]+>", "", names) for label, names in groups}
    assert shown == {
        "Also known as": "Boskoop (nl)",
        "In other languages": "Belle de Boskoop (fr)",
        "Historic names": "Renette von Montfort \u2013 before 1860",
        "Misapplied names (used wrongly for this variety)": "Kaiser Alexander",
    }


def test_a_fruit_page_says_where_the_fruit_is_described_and_first_described(
    client, publication_factory, fruit_factory
):
    from publications.services import publication_link_fruit

    fruit = fruit_factory(name="Gravensteiner")
    first = publication_factory(title="Deutschlands Obstsorten", year=1905)
    later = publication_factory(title="Pomologische Monatshefte", year=1920)
    undated = publication_factory(title="Alte Sorten", year=None)
    publication_link_fruit(
        publication=first,
        fruit=fruit,
        citation={"pages": "112", "plate": "IV", "is_first_description": True},
    )
    publication_link_fruit(
        publication=later, fruit=fruit, citation={"name_in_source": "Grafensteiner"}
    )
    publication_link_fruit(publication=undated, fruit=fruit)

    text = " ".join(client.get(f"/fruits/{fruit.pk}/").content.decode().split())
    assert (
        'Described in 3 works; first described in <a href="/publications/'
        f'{first.pk}/">Deutschlands Obstsorten</a> (1905), p. 112, plate IV.'
    ) in text
    assert "P. 112, plate IV · <strong>first description</strong>" in text
    assert "as <em>Grafensteiner</em>" in text
    # Oldest first, the undated last.
    assert (
        text.index("Deutschlands Obstsorten</a></h3>")
        < text.index("Pomologische Monatshefte</a></h3>")
        < text.index("Alte Sorten</a></h3>")
    )


def test_the_fruit_page_shows_characteristics_sources_and_a_compare_link_for_confusions(
    client, fruit_factory
):
    fruit = fruit_factory(name="Elstar", catalog_number=1)
    other = fruit_factory(name="Elshof", catalog_number=2)
    publication = PublicationFactory(title="Apfelsorten")
    publication_link_fruit(publication=publication, fruit=fruit)
    describe(
        fruit,
        {"fruit_size": [5, 7], "russet_amount": [1]},
        fruit_size={"source_publication": publication.pk, "pages": "42"},
    )
    FruitRelation.objects.create(fruit=other, kind="confused_with", other=fruit, name="Elstar")
    response = client.get(f"/fruits/{fruit.pk}/")
    text = words_of(response)
    assert "Size medium or large ( Apfelsorten , p. 42)" in text
    assert "Fruit:" not in text  # the stored UPOV name "Fruit: size" reads as a word
    assert "Often confused with Elshof" in text
    assert f'href="/compare/?fruits={fruit.pk},{other.pk}"' in response.text


def test_the_fruit_page_keeps_its_query_count_with_characteristics(
    client, fruit_factory, reads_no_bytes
):
    fruit = fruit_factory(name="Counted")

    def queries() -> int:
        with reads_no_bytes() as captured:
            assert client.get(f"/fruits/{fruit.pk}/").status_code == 200
        return len(captured.captured_queries)

    few = queries()
    describe(fruit, {"fruit_size": [5, 7], "russet_amount": [1], "shape": [1]})
    assert queries() == few <= 6
