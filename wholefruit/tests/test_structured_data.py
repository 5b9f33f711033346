"""A fruit page's schema.org `Taxon`: who made its images, and the publications about it."""

import json
import re

import pytest

from catalog.models import FruitImage, FruitRelation
from core.testing.media import make_object_png

pytestmark = pytest.mark.django_db


def taxon_of(response) -> dict:
    """The page's schema.org JSON-LD block, parsed."""
    (block,) = re.findall(
        r'<script type="application/ld\+json">(.*?)</script>',
        response.content.decode(),
        re.DOTALL,
    )
    return json.loads(block)


def person(name: str) -> dict:
    return {"@type": "Person", "name": name}


def organization(name: str) -> dict:
    return {"@type": "Organization", "name": name}


@pytest.mark.parametrize(
    ("creator", "expected"),
    [
        ("Fruit Catalog demo", organization("Fruit Catalog demo")),
        ("Deutscher Pomologen-Verein", organization("Deutscher Pomologen-Verein")),
        (
            "Bayerische Landesanstalt für Gartenbau",
            organization("Bayerische Landesanstalt für Gartenbau"),
        ),
        ("Royal Horticultural Society", organization("Royal Horticultural Society")),
        ("Obsthof Maier GmbH", organization("Obsthof Maier GmbH")),
        ("Eva Obst", person("Eva Obst")),
        ("Eva Vereinsmeier", person("Eva Vereinsmeier")),
        ("Eva Obst; Pomologen-Verein", [person("Eva Obst"), organization("Pomologen-Verein")]),
    ],
)
def test_an_images_creator_is_a_person_or_an_organisation(client, fruit_factory, creator, expected):
    fruit = fruit_factory(name="Gravensteiner")
    FruitImage.objects.create(fruit=fruit, data=make_object_png(), creator=creator)

    (image,) = taxon_of(client.get(f"/fruits/{fruit.pk}/"))["image"]

    assert image["creator"] == expected
    assert image["creditText"] == creator


def test_a_taxon_names_the_publications_about_it_oldest_first(
    client, fruit_factory, publication_factory, link_fruit
):
    fruit = fruit_factory(name="Gravensteiner")
    newer = publication_factory(
        title="Deutschlands Obstsorten", authors="Müller, Bißmann, Lucas", year=1905
    )
    older = publication_factory(
        title="Illustrirtes Handbuch der Obstkunde",
        authors="Lucas, Eduard; Oberdieck, Johann Georg Conrad",
        year=1859,
    )
    undated = publication_factory(title="Notes", authors="")
    for publication in (newer, undated, older):
        link_fruit(publication, fruit)

    taxon = taxon_of(client.get(f"/fruits/{fruit.pk}/"))

    assert "citation" not in taxon  # a property of creative works, not of a taxon
    assert taxon["subjectOf"] == [
        {
            "@type": "Book",
            "name": "Illustrirtes Handbuch der Obstkunde",
            "author": [
                {"@type": "Person", "name": "Lucas, Eduard"},
                {"@type": "Person", "name": "Oberdieck, Johann Georg Conrad"},
            ],
            "datePublished": "1859",
            "url": f"http://testserver/publications/{older.pk}/",
        },
        {
            "@type": "Book",
            "name": "Deutschlands Obstsorten",
            "author": [
                {"@type": "Person", "name": "Müller"},
                {"@type": "Person", "name": "Bißmann"},
                {"@type": "Person", "name": "Lucas"},
            ],
            "datePublished": "1905",
            "url": f"http://testserver/publications/{newer.pk}/",
        },
        {"@type": "Book", "name": "Notes", "url": f"http://testserver/publications/{undated.pk}/"},
    ]


def test_a_taxon_without_publications_has_no_subject_of(client, fruit_factory):
    fruit = fruit_factory(name="Topaz")
    assert "subjectOf" not in taxon_of(client.get(f"/fruits/{fruit.pk}/"))


def test_parentage_is_not_given_as_a_taxonomic_parent(client, fruit_factory):
    elstar = fruit_factory(name="Elstar")
    golden = fruit_factory(name="Golden Delicious")
    FruitRelation.objects.create(fruit=elstar, kind="mother", other=golden, name=golden.name)
    FruitRelation.objects.create(fruit=elstar, kind="father", name="Ingrid Marie")

    response = client.get(f"/fruits/{elstar.pk}/")

    assert "Ingrid Marie" in response.content.decode()  # the page shows it
    taxon = taxon_of(response)
    assert "parentTaxon" not in taxon
    assert "Golden Delicious" not in json.dumps(taxon) and "Ingrid Marie" not in json.dumps(taxon)


def test_a_publication_about_the_fruit_cannot_end_the_script_element(
    client, fruit_factory, publication_factory, link_fruit
):
    hostile = '</script><script>alert("x")</script><!-- & \u2028 end'
    fruit = fruit_factory(name="Gravensteiner")
    publication = publication_factory(title=f"Pomona {hostile}", authors=f"Lucas; {hostile}")
    link_fruit(publication, fruit)

    response = client.get(f"/fruits/{fruit.pk}/")

    (book,) = taxon_of(response)["subjectOf"]  # one block, ended where it should be
    assert book["name"] == f"Pomona {hostile}"
    assert book["author"][1] == {"@type": "Person", "name": hostile}
    block = re.search(
        r'<script type="application/ld\+json">(.*?)</script>', response.content.decode(), re.DOTALL
    )
    assert "<" not in block.group(1) and "\u2028" not in block.group(1)
