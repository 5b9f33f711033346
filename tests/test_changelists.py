"""The curators' changelists as Django renders them: columns, a checkbox and change links on
every row, links that carry the page's search and filters, and actions on a filtered page."""

import html
import re
from urllib.parse import urlencode

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from pytest_django.asserts import assertInHTML

from catalog.models import Fruit, FruitImage, FruitType
from catalog.tests.factories import FruitFactory
from core.testing.admin_pages import management_form
from core.testing.media import make_object_png
from core.testing.queries import selected_blob_columns
from publications.models import PublicationFruitImage
from publications.services import publication_link_fruit
from publications.tests.factories import PublicationFactory

pytestmark = pytest.mark.django_db

FRUIT_CHANGELIST = reverse("admin:catalog_fruit_changelist")
FRUIT_COLUMNS = ["thumbnail", "catalog_number", "name", "type", "name_list", "image_count"]


def columns(page: str) -> list[str]:
    """The names of the result table's columns, after the checkbox column."""
    head = page.split('<table id="result_list">', 1)[1].split("</thead>", 1)[0]
    return re.findall(r'<th scope="col" class="[^"]*\bcolumn-(\w+)', head)


def rows(page: str) -> list[str]:
    """The markup of each row of the result table, in order."""
    body = page.split('<table id="result_list">', 1)[1].split("<tbody>", 1)[1]
    return re.findall(r"<tr>(.*?)</tr>", body.split("</tbody>", 1)[0], re.S)


def links(row: str) -> list[str]:
    """The targets of a row's links, unescaped."""
    return [html.unescape(href) for href in re.findall(r'<a href="([^"]*)"', row)]


def change_url(obj, query: str = "") -> str:
    """The change page of `obj`, with the filters of the page `query` (without its "?")."""
    opts = obj._meta
    url = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])
    return f"{url}?{urlencode({'_changelist_filters': query})}" if query else url


def assert_checkbox_of(obj, row: str) -> None:
    """The row holds the action checkbox of `obj`, labelled with it."""
    label = f"Select this object for an action - {html.escape(str(obj))}"
    assertInHTML(
        '<input type="checkbox" name="_selected_action" class="action-select"'
        f' value="{obj.pk}" aria-label="{label}">',
        row,
    )


def apples_and_a_pear(apples: int = 3) -> tuple[list[Fruit], Fruit]:
    """Apples named "Apfel <n>" (one with markup in its name) and a pear named "Birne"."""
    found = [FruitFactory(name=f"Apfel {n}", type=FruitType.APPLE) for n in range(apples - 1)]
    found.append(FruitFactory(name='Apfel <b>"Rot"</b> & Co', type=FruitType.APPLE))
    return found, FruitFactory(name="Birne", type=FruitType.PEAR)


@pytest.mark.parametrize(
    "query", ["", "q=apfel", "q=apfel&type__exact=apple&o=-3", "type__exact=apple&p=2"]
)
def test_every_fruit_row_has_its_checkbox_and_three_links_back_to_the_page_with_its_filters(
    admin_client, query
):
    apples_and_a_pear(101)  # two pages of apples

    response = admin_client.get(f"{FRUIT_CHANGELIST}?{query}")

    assert response.status_code == 200
    assert columns(response.text) == FRUIT_COLUMNS
    listed = list(response.context["cl"].result_list)
    page_rows = rows(response.text)
    assert len(page_rows) == len(listed) == (1 if "p=2" in query else 100)
    for fruit, row in zip(listed, page_rows, strict=True):
        assert_checkbox_of(fruit, row)
        # Thumbnail, number and name open the fruit; the thumbnail's cell is the row's header.
        assert links(row) == [change_url(fruit, query)] * 3
        assert re.search(r'<th class="field-thumbnail"><a href="[^"]*">', row)
        assert f'<td class="field-type">{fruit.get_type_display()}</td>' in row
    if "type__exact" in query:
        assert all(fruit.type == FruitType.APPLE for fruit in listed)


def _fruit_image():
    return FruitImage.objects.create(fruit=FruitFactory(name="Apfel"), data=make_object_png())


def _publication():
    publication = PublicationFactory(title="Pomona")
    publication_link_fruit(publication=publication, fruit=FruitFactory(name="Apfel"))
    return publication


def _link():
    return _publication().links.get()


def _publication_image():
    return PublicationFruitImage.objects.create(link=_link(), data=make_object_png())


IMAGE_COLUMNS = ["file_summary", "thumbnail_status", "created_at"]


@pytest.mark.parametrize(
    ("make", "changelist", "expected_columns", "linked"),
    [
        (_fruit_image, "catalog_fruitimage", ["preview", "fruit_link", *IMAGE_COLUMNS], 1),
        (
            _publication,
            "publications_publication",
            ["cover", "title", "authors", "year", "fruit_count"],
            2,
        ),
        (
            _link,
            "publications_publicationfruit",
            ["publication", "fruit", "description", "image_count"],
            2,
        ),
        (
            _publication_image,
            "publications_publicationfruitimage",
            ["preview", "publication", "fruit", *IMAGE_COLUMNS],
            1,
        ),
    ],
)
@pytest.mark.parametrize("search", [False, True])
def test_every_other_list_shows_its_columns_and_a_checkbox_and_change_links_on_each_row(
    admin_client, make, changelist, expected_columns, linked, search
):
    obj = make()
    # Every list finds the row by its publication's title or by its fruit's name.
    query = ("q=pomona" if changelist == "publications_publication" else "q=apfel") * search

    response = admin_client.get(f"{reverse(f'admin:{changelist}_changelist')}?{query}")

    assert response.status_code == 200
    assert columns(response.text) == expected_columns
    (row,) = rows(response.text)
    assert_checkbox_of(obj, row)
    assert links(row).count(change_url(obj, query)) == linked


def test_a_searched_filtered_page_takes_as_many_queries_for_a_hundred_rows_as_for_three(
    admin_client, django_assert_max_num_queries
):
    query = f"{FRUIT_CHANGELIST}?q=apfel&type__exact=apple"
    apples_and_a_pear(3)
    admin_client.get(query)  # session and content types warmed up
    with CaptureQueriesContext(connection) as few:
        admin_client.get(query)
    apples_and_a_pear(100)

    # A list of several pages reads the page's ids first: one query more than a single page.
    with (
        django_assert_max_num_queries(len(few) + 1),
        CaptureQueriesContext(connection) as many,
    ):
        response = admin_client.get(query)

    assert len(rows(response.text)) == 100
    assert selected_blob_columns(many.captured_queries) == set()


def test_deleting_ticked_rows_of_a_filtered_page_takes_those_rows_and_returns_to_the_page(
    admin_client,
):
    apples, pear = apples_and_a_pear(4)
    page = f"{FRUIT_CHANGELIST}?q=apfel&type__exact=apple"
    ticked = {"action": "delete_selected", "_selected_action": [apples[0].pk, apples[2].pk]}

    confirm = admin_client.post(page, ticked)
    done = admin_client.post(page, {**ticked, "post": "yes"})

    assert confirm.status_code == 200
    assert f'<a href="{change_url(apples[0])}">' in confirm.text
    assert done.status_code == 302
    assert done["Location"] == page
    assert set(Fruit.objects.all()) == {apples[1], apples[3], pear}


def test_an_action_on_all_rows_of_a_filtered_page_takes_every_row_it_filters_and_only_those(
    admin_client,
):
    apples, pear = apples_and_a_pear(3)
    chosen = {"action": "export_csv", "select_across": "1", "index": "0"}

    response = admin_client.post(
        f"{FRUIT_CHANGELIST}?type__exact=apple", {**chosen, "_selected_action": [apples[0].pk]}
    )

    lines = b"".join(response.streaming_content).decode().splitlines()
    numbers = {int(line.split(",", 1)[0]) for line in lines[1:]}
    assert numbers == {apple.catalog_number for apple in apples}
    assert pear.catalog_number not in numbers


def test_saving_a_fruit_opened_from_a_filtered_page_returns_to_that_page(admin_client):
    apples_and_a_pear(3)
    query = "q=apfel&type__exact=apple"
    listed = admin_client.get(f"{FRUIT_CHANGELIST}?{query}")
    fruit = listed.context["cl"].result_list[0]
    (opened, *_) = links(rows(listed.text)[0])
    data = {"name": f"{fruit.name} renamed", "type": fruit.type}
    data["catalog_number"] = fruit.catalog_number
    for prefix in ("names", "relations", "images", "characteristics"):
        data |= management_form(prefix, total=0, initial=0)

    assert admin_client.get(opened).status_code == 200
    response = admin_client.post(opened, data)

    assert response.status_code == 302
    assert response["Location"] == f"{FRUIT_CHANGELIST}?{query}"
    fruit.refresh_from_db()
    assert fruit.name.endswith(" renamed")
