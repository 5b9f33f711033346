"""The public card grid at `/`: the fruit list's query parameters as a page."""

import html
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalog.models import FruitType

pytestmark = pytest.mark.django_db


def card_names(response) -> list[str]:
    """The fruit names on the cards, in page order."""
    text = response.content.decode()
    return [html.unescape(name) for name in re.findall(r'class="card__name">([^<]*)<', text)]


def test_the_grid_shows_each_fruit_as_a_card_with_number_type_label_and_synonyms(
    client, fruit_factory
):
    fruit_factory(name="Williams Christ", type=FruitType.PEAR, synonyms=["Bartlett"])

    response = client.get("/")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    text = response.content.decode()
    assert card_names(response) == ["Williams Christ"]
    assert "No.&nbsp;1" in text
    assert ">Pear<" in text  # the label, not the stored value
    assert "Bartlett" in text
    assert "<title>Fruit varieties · Fruit Catalog</title>" in text


def test_a_fruit_without_images_gets_a_placeholder_and_no_img(client, fruit_factory):
    fruit_factory(name="Bare")

    text = client.get("/").content.decode()

    assert "No photo yet" in text
    assert 'class="card__image"' not in text


def test_a_card_shows_the_versioned_thumbnail_with_its_stored_size(
    client, fruit_factory, add_image
):
    fruit = fruit_factory(name="Cox Orange")
    image = add_image(fruit)

    text = client.get("/").content.decode()

    thumb = fruit.__class__.objects.with_list_data().get(pk=fruit.pk).card_thumbnail
    assert f'src="{html.escape(thumb.url)}"' in text
    assert f"/api/v1/fruits/{fruit.pk}/images/{image.pk}/thumbnail?v=" in text
    assert f'width="{thumb.width}" height="{thumb.height}"' in text
    assert 'alt="Cox Orange, fruit"' in text  # no alt text written: the name and the role


def test_search_ignores_case_and_accents_and_looks_at_synonyms_and_numbers(client, fruit_factory):
    fruit_factory(name="Schöner aus Boskoop", synonyms=["Belle de Boskoop"])
    fruit_factory(name="Cox Orange", catalog_number=4711)
    fruit_factory(name="Gravensteiner")

    assert card_names(client.get("/", {"search": "SCHONER"})) == ["Schöner aus Boskoop"]
    assert card_names(client.get("/", {"search": "belle"})) == ["Schöner aus Boskoop"]
    assert card_names(client.get("/", {"search": "4711"})) == ["Cox Orange"]
    text = client.get("/", {"search": "schoner"}).content.decode()
    assert 'value="schoner"' in text  # the box keeps what was searched


def test_type_chips_filter_and_a_chip_toggles_its_type_in_the_url(client, fruit_factory):
    fruit_factory(name="Apple A", type=FruitType.APPLE)
    fruit_factory(name="Pear P", type=FruitType.PEAR)
    fruit_factory(name="Plum Q", type=FruitType.PLUM)

    response = client.get("/", {"type": ["pear", "plum"]})

    assert card_names(response) == ["Pear P", "Plum Q"]
    text = response.content.decode()
    # The pear chip is on; following it leaves plums only. The apple chip adds apples.
    assert 'class="chip chip--on" href="?type=plum" aria-current="true">Pear' in text
    assert 'href="?type=pear&amp;type=plum&amp;type=apple">Apple' in text


def test_sorting_by_name_both_ways(client, fruit_factory):
    for name in ["Banane", "Apfel", "Citrone"]:
        fruit_factory(name=name)

    assert card_names(client.get("/", {"ordering": "name"})) == ["Apfel", "Banane", "Citrone"]
    assert card_names(client.get("/", {"ordering": "-name"})) == ["Citrone", "Banane", "Apfel"]
    assert card_names(client.get("/")) == ["Banane", "Apfel", "Citrone"]  # catalog number


def test_numbered_pages_keep_the_filters_and_hold_the_api_page_size(client, fruit_factory):
    for index in range(30):
        fruit_factory(name=f"Pear {index:02}", type=FruitType.PEAR)
    fruit_factory(name="An apple", type=FruitType.APPLE)

    first = client.get("/", {"type": "pear", "search": "pear"})
    assert len(card_names(first)) == 24
    text = first.content.decode()
    assert 'href="?type=pear&amp;search=pear&amp;page=2"' in text
    assert "page 1 of 2" in text

    second = client.get("/", {"type": "pear", "search": "pear", "page": "2"})
    assert card_names(second) == [f"Pear {index:02}" for index in range(24, 30)]
    assert 'aria-current="page"><span class="visually-hidden">Page </span>2' in (
        second.content.decode()
    )


def test_an_empty_result_says_what_was_searched(client, fruit_factory):
    fruit_factory(name="Cox Orange")

    response = client.get("/", {"search": "banana<b>"})

    assert response.status_code == 200
    text = response.content.decode()
    assert "No fruits found" in text
    assert "Nothing matches “banana&lt;b&gt;”" in text  # escaped


@pytest.mark.parametrize(
    ("parameter", "value", "named"),
    [
        ("type", "banana", "type: Select a valid choice. banana is not one of"),
        ("ordering", "colour", "ordering: Select a valid choice. colour is not one of"),
        ("page", "x", "page: a page is a whole number from 1."),
        ("page", "0", "page: a page is a whole number from 1."),
    ],
)
def test_a_bad_parameter_is_a_400_page_naming_it(client, parameter, value, named):
    response = client.get("/", {parameter: value})

    assert response.status_code == 400
    assert named in response.content.decode()


def test_a_null_character_is_an_html_400_page_on_the_site_and_json_in_the_api(client):
    page = client.get("/", {"search": "\x00"}, HTTP_ACCEPT="text/html,*/*;q=0.8")
    assert (page.status_code, page["Content-Type"]) == (400, "text/html; charset=utf-8")
    assert "Bad request" in page.content.decode()
    api = client.get("/api/v1/fruits", {"search": "\x00"})
    assert api.json() == {"detail": "Null characters are not allowed."}


def test_a_page_beyond_the_last_is_a_404_page(client, fruit_factory):
    fruit_factory()

    assert client.get("/", {"page": "2"}).status_code == 404


def test_only_the_first_cards_load_their_images_at_once(client, fruit_factory, add_image):
    for index in range(10):
        add_image(fruit_factory(name=f"Fruit {index}"))

    text = client.get("/").content.decode()

    images = re.findall(r'<img class="card__image"[^>]*>', text)
    assert len(images) == 10
    assert ['loading="lazy"' in tag for tag in images] == [False] * 8 + [True] * 2


def test_the_grid_runs_the_same_queries_for_any_number_of_fruits_and_reads_no_bytes(
    client, fruit_factory, add_image, reads_no_bytes
):
    def queries_for_grid() -> int:
        # A term of three letters is matched as typed: the closest spellings' one query (when
        # the matches do not fill a page) is `test_search_forgives_spelling_mistakes`'s.
        with reads_no_bytes() as captured:
            assert client.get("/", {"search": "fru", "type": "apple"}).status_code == 200
        return len(captured.captured_queries)

    for _ in range(3):
        add_image(fruit_factory(synonyms=["One", "Two"]))
    few = queries_for_grid()
    for _ in range(30):
        add_image(fruit_factory(synonyms=["Three"]))

    with CaptureQueriesContext(connection):
        assert queries_for_grid() == few
    assert few <= 5


def test_the_first_card_image_is_fetched_first(client, fruit_factory, add_image):
    for index in range(3):
        add_image(fruit_factory(name=f"Fruit {index}"))
    html = client.get("/").content.decode()
    assert html.count('fetchpriority="high"') == 1


def test_chips_offer_only_the_types_some_fruit_has_and_those_selected(client, fruit_factory):
    fruit_factory(name="Apple A", type=FruitType.APPLE)
    fruit_factory(name="Pear P", type=FruitType.PEAR)

    def chip_labels(**query) -> list[str]:
        text = client.get("/", query).content.decode()
        return re.findall(r'class="chip[^"]*" href="[^"]*"[^>]*>([A-Za-z]+)', text)

    assert chip_labels() == ["Apple", "Pear"]
    # A type chosen in the URL stays offered, so the visitor can turn it off again.
    assert chip_labels(type="nut") == ["Apple", "Pear", "Nut"]


def test_an_empty_catalog_offers_no_chips(client):
    assert 'class="chip' not in client.get("/").content.decode()


def test_a_card_found_through_another_name_says_which(client, fruit_factory):
    fruit_factory(name="Schöner aus Boskoop", synonyms=["Belle de Boskoop"])
    fruit_factory(name="Belle Fleur")
    response = client.get("/", {"search": "belle de boskop"})
    assert card_names(response) == ["Schöner aus Boskoop"]
    assert "matched <em>Belle de Boskoop</em>" in response.content.decode()
    # Found through its own name: nothing to say.
    assert "matched" not in client.get("/", {"search": "schoener"}).content.decode()


def test_a_search_that_finds_nothing_offers_did_you_mean_links(client, fruit_factory):
    fruit_factory(name="Gravensteiner")
    text = client.get("/", {"search": "Gravnstainr"}).content.decode()
    assert "No fruits found" in text
    assert 'Did you mean <a href="?search=Gravensteiner">Gravensteiner</a>?' in text
    assert "Did you mean" not in client.get("/", {"search": "xqzvw"}).content.decode()


def test_with_a_search_the_default_sort_is_the_best_match(client, fruit_factory):
    fruit_factory(name="Boskoop")
    text = client.get("/", {"search": "boskoop"}).content.decode()
    assert '<option value="" selected>Best match</option>' in text
    assert '<option value="catalog_number">Catalog number</option>' in text
    assert '<option value="" selected>Catalog number</option>' in client.get("/").content.decode()


def test_an_empty_catalog_says_it_is_empty_and_how_to_load_the_demo(client):
    response = client.get("/")

    assert response.status_code == 200
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", response.content.decode()))
    assert "The catalog is empty" in text
    assert "make demo" in text and "manage.py load_demo_data" in text
    assert "No fruits found" not in text and "Nothing matches" not in text


def test_a_cards_other_names_carry_their_language_where_it_is_known(client, fruit_factory):
    fruit_factory(
        name="Vereinsdechantsbirne",
        type=FruitType.PEAR,
        names=[
            {"name": "Doyenné du Comice", "kind": "translation", "language": "fr"},
            {"name": "Comice", "kind": "synonym"},
        ],
    )

    text = client.get("/").content.decode()

    # A name of no known language is in the page's.
    assert '<span lang="fr">Doyenné du Comice</span>, Comice</p>' in text
