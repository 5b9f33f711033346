"""The public pages of a fruit (with what describes it) and of the publications."""

import html
import json
import re

import pytest

from core.testing.media import make_object_png

pytestmark = pytest.mark.django_db


def text_of(response) -> str:
    return response.content.decode()


def test_the_publications_page_lists_covers_authors_years_and_fruit_counts(
    client, fruit_factory, publication_factory, link_fruit
):
    old = publication_factory(title="Old pomology", authors="Diel", year=1799)
    new = publication_factory(title="New pomology", year=2001, cover_data=make_object_png())
    link_fruit(old, fruit_factory())
    link_fruit(old, fruit_factory())

    response = client.get("/publications/")

    assert response.status_code == 200
    text = text_of(response)
    assert text.index("New pomology") < text.index("Old pomology")  # newest first
    assert "Describes 2 fruits" in text and "Describes 0 fruits" in text
    assert f'src="{html.escape(new.get_cover_thumbnail_url())}"' in text
    assert "Diel, 1799" in text
    assert card_titles(client.get("/publications/", {"search": "OLD"})) == ["Old pomology"]


def card_titles(response) -> list[str]:
    return re.findall(r'<h2><a href="/publications/\d+/">([^<]*)</a></h2>', text_of(response))


def test_a_publication_page_shows_its_fruits_as_cards_with_their_pdfs(
    client, fruit_factory, add_image, publication_factory, link_fruit, pdf_bytes
):
    publication = publication_factory(
        title="Pomona", authors="Lucas", year=1860, description="Plates.\n\nAnd text."
    )
    described = fruit_factory(name="Described")
    add_image(described)
    link = link_fruit(publication, described, pdf=pdf_bytes)
    link_fruit(publication, fruit_factory(name="Without PDF"))
    fruit_factory(name="Not in it")

    response = client.get(f"/publications/{publication.pk}/")

    text = text_of(response)
    assert "<title>Pomona (1860) · Fruit Catalog</title>" in text
    assert re.findall(r'class="card__name">([^<]*)<', text) == ["Described", "Without PDF"]
    assert f'href="{html.escape(link.get_description_url())}"' in text
    assert text.count("(PDF)") == 1
    assert "<p>Plates.</p>" in text and "<p>And text.</p>" in text


def test_publication_pages_run_fixed_queries_and_read_no_bytes(
    client, fruit_factory, add_image, publication_factory, link_fruit, pdf_bytes, reads_no_bytes
):
    publication = publication_factory(cover_data=make_object_png())

    def queries() -> tuple[int, int]:
        counts = []
        for path in ["/publications/", f"/publications/{publication.pk}/"]:
            with reads_no_bytes() as captured:
                assert client.get(path).status_code == 200
            counts.append(len(captured.captured_queries))
        return tuple(counts)

    link_fruit(publication, fruit_factory(), pdf=pdf_bytes)
    few = queries()
    for _ in range(5):
        fruit = fruit_factory(synonyms=["X"])
        add_image(fruit)
        link_fruit(publication, fruit, pdf=pdf_bytes)
        publication_factory(cover_data=make_object_png())

    assert queries() == few


def test_an_unknown_publication_is_the_sites_404_page(client):
    response = client.get("/publications/424242/")

    assert response.status_code == 404
    assert "There is no publication with this number." in text_of(response)


def test_a_publication_page_lists_its_fruits_with_pages_and_plates(
    client, publication_factory, fruit_factory
):
    from publications.services import publication_link_fruit

    publication = publication_factory(title="Pomona")
    fruit = fruit_factory(name="Gravensteiner")
    publication_link_fruit(
        publication=publication, fruit=fruit, citation={"pages": "Bd. 2, S. 40", "plate": "7"}
    )
    text = client.get(f"/publications/{publication.pk}/").content.decode()
    assert '<p class="card__extra card__citation">Bd. 2, S. 40, plate 7</p>' in text


def book_of(response) -> dict:
    """The page's schema.org JSON-LD block, parsed."""
    (block,) = re.findall(
        r'<script type="application/ld\+json">(.*?)</script>', text_of(response), re.DOTALL
    )
    return json.loads(block)


def person(name: str) -> dict:
    return {"@type": "Person", "name": name}


def organization(name: str) -> dict:
    return {"@type": "Organization", "name": name}


@pytest.mark.parametrize(
    ("authors", "author"),
    [
        # Without a semicolon, commas separate the authors: three surnames, three people.
        ("Müller, Bißmann, Lucas", [person("Müller"), person("Bißmann"), person("Lucas")]),
        (
            "Eduard Lucas, Johann Georg Conrad Oberdieck",
            [person("Eduard Lucas"), person("Johann Georg Conrad Oberdieck")],
        ),
        # With one, semicolons separate names written "Surname, Given".
        (
            "Lucas, Eduard; Oberdieck, Johann Georg Conrad",
            [person("Lucas, Eduard"), person("Oberdieck, Johann Georg Conrad")],
        ),
        # Initials after a comma belong to the name before them.
        ("Lucas, E., Oberdieck, J. G. C.", [person("Lucas, E."), person("Oberdieck, J. G. C.")]),
        ("Diel", person("Diel")),
        # "und" inside an association's name separates nobody.
        (
            "Obst- und Gartenbauverein Musterstadt e.V.",
            organization("Obst- und Gartenbauverein Musterstadt e.V."),
        ),
        (
            "Deutscher Pomologen-Verein; Lucas, Eduard",
            [organization("Deutscher Pomologen-Verein"), person("Lucas, Eduard")],
        ),
        (" ; ,", None),
    ],
)
def test_a_books_authors_are_its_people_and_organisations(
    client, publication_factory, authors, author
):
    publication = publication_factory(title="Pomona", authors=authors, year=1860)

    book = book_of(client.get(f"/publications/{publication.pk}/"))

    assert book.get("author") == author
    assert (book["@type"], book["name"], book["datePublished"]) == ("Book", "Pomona", "1860")


def test_a_books_author_cannot_end_the_script_element(client, publication_factory):
    hostile = '</script><script>alert("x")</script>'
    publication = publication_factory(title="Pomona", authors=f"Lucas; {hostile}")

    response = client.get(f"/publications/{publication.pk}/")

    assert book_of(response)["author"] == [person("Lucas"), person(hostile)]
    assert text_of(response).count("</script>") == text_of(response).count("<script")
