"""What the public pages tell people and machines: alt texts, credit lines, schema.org JSON-LD."""

import html
import json
import re

import pytest

from catalog.models import FruitImage
from core.testing.media import make_object_png
from publications.services import publication_link_fruit

pytestmark = pytest.mark.django_db

LD_JSON = re.compile(r'<script type="application/ld\+json">(.*?)</script>', re.DOTALL)


def structured_data(text: str) -> dict:
    (block,) = LD_JSON.findall(text)
    return json.loads(block)


def test_a_fruit_page_carries_a_taxon_with_names_number_and_licensed_images(client, fruit_factory):
    fruit = fruit_factory(name="Gravensteiner", catalog_number=42, synonyms=["Grafensteiner"])
    image = FruitImage.objects.create(
        fruit=fruit,
        data=make_object_png(),
        alt_text="A yellow apple with red stripes",
        creator="Eva Obst",
        license="CC-BY-4.0",
    )
    text = client.get(f"/fruits/{fruit.pk}/").content.decode()

    data = structured_data(text)
    assert data["@context"] == "https://schema.org"
    assert (data["@type"], data["taxonRank"], data["name"]) == ("Taxon", "cultivar", fruit.name)
    assert data["alternateName"] == ["Grafensteiner"]
    assert data["identifier"] == "42"
    assert data["url"] == f"http://testserver/fruits/{fruit.pk}/"
    (picture,) = data["image"]
    assert picture == {
        "@type": "ImageObject",
        "contentUrl": f"http://testserver{image.get_data_url()}",
        "thumbnailUrl": f"http://testserver{image.get_thumbnail_url()}",
        "caption": "A yellow apple with red stripes",
        "license": "https://creativecommons.org/licenses/by/4.0/",
        "creditText": "Eva Obst",
        "creator": {"@type": "Person", "name": "Eva Obst"},
        "width": image.width,
        "height": image.height,
    }
    # The alt text curators wrote, and the credit line with the licence linked.
    assert 'alt="A yellow apple with red stripes"' in text
    assert (
        '<figcaption class="credit">Photo: Eva Obst · <a href="https://creativecommons.org/'
        'licenses/by/4.0/" rel="license">CC BY 4.0</a></figcaption>'
    ) in text


def test_an_image_without_credit_or_licence_has_no_credit_line(client, fruit_factory):
    fruit = fruit_factory(name="Topaz")
    FruitImage.objects.create(fruit=fruit, data=make_object_png(), role="blossom")
    text = client.get(f"/fruits/{fruit.pk}/").content.decode()
    assert 'alt="Topaz, blossom"' in text
    assert 'class="credit"' not in text
    assert "license" not in structured_data(text)["image"][0]


def test_a_licence_without_a_deed_is_named_not_linked(client, fruit_factory):
    fruit = fruit_factory(name="Topaz")
    FruitImage.objects.create(fruit=fruit, data=make_object_png(), license="public-domain")
    text = client.get(f"/fruits/{fruit.pk}/").content.decode()
    assert '<figcaption class="credit">Public domain</figcaption>' in text


def test_a_publication_page_carries_a_book_about_its_fruits(
    client, publication_factory, fruit_factory
):
    publication = publication_factory(
        title="Deutschlands Obstsorten",
        authors="Müller, Bißmann, Lucas",
        year=1905,
        cover_data=make_object_png(size=(100, 140)),
    )
    fruits = [fruit_factory(name="Gravensteiner"), fruit_factory(name="Boskoop")]
    for fruit in fruits:
        publication_link_fruit(publication=publication, fruit=fruit)
    text = client.get(f"/publications/{publication.pk}/").content.decode()

    data = structured_data(text)
    assert (data["@type"], data["name"], data["datePublished"]) == (
        "Book",
        "Deutschlands Obstsorten",
        "1905",
    )
    assert data["author"] == [
        {"@type": "Person", "name": "Müller"},
        {"@type": "Person", "name": "Bißmann"},
        {"@type": "Person", "name": "Lucas"},
    ]
    assert data["image"] == f"http://testserver{publication.get_cover_url()}"
    assert [about["url"] for about in data["about"]] == [
        f"http://testserver/fruits/{fruit.pk}/" for fruit in fruits
    ]


def test_a_name_that_closes_the_script_element_cannot_break_the_page(client, fruit_factory):
    # (Names hold no line separator: U+2028's escaping is tested with a publication's title.)
    hostile = '</script><script>alert("x")</script><!-- & end'
    fruit = fruit_factory(name=f"Boskoop {hostile}", synonyms=[hostile])
    text = client.get(f"/fruits/{fruit.pk}/").content.decode()

    data = structured_data(text)  # one block, ended where it should be
    assert data["name"] == f"Boskoop {hostile}"
    assert data["alternateName"] == [hostile]
    assert text.count("<script") == text.count('<script type="application/ld+json">') + (
        text.count("<script src=")
    )
    assert "<h1>" + html.escape(f"Boskoop {hostile}") + "</h1>" in text


def test_every_image_on_the_public_pages_says_what_it_shows(
    client, publication_factory, fruit_factory
):
    """Only the logo beside the site's name is decorative (empty alt, hidden from readers)."""
    fruit = fruit_factory(name="Gravensteiner")
    FruitImage.objects.create(fruit=fruit, data=make_object_png())
    publication = publication_factory(title="Pomona", cover_data=make_object_png())
    publication_link_fruit(publication=publication, fruit=fruit)
    for path in ["/", f"/fruits/{fruit.pk}/", "/publications/", f"/publications/{publication.pk}/"]:
        tags = re.findall(r"<img\b[^>]*>", client.get(path).content.decode())
        assert len(tags) >= 2, path
        for tag in tags:
            alt = re.search(r'\balt="([^"]*)"', tag)
            assert alt is not None, (path, tag)
            assert alt.group(1).strip() or 'aria-hidden="true"' in tag, (path, tag)
