"""The catalog admin, driven through its pages with Django's test client."""

import re

import pytest
from django.contrib import admin
from django.contrib.admin.models import LogEntry
from django.contrib.admin.utils import get_deleted_objects
from django.contrib.auth.models import Group, Permission
from django.contrib.messages import constants as message_levels
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.text import capfirst

from catalog.models import Fruit, FruitImage, FruitName, FruitSpelling, FruitType
from catalog.signals import searched_names
from core.db.search import search_document
from core.rest.curators import CURATORS_GROUP
from core.testing.admin_pages import form_errors, management_form, png_upload
from core.testing.media import make_image_bytes, make_object_png
from core.testing.queries import selected_blob_columns

FRUIT_CHANGELIST = reverse("admin:catalog_fruit_changelist")
FRUIT_ADD = reverse("admin:catalog_fruit_add")
IMAGE_CHANGELIST = reverse("admin:catalog_fruitimage_changelist")


def fruit_change_url(fruit):
    """The admin change page of `fruit`."""
    return reverse("admin:catalog_fruit_change", args=[fruit.pk])


def fruit_form_data(
    *,
    name="Gravensteiner",
    type=FruitType.APPLE,
    catalog_number="",
    names=(),
    existing_names=(),
    existing_images=(),
    uploads=(),
    card_rows=(),
):
    """POST data of the fruit add/change page: the fruit's fields and both inline formsets.

    `existing_names` are (name, new text, position, delete) rows of the stored other names;
    `names` are (text, position) rows to add; `existing_images` are (image, delete) rows;
    `card_rows` are the image rows (stored images first, then uploads) ticked as card image.
    """
    data = {"name": name, "type": type, "catalog_number": catalog_number}
    rows = [
        {"id": name.pk, "name": text, "position": position, "DELETE": "on" if delete else ""}
        for name, text, position, delete in existing_names
    ] + [{"id": "", "name": n, "position": p} for n, p in names]
    data |= management_form("names", total=len(rows), initial=len(existing_names))
    for index, row in enumerate(rows):
        for field, value in row.items():
            if field == "DELETE" and not value:
                continue
            data[f"names-{index}-{field}"] = value
    data |= management_form("relations", total=0, initial=0)
    data |= management_form("characteristics", total=0, initial=0)
    data |= management_form(
        "images", total=len(existing_images) + len(uploads), initial=len(existing_images)
    )
    for index, (image, delete) in enumerate(existing_images):
        data[f"images-{index}-id"] = image.pk
        if delete:
            data[f"images-{index}-DELETE"] = "on"
    for offset, upload in enumerate(uploads):
        data[f"images-{len(existing_images) + offset}-upload"] = upload
    for row in card_rows:
        data[f"images-{row}-card_image"] = "on"
    return data


def bulk_fruits(count, *, start=1, with_names=True):
    """Many fruits fast: `bulk_create` with the search column filled as the services do."""
    fruits = Fruit.objects.bulk_create(
        Fruit(
            catalog_number=start + i,
            name=f"Bulk fruit {start + i}",
            type=FruitType.PEAR if i % 2 else FruitType.APPLE,
            search_text=search_document(start + i, f"Bulk fruit {start + i}", f"Alias {start + i}"),
        )
        for i in range(count)
    )
    if with_names:
        FruitName.objects.bulk_create(
            FruitName(fruit=fruit, name=f"Alias {fruit.catalog_number}") for fruit in fruits
        )
    return fruits


# --- the fruit list ------------------------------------------------------------------------------


def test_fruit_changelist_shows_thumbnail_number_name_type_and_synonyms(
    admin_client, fruit_factory, add_image
):
    fruit = fruit_factory(
        name="Schöner aus Boskoop", catalog_number=7, synonyms=["Boskoop", "Belle de Boskoop"]
    )
    image = add_image(fruit)
    fruit_factory(name="Conference", type=FruitType.PEAR)

    response = admin_client.get(FRUIT_CHANGELIST)

    assert response.status_code == 200
    thumbnail = f"/api/v1/fruits/{fruit.pk}/images/{image.pk}/thumbnail"
    versioned = re.escape(f"{thumbnail}?v={image.thumbnail_sha256[:16]}")
    assert re.search(rf'<img src="{versioned}"[^>]*loading="lazy"', response.text)
    assert "base64" not in response.text
    assert "Boskoop, Belle de Boskoop" in response.text
    assert "Schöner aus Boskoop" in response.text
    assert "Conference" in response.text
    assert 'title="No image"' in response.text  # Conference has no image
    # the thumbnail the column points at is served
    assert admin_client.get(thumbnail)["Content-Type"] == "image/jpeg"


def test_fruit_changelist_of_many_fruits_takes_constant_queries_and_reads_no_bytes(
    admin_client, add_image, django_assert_max_num_queries
):
    admin_client.get(FRUIT_CHANGELIST)  # session and content types warmed up
    few = bulk_fruits(5)
    add_image(few[0])
    with CaptureQueriesContext(connection) as few_queries:
        assert admin_client.get(FRUIT_CHANGELIST).status_code == 200

    many = bulk_fruits(200, start=100)
    for fruit in many[:10]:
        add_image(fruit)
    # A list of several pages reads the page's ids first: one query more than a single page.
    with (
        django_assert_max_num_queries(len(few_queries) + 1),
        CaptureQueriesContext(connection) as many_queries,
    ):
        response = admin_client.get(FRUIT_CHANGELIST)

    assert response.status_code == 200
    assert response.text.count('class="catalog-thumb"') == 10 + 1
    assert "Alias 100" in response.text  # synonyms from the prefetch
    assert len(many_queries) <= 6  # session, user, count, page ids, page rows, synonyms
    assert selected_blob_columns(many_queries.captured_queries) == set()


def test_fruit_changelist_shows_100_fruits_a_page(admin_client):
    bulk_fruits(150, with_names=False)

    response = admin_client.get(FRUIT_CHANGELIST)

    assert len(response.context["cl"].result_list) == 100
    assert response.context["cl"].multi_page


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("schoner", True),
        ("SCHÖNER", True),
        ("belle de", True),  # a synonym
        ("4711", True),  # the catalog number
        ("williams", False),
    ],
)
def test_fruit_search_matches_name_synonyms_and_number_ignoring_case_and_accents(
    admin_client, fruit_factory, query, found
):
    fruit_factory(
        name="Schöner aus Boskoop", catalog_number=4711, synonyms=["Boskoop", "Belle de Boskoop"]
    )
    fruit_factory(name="Gravensteiner")

    response = admin_client.get(FRUIT_CHANGELIST, {"q": query})

    names = [fruit.name for fruit in response.context["cl"].result_list]
    assert names == (["Schöner aus Boskoop"] if found else [])


def test_fruit_search_uses_the_search_column_without_a_join(admin_client, fruit_factory):
    fruit_factory(name="Schöner aus Boskoop", synonyms=["Boskoop"])
    with CaptureQueriesContext(connection) as queries:
        admin_client.get(FRUIT_CHANGELIST, {"q": "boskoop"})

    listing = [
        q["sql"]
        for q in queries.captured_queries
        if '"search_text"' in q["sql"] and "LIKE" in q["sql"]  # PostgreSQL adds a ::text cast
    ]
    assert listing
    assert all("JOIN" not in sql and "DISTINCT" not in sql for sql in listing)


def test_fruit_list_filters_by_type(admin_client, fruit_factory):
    fruit_factory(name="Gravensteiner", type=FruitType.APPLE)
    fruit_factory(name="Conference", type=FruitType.PEAR)

    response = admin_client.get(FRUIT_CHANGELIST, {"type__exact": "pear"})

    assert [fruit.name for fruit in response.context["cl"].result_list] == ["Conference"]


def test_fruit_list_sorts_by_name(admin_client, fruit_factory):
    for name in ["Conference", "Alexander Lucas", "Boskoop"]:
        fruit_factory(name=name)
    # columns are counted from the action checkbox: 1 image, 2 catalog number, 3 name
    response = admin_client.get(FRUIT_CHANGELIST, {"o": "3"})

    names = [fruit.name for fruit in response.context["cl"].result_list]
    assert names == ["Alexander Lucas", "Boskoop", "Conference"]


# --- adding and changing fruits ------------------------------------------------------------------


def test_add_fruit_with_names_keeps_their_order_and_assigns_the_next_number(
    admin_client, fruit_factory
):
    fruit_factory(name="Existing", catalog_number=41)

    response = admin_client.post(
        FRUIT_ADD,
        fruit_form_data(
            name="  Williams Christ ",
            type=FruitType.PEAR,
            names=[("Bartlett", ""), ("Williams Christbirne", "0")],
        ),
    )

    assert response.status_code == 302, form_errors(response)
    fruit = Fruit.objects.get(name="Williams Christ")
    assert fruit.catalog_number == 42
    assert [name["name"] for name in fruit.name_list] == ["Williams Christbirne", "Bartlett"]
    assert list(Fruit.objects.search("bartlett")) == [fruit]
    assert list(Fruit.objects.search("42")) == [fruit]


@pytest.mark.parametrize(
    ("synonyms", "message"),
    [
        ([("Boskoop", ""), (" boskoop ", "")], "Duplicate name: &#x27;boskoop&#x27;."),
        ([("schöner aus boskoop", "")], "is the fruit&#x27;s own name, not another name of it."),
    ],
)
def test_invalid_synonyms_are_a_form_error_and_nothing_is_saved(admin_client, synonyms, message):
    response = admin_client.post(
        FRUIT_ADD, fruit_form_data(name="Schöner aus Boskoop", names=synonyms)
    )

    assert response.status_code == 200
    assert 'class="errorlist nonform"' in response.text
    assert message in response.text
    assert not Fruit.objects.exists()
    assert not FruitName.objects.exists()


def test_change_page_renames_reorders_and_deletes_synonyms_as_one_list(admin_client, fruit_factory):
    fruit = fruit_factory(name="Gute Luise", synonyms=["A", "B", "C"])
    a, b, c = fruit.names.order_by("position")

    # A and B swap names (the unique constraint would trip a row-by-row save), C goes.
    response = admin_client.post(
        fruit_change_url(fruit),
        fruit_form_data(
            name="Gute Luise",
            catalog_number=fruit.catalog_number,
            existing_names=[(a, "B", 0, False), (b, "A", 1, False), (c, "C", 2, True)],
            names=[("Louise Bonne d'Avranches", "")],
        ),
    )

    assert response.status_code == 302, form_errors(response)
    fruit.refresh_from_db()
    assert [name["name"] for name in fruit.name_list] == ["B", "A", "Louise Bonne d'Avranches"]
    assert [s.position for s in fruit.names.all()] == [0, 1, 2]
    assert "louise bonne davranches" in fruit.search_text  # apostrophes are folded away
    assert list(Fruit.objects.search("louise bonne")) == [fruit]


def test_renaming_a_fruit_to_one_of_its_synonyms_is_refused(admin_client, fruit_factory):
    fruit = fruit_factory(name="Gravensteiner", synonyms=["Gravenstein"])
    (synonym,) = fruit.names.all()

    response = admin_client.post(
        fruit_change_url(fruit),
        fruit_form_data(
            name="GRAVENSTEIN",
            catalog_number=fruit.catalog_number,
            existing_names=[(synonym, "Gravenstein", 0, False)],
        ),
    )

    assert response.status_code == 200
    assert "the fruit&#x27;s own name" in response.text
    fruit.refresh_from_db()
    assert fruit.name == "Gravensteiner"


def test_renaming_refreshes_the_search_column(admin_client, fruit_factory):
    fruit = fruit_factory(name="Old name", catalog_number=3)

    response = admin_client.post(
        fruit_change_url(fruit), fruit_form_data(name="Hauszwetschge", catalog_number=3)
    )

    assert response.status_code == 302, form_errors(response)
    assert list(Fruit.objects.search("hauszwetschge")) == [fruit]
    assert not Fruit.objects.search("old name").exists()


def test_saving_a_fruit_with_its_names_computes_its_search_once_and_logs_the_names(
    admin_client, fruit_factory
):
    fruit = fruit_factory(name="Gute Luise", synonyms=["Alpha", "Beta"])
    a, b = fruit.names.order_by("position")
    asked = []

    def count_refreshes(sender, fruit_ids, **kwargs):
        asked.append(fruit_ids)
        return {}

    searched_names.connect(count_refreshes)
    try:
        response = admin_client.post(
            fruit_change_url(fruit),
            fruit_form_data(
                name="Gute Luise",
                catalog_number=fruit.catalog_number,
                existing_names=[(a, "Alpha", 0, False), (b, "Beta", 1, True)],
                names=[("Louise Bonne", "")],
            ),
        )
    finally:
        searched_names.disconnect(count_refreshes)

    assert response.status_code == 302, form_errors(response)
    assert asked == [[fruit.pk]]
    assert list(Fruit.objects.search("louise bonne")) == [fruit]
    assert not Fruit.objects.search("beta").exists()
    # The admin's log entry, which its pages write beside the recorded versions.
    logged = LogEntry.objects.get(object_id=str(fruit.pk)).get_change_message()
    assert "Added fruit synonym \N{LEFT DOUBLE QUOTATION MARK}Louise Bonne" in logged
    assert "Deleted fruit synonym \N{LEFT DOUBLE QUOTATION MARK}Beta" in logged


def test_clearing_a_catalog_number_is_refused(admin_client, fruit_factory):
    fruit = fruit_factory(name="Conference", catalog_number=5)

    response = admin_client.post(fruit_change_url(fruit), fruit_form_data(name="Conference"))

    assert response.status_code == 200
    assert "A catalog number cannot be set back to null." in response.text
    fruit.refresh_from_db()
    assert fruit.catalog_number == 5


def test_a_taken_catalog_number_is_a_form_error(admin_client, fruit_factory):
    fruit_factory(name="Conference", catalog_number=5)

    response = admin_client.post(FRUIT_ADD, fruit_form_data(name="Topaz", catalog_number=5))

    assert response.status_code == 200
    assert "Fruit with this Catalog number already exists." in response.text


# --- images on the fruit page --------------------------------------------------------------------


def test_upload_through_the_image_inline_stores_the_image_with_its_thumbnail(
    admin_client, fruit_factory
):
    fruit = fruit_factory(name="Topaz", catalog_number=9)
    data = make_object_png(size=(400, 300), box=(100, 50, 199, 149))

    response = admin_client.post(
        fruit_change_url(fruit),
        fruit_form_data(name="Topaz", catalog_number=9, uploads=[png_upload(data)]),
    )

    assert response.status_code == 302, form_errors(response)
    image = FruitImage.objects.get(fruit=fruit)
    assert bytes(image.data) == data
    assert (image.content_type, image.size, image.width, image.height) == (
        "image/png",
        len(data),
        400,
        300,
    )
    assert image.has_thumbnail
    assert bytes(image.thumbnail_data).startswith(b"\xff\xd8")


def test_the_first_upload_of_a_new_fruit_can_come_with_the_add_form(admin_client):
    response = admin_client.post(
        FRUIT_ADD, fruit_form_data(name="Kordia", type=FruitType.CHERRY, uploads=[png_upload()])
    )

    assert response.status_code == 302, form_errors(response)
    assert FruitImage.objects.get().fruit.name == "Kordia"


SVG = b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'


@pytest.mark.parametrize(
    ("data", "name", "content_type"),
    [
        (SVG, "fruit.svg", "image/svg+xml"),
        (b"just some text, not an image", "fruit.png", "image/png"),
        (make_object_png()[:200], "truncated.png", "image/png"),
        (b"", "empty.png", "image/png"),
    ],
    ids=["svg", "text", "truncated-png", "empty"],
)
def test_upload_of_anything_but_a_complete_image_is_a_form_error_and_nothing_is_stored(
    admin_client, fruit_factory, data, name, content_type
):
    fruit = fruit_factory(name="Topaz", catalog_number=9)

    response = admin_client.post(
        fruit_change_url(fruit),
        fruit_form_data(
            name="Topaz", catalog_number=9, uploads=[png_upload(data, name, content_type)]
        ),
    )

    assert response.status_code == 200
    assert 'class="errorlist' in response.text
    assert not FruitImage.objects.exists()


def test_upload_over_the_size_limit_is_a_form_error(admin_client, fruit_factory, settings):
    settings.FRUITCATALOG_MAX_UPLOAD_BYTES = 100
    fruit = fruit_factory(name="Topaz", catalog_number=9)

    response = admin_client.post(
        fruit_change_url(fruit),
        fruit_form_data(name="Topaz", catalog_number=9, uploads=[png_upload()]),
    )

    assert response.status_code == 200
    assert "The file is larger than the limit of 100 bytes." in form_errors(response)
    assert not FruitImage.objects.exists()


def test_upload_over_the_pixel_cap_is_a_form_error(admin_client, fruit_factory, settings):
    settings.FRUITCATALOG_MAX_IMAGE_PIXELS = 1000
    fruit = fruit_factory(name="Topaz", catalog_number=9)

    response = admin_client.post(
        fruit_change_url(fruit),
        fruit_form_data(name="Topaz", catalog_number=9, uploads=[png_upload()]),
    )

    assert response.status_code == 200
    assert form_errors(response).strip()
    assert not FruitImage.objects.exists()


def test_change_page_shows_previews_and_metadata_without_reading_bytes(
    admin_client, fruit_factory, add_image
):
    fruit = fruit_factory(name="Topaz", catalog_number=9, synonyms=["Topas"])
    image = add_image(fruit, make_object_png(size=(120, 100)))

    with CaptureQueriesContext(connection) as queries:
        response = admin_client.get(fruit_change_url(fruit))

    assert response.status_code == 200
    assert f'src="{image.get_thumbnail_url()}"' in response.text
    assert "image/png" in response.text
    assert "120 \N{MULTIPLICATION SIGN} 100" in response.text
    assert 'enctype="multipart/form-data"' in response.text
    assert 'value="Topas"' in response.text
    assert selected_blob_columns(queries.captured_queries) == set()


def test_delete_checkbox_removes_an_image(admin_client, fruit_factory, add_image):
    fruit = fruit_factory(name="Topaz", catalog_number=9)
    keep, drop = add_image(fruit), add_image(fruit, make_image_bytes("GIF"))

    response = admin_client.post(
        fruit_change_url(fruit),
        fruit_form_data(
            name="Topaz", catalog_number=9, existing_images=[(keep, False), (drop, True)]
        ),
    )

    assert response.status_code == 302, form_errors(response)
    assert list(FruitImage.objects.values_list("pk", flat=True)) == [keep.pk]


# --- the card image ------------------------------------------------------------------------------


def test_ticking_an_image_makes_it_the_card_image_and_the_fruit_list_follows(
    admin_client, anon_client, fruit_factory, add_image
):
    fruit = fruit_factory(name="Topaz", catalog_number=9)
    oldest, newer = add_image(fruit), add_image(fruit, make_image_bytes("GIF", size=(30, 20)))
    rows = [(oldest, False), (newer, False)]
    listed = admin_client.get(FRUIT_CHANGELIST).text
    assert f'src="{oldest.get_thumbnail_url()}"' in listed  # by default, the oldest

    response = admin_client.post(
        fruit_change_url(fruit),
        fruit_form_data(name="Topaz", catalog_number=9, existing_images=rows, card_rows=[1]),
    )

    assert response.status_code == 302, form_errors(response)
    assert list(FruitImage.objects.filter(is_card_image=True)) == [newer]
    listed = admin_client.get(FRUIT_CHANGELIST).text
    assert f'src="{newer.get_thumbnail_url()}"' in listed
    assert f'src="{oldest.get_thumbnail_url()}"' not in listed
    body = anon_client.get(f"/api/v1/fruits/{fruit.pk}").json()
    assert body["card_image_id"] == newer.pk
    page = admin_client.get(fruit_change_url(fruit)).text
    assert re.search(r'name="images-1-card_image"[^>]*checked', page)
    assert not re.search(r'name="images-0-card_image"[^>]*checked', page)


def test_unticking_the_card_image_goes_back_to_the_oldest(admin_client, fruit_factory, add_image):
    fruit = fruit_factory(name="Topaz", catalog_number=9)
    oldest, newer = add_image(fruit), add_image(fruit)
    FruitImage.objects.filter(pk=newer.pk).update(is_card_image=True)

    response = admin_client.post(
        fruit_change_url(fruit),
        fruit_form_data(
            name="Topaz", catalog_number=9, existing_images=[(oldest, False), (newer, False)]
        ),
    )

    assert response.status_code == 302, form_errors(response)
    assert not FruitImage.objects.filter(is_card_image=True).exists()
    assert f'src="{oldest.get_thumbnail_url()}"' in admin_client.get(FRUIT_CHANGELIST).text


def test_ticking_two_card_images_is_a_form_error(admin_client, fruit_factory, add_image):
    fruit = fruit_factory(name="Topaz", catalog_number=9)
    first, second = add_image(fruit), add_image(fruit)

    response = admin_client.post(
        fruit_change_url(fruit),
        fruit_form_data(
            name="Topaz",
            catalog_number=9,
            existing_images=[(first, False), (second, False)],
            card_rows=[0, 1],
        ),
    )

    assert response.status_code == 200
    assert "Tick one card image at most." in response.text
    assert not FruitImage.objects.filter(is_card_image=True).exists()


def test_a_new_upload_can_be_ticked_as_the_card_image(admin_client, fruit_factory, add_image):
    fruit = fruit_factory(name="Topaz", catalog_number=9)
    oldest = add_image(fruit)

    response = admin_client.post(
        fruit_change_url(fruit),
        fruit_form_data(
            name="Topaz",
            catalog_number=9,
            existing_images=[(oldest, False)],
            uploads=[png_upload(make_image_bytes("JPEG", size=(50, 40)))],
            card_rows=[1],
        ),
    )

    assert response.status_code == 302, form_errors(response)
    (card,) = FruitImage.objects.filter(is_card_image=True)
    assert card.pk != oldest.pk and card.content_type == "image/jpeg"


def test_deleting_the_ticked_image_falls_back_to_the_oldest(admin_client, fruit_factory, add_image):
    fruit = fruit_factory(name="Topaz", catalog_number=9)
    oldest, newer = add_image(fruit), add_image(fruit)
    FruitImage.objects.filter(pk=newer.pk).update(is_card_image=True)

    response = admin_client.post(
        fruit_change_url(fruit),
        fruit_form_data(
            name="Topaz",
            catalog_number=9,
            existing_images=[(oldest, False), (newer, True)],
            card_rows=[1],
        ),
    )

    assert response.status_code == 302, form_errors(response)
    assert list(FruitImage.objects.all()) == [oldest]
    assert not oldest.__class__.objects.filter(is_card_image=True).exists()


def test_a_replaced_image_shows_its_new_thumbnail_in_the_admin_at_once(
    admin_client, fruit_factory, add_image
):
    fruit = fruit_factory(name="Topaz", catalog_number=9)
    image = add_image(fruit)
    before = image.get_thumbnail_url()
    replacement = make_object_png(size=(200, 100), color=(0, 0, 200))

    response = admin_client.post(
        reverse("admin:catalog_fruitimage_change", args=[image.pk]),
        {"fruit": fruit.pk, "upload": png_upload(replacement)},
    )

    assert response.status_code == 302, form_errors(response)
    image.refresh_from_db()
    after = image.get_thumbnail_url()
    assert after != before  # a new URL: no browser cache can show the old picture
    for page in (FRUIT_CHANGELIST, fruit_change_url(fruit), IMAGE_CHANGELIST):
        text = admin_client.get(page).text
        assert f'src="{after}"' in text and f'src="{before}"' not in text, page
    assert f'href="{image.get_data_url()}"' in admin_client.get(fruit_change_url(fruit)).text


def test_view_on_site_opens_the_fruits_public_page(admin_client, fruit_factory):
    fruit = fruit_factory(name="Topaz")
    page = admin_client.get(fruit_change_url(fruit)).text
    (link,) = re.findall(r'<a href="([^"]+)" class="viewsitelink"', page)
    response = admin_client.get(link)
    assert response.status_code == 302
    assert response["Location"].endswith(f"/fruits/{fruit.pk}/")
    assert admin_client.get(response["Location"]).status_code == 200


# --- the image list and the backfill action ------------------------------------------------------


def test_image_changelist_shows_previews_and_metadata_in_constant_queries_without_bytes(
    admin_client, fruit_factory, add_image, django_assert_max_num_queries
):
    admin_client.get(IMAGE_CHANGELIST)
    fruit = fruit_factory(name="Topaz", catalog_number=9)
    add_image(fruit)
    with CaptureQueriesContext(connection) as few:
        admin_client.get(IMAGE_CHANGELIST)
    for other in bulk_fruits(20, start=100, with_names=False):
        add_image(other)

    with (
        django_assert_max_num_queries(len(few)),
        CaptureQueriesContext(connection) as many,
    ):
        response = admin_client.get(IMAGE_CHANGELIST)

    assert response.status_code == 200
    assert response.text.count('class="catalog-thumb"') == 21
    assert "9 Topaz" in response.text
    assert selected_blob_columns(many.captured_queries) == set()


def test_image_list_searches_by_fruit_ignoring_accents(admin_client, fruit_factory, add_image):
    add_image(fruit_factory(name="Goldparmäne", synonyms=["Reine des Reinettes"]))
    add_image(fruit_factory(name="Elstar"))

    response = admin_client.get(IMAGE_CHANGELIST, {"q": "parmane"})

    assert [i.fruit.name for i in response.context["cl"].result_list] == ["Goldparmäne"]


def _run_backfill_action(client, image):
    return client.post(
        IMAGE_CHANGELIST,
        {"action": "generate_missing_thumbnails", "_selected_action": [image.pk], "index": 0},
        follow=True,
    )


def test_generate_missing_thumbnails_action_reports_generated_and_failed_counts(
    admin_client, fruit_factory, add_image
):
    fruit = fruit_factory(name="Topaz")
    images = [add_image(fruit) for _ in range(3)]
    FruitImage.objects.update(thumbnail_data=None, thumbnail_sha256="")
    (broken,) = FruitImage.objects.bulk_create([FruitImage(fruit=fruit, data=b"not an image")])

    response = _run_backfill_action(admin_client, images[0])

    (message,) = response.context["messages"]
    assert message.level == message_levels.WARNING
    assert "Generated 3 missing thumbnail(s); 1 image(s) could not be decoded" in message.message
    assert str(broken.pk) in message.message
    assert all(
        image.has_thumbnail for image in FruitImage.objects.filter(pk__in=[i.pk for i in images])
    )
    assert not FruitImage.objects.get(pk=broken.pk).has_thumbnail


def test_generate_missing_thumbnails_action_succeeds_quietly_when_all_are_fine(
    admin_client, fruit_factory, add_image
):
    image = add_image(fruit_factory(name="Topaz"))
    FruitImage.objects.update(thumbnail_data=None, thumbnail_sha256="")

    first = _run_backfill_action(admin_client, image)
    second = _run_backfill_action(admin_client, image)

    (done,) = first.context["messages"]
    assert done.level == message_levels.SUCCESS
    assert "Generated 1 missing thumbnail(s); 0 failed." in done.message
    (nothing,) = second.context["messages"]
    assert nothing.message == "No image was missing a thumbnail."


def test_image_list_filters_images_missing_a_thumbnail(admin_client, fruit_factory, add_image):
    fruit = fruit_factory(name="Topaz")
    with_thumbnail, without = add_image(fruit), add_image(fruit)
    FruitImage.objects.filter(pk=without.pk).update(thumbnail_data=None, thumbnail_sha256="")

    missing = admin_client.get(IMAGE_CHANGELIST, {"thumbnail": "missing"})
    present = admin_client.get(IMAGE_CHANGELIST, {"thumbnail": "present"})

    assert [i.pk for i in missing.context["cl"].result_list] == [without.pk]
    assert [i.pk for i in present.context["cl"].result_list] == [with_thumbnail.pk]


def test_image_add_page_uploads_for_a_fruit_picked_by_autocomplete(admin_client, fruit_factory):
    fruit = fruit_factory(name="Schöner aus Boskoop", synonyms=["Boskoop"])

    picker = admin_client.get(
        reverse("admin:autocomplete"),
        {
            "app_label": "catalog",
            "model_name": "fruitimage",
            "field_name": "fruit",
            "term": "schon",
        },
    )
    response = admin_client.post(
        reverse("admin:catalog_fruitimage_add"), {"fruit": fruit.pk, "upload": png_upload()}
    )

    assert [r["id"] for r in picker.json()["results"]] == [str(fruit.pk)]
    assert response.status_code == 302, form_errors(response)
    assert FruitImage.objects.get().has_thumbnail


def test_image_add_page_needs_a_file(admin_client, fruit_factory):
    fruit = fruit_factory(name="Topaz")

    response = admin_client.post(reverse("admin:catalog_fruitimage_add"), {"fruit": fruit.pk})

    assert response.status_code == 200
    assert "No file was submitted." in response.text
    assert not FruitImage.objects.exists()


def test_a_staff_curator_works_in_the_admin_through_the_group_permissions(client, curator):
    curator.is_staff = True
    curator.save()
    assert curator.groups.filter(name=CURATORS_GROUP).exists()
    assert Group.objects.get(name=CURATORS_GROUP).permissions.exists()
    client.force_login(curator)

    response = client.post(FRUIT_ADD, fruit_form_data(name="Conference", type=FruitType.PEAR))

    assert response.status_code == 302, form_errors(response)
    assert client.get(IMAGE_CHANGELIST).status_code == 200


def test_a_staff_curator_edits_a_fruits_relations_and_holds_every_catalog_permission(
    client, curator, fruit_factory
):
    granted = Group.objects.get(name=CURATORS_GROUP).permissions
    every = Permission.objects.filter(content_type__app_label="catalog")
    assert set(granted.filter(content_type__app_label="catalog")) == set(every)
    curator.is_staff = True
    curator.save()
    client.force_login(curator)

    page = client.get(fruit_change_url(fruit_factory(name="Elstar")))

    assert page.status_code == 200
    assert 'id="relations-group"' in page.text


def test_deleting_a_fruit_takes_its_images_without_reading_their_bytes(
    admin_client, fruit_factory, add_image
):
    fruit = fruit_factory(name="Topaz", synonyms=["Topas"])
    add_image(fruit)
    add_image(fruit)
    delete_url = reverse("admin:catalog_fruit_delete", args=[fruit.pk])

    with CaptureQueriesContext(connection) as queries:
        page = admin_client.get(delete_url)
        response = admin_client.post(delete_url, {"post": "yes"})

    assert "Fruit images: 2" in page.text
    assert "spelling" not in page.text.lower()  # search rows are not the curator's business
    assert response.status_code == 302
    assert not Fruit.objects.exists()
    assert not FruitImage.objects.exists()
    assert selected_blob_columns(queries.captured_queries) == set()


def without_rows_of(model, nested):
    """A nested deletion listing (Django's) without the rows of `model`."""
    label = f"{capfirst(model._meta.verbose_name)}: "
    return [
        without_rows_of(model, item) if isinstance(item, list) else item
        for item in nested
        if not (isinstance(item, str) and item.startswith(label))
    ]


@pytest.mark.parametrize("may_delete_images", [True, False])
def test_the_delete_page_lists_what_djangos_own_listing_does_but_the_search_rows(
    client, django_user_model, fruit_factory, add_image, may_delete_images
):
    fruit = fruit_factory(name="Topaz", synonyms=["Topas", "Topas rot"])
    images = [add_image(fruit), add_image(fruit, make_image_bytes("GIF"))]
    user = django_user_model.objects.create_user("remover", is_staff=True)
    codenames = ["view_fruit", "delete_fruit", *["delete_fruitimage"] * may_delete_images]
    user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    client.force_login(user)
    delete_url = reverse("admin:catalog_fruit_delete", args=[fruit.pk])

    with CaptureQueriesContext(connection) as queries:
        page = client.get(delete_url)

    request = RequestFactory().get(delete_url)
    request.user = user
    # Django's own listing of the same deletion (it reads the bytes to make it).
    listed, counted, lacking, protected = get_deleted_objects([fruit], request, admin.site)
    assert page.context["deleted_objects"] == without_rows_of(FruitSpelling, listed)
    del counted[FruitSpelling._meta.verbose_name_plural]
    assert dict(page.context["model_count"]) == counted
    assert (
        page.context["perms_lacking"]
        == lacking
        == (set() if may_delete_images else {"fruit image"})
    )
    assert page.context["protected"] == protected == []
    assert selected_blob_columns(queries.captured_queries) == set()
    if may_delete_images:
        for image in images:
            url = reverse("admin:catalog_fruitimage_change", args=[image.pk])
            assert f'Fruit image: <a href="{url}">{image}</a>' in page.text
        assert "Fruit synonym: Topas rot" in page.text
    else:
        assert "Cannot delete fruit" in page.text
        assert client.post(delete_url, {"post": "yes"}).status_code == 403
        assert FruitImage.objects.count() == 2


def test_an_image_delete_page_lists_the_image_and_deletes_it_without_reading_bytes(
    admin_client, fruit_factory, add_image
):
    fruit = fruit_factory(name="Topaz")
    image, kept = add_image(fruit), add_image(fruit, make_image_bytes("GIF"))
    delete_url = reverse("admin:catalog_fruitimage_delete", args=[image.pk])

    with CaptureQueriesContext(connection) as queries:
        page = admin_client.get(delete_url)
        response = admin_client.post(delete_url, {"post": "yes"})

    url = reverse("admin:catalog_fruitimage_change", args=[image.pk])
    assert page.context["deleted_objects"] == [f'Fruit image: <a href="{url}">{image}</a>']
    assert response.status_code == 302
    assert list(FruitImage.objects.all()) == [kept]
    assert selected_blob_columns(queries.captured_queries) == set()


def test_delete_selected_images_reads_no_bytes(admin_client, fruit_factory, add_image):
    fruit = fruit_factory(name="Topaz")
    images = [add_image(fruit) for _ in range(3)]
    selected = {"action": "delete_selected", "_selected_action": [i.pk for i in images[:2]]}

    with CaptureQueriesContext(connection) as queries:
        confirm = admin_client.post(IMAGE_CHANGELIST, selected)
        admin_client.post(IMAGE_CHANGELIST, {**selected, "post": "yes"})

    assert confirm.status_code == 200
    assert list(FruitImage.objects.values_list("pk", flat=True)) == [images[2].pk]
    assert selected_blob_columns(queries.captured_queries) == set()


def test_an_empty_catalog_number_is_refused_when_no_number_is_left(admin_client, fruit_factory):
    fruit_factory(name="Last", catalog_number=2_147_483_647)

    response = admin_client.post(FRUIT_ADD, fruit_form_data(name="Topaz"))

    assert response.status_code == 200
    assert "No free catalog number is left; give one." in form_errors(response)
    assert Fruit.objects.count() == 1


def test_the_image_inline_takes_alt_text_and_licence_with_the_upload(admin_client, fruit_factory):
    fruit = fruit_factory(name="Topaz", catalog_number=5)
    data = fruit_form_data(name="Topaz", catalog_number=5, uploads=[png_upload()])
    data |= {"images-0-alt_text": "A Topaz", "images-0-license": "CC0-1.0"}
    response = admin_client.post(fruit_change_url(fruit), data)
    assert response.status_code == 302, form_errors(response)
    image = FruitImage.objects.get()
    assert (image.alt_text, image.role, image.license) == ("A Topaz", "fruit", "CC0-1.0")


def test_uploading_bytes_the_fruit_already_has_is_a_form_error(
    admin_client, fruit_factory, add_image
):
    fruit = fruit_factory(name="Topaz", catalog_number=5)
    stored = add_image(fruit, make_object_png())
    data = fruit_form_data(
        name="Topaz",
        catalog_number=5,
        existing_images=[(stored, False)],
        uploads=[png_upload(make_object_png())],
    )
    response = admin_client.post(fruit_change_url(fruit), data)
    assert response.status_code == 200
    assert f"This image is already stored as image {stored.pk}." in form_errors(response)
    assert FruitImage.objects.count() == 1


def test_the_image_list_finds_images_without_alt_text_or_licence(
    admin_client, fruit_factory, add_image
):
    fruit = fruit_factory(name="Topaz")
    described = add_image(fruit, make_object_png(size=(120, 100)))
    FruitImage.objects.filter(pk=described.pk).update(alt_text="A Topaz", license="CC0-1.0")
    bare = add_image(fruit, make_object_png(size=(130, 100)))

    def listed(params) -> set[int]:
        page = admin_client.get(IMAGE_CHANGELIST, params).text
        return {int(pk) for pk in re.findall(r'name="_selected_action" value="(\d+)"', page)}

    assert listed({"missing": "alt_text"}) == {bare.pk}
    assert listed({"missing": "license"}) == {bare.pk}
    assert listed({}) == {bare.pk, described.pk}


def test_the_image_page_edits_creator_and_source(admin_client, fruit_factory, add_image):
    image = add_image(fruit_factory(name="Topaz"))
    url = reverse("admin:catalog_fruitimage_change", args=[image.pk])
    response = admin_client.post(
        url,
        {
            "fruit": image.fruit_id,
            "alt_text": "",
            "role": "tree",
            "creator": "Eva Obst",
            "source": "Archive 12",
            "license": "public-domain",
        },
    )
    assert response.status_code == 302, form_errors(response)
    image.refresh_from_db()
    assert (image.creator, image.source, image.role, image.license) == (
        "Eva Obst",
        "Archive 12",
        "tree",
        "public-domain",
    )


# --- import, export, several images at once --------------------------------------------------


def csv_upload(text: str, name="fruits.csv"):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, text.encode(), content_type="text/csv")


IMPORT_URL = reverse("admin:catalog_fruit_import")


def test_the_import_page_previews_every_row_and_imports_on_confirmation(
    admin_client, fruit_factory
):
    fruit_factory(name="Topaz", catalog_number=9)
    assert 'href="/admin/catalog/fruit/import/"' in admin_client.get(FRUIT_CHANGELIST).text
    preview = admin_client.post(
        IMPORT_URL,
        {"file": csv_upload("catalog_number,name,type\n9,Topaz,apple\n10,Rubinola,apple\n")},
    )
    assert preview.status_code == 200
    text = preview.text
    assert "1 new, 0 changed, 1 unchanged." in text
    assert '<tr class="import-new"><td>3</td><td>10</td><td>Rubinola</td>' in text
    assert '<tr class="import-unchanged"><td>2</td><td>9</td><td>Topaz</td>' in text
    assert Fruit.objects.count() == 1  # nothing stored before the confirmation
    token = re.search(r'name="token" value="([0-9a-f]+)"', text).group(1)
    done = admin_client.post(IMPORT_URL, {"token": token, "_confirm": "1"})
    assert done.status_code == 302
    assert sorted(Fruit.objects.values_list("name", flat=True)) == ["Rubinola", "Topaz"]
    # The kept file is used up: confirming again asks for it again.
    again = admin_client.post(IMPORT_URL, {"token": token, "_confirm": "1"}, follow=True)
    assert "choose it again" in again.text and Fruit.objects.count() == 2


def test_a_file_with_errors_shows_them_and_offers_no_confirmation(admin_client):
    preview = admin_client.post(
        IMPORT_URL, {"file": csv_upload("catalog_number,name,type\n1,Topaz,appel\n")}
    )
    assert "1 error: nothing can be imported." in preview.text
    assert "type: &quot;appel&quot; is not a valid choice" in preview.text
    assert 'name="_confirm"' not in preview.text
    unknown = admin_client.post(IMPORT_URL, {"file": csv_upload("colour\nred\n")})
    assert "Row 1, colour: Unknown column &quot;colour&quot;" in unknown.text
    assert not Fruit.objects.exists()


def test_the_import_page_needs_add_and_change(client, django_user_model):
    user = django_user_model.objects.create_user(
        "viewer", password="viewer-pass-123", is_staff=True
    )
    client.force_login(user)
    assert client.get(IMPORT_URL).status_code == 403


def test_the_export_action_downloads_the_selected_fruits_as_csv(admin_client, fruit_factory):
    chosen = fruit_factory(name="Topaz", catalog_number=9, synonyms=["Topas"])
    fruit_factory(name="Rubinola", catalog_number=10)
    response = admin_client.post(
        FRUIT_CHANGELIST, {"action": "export_csv", "_selected_action": [chosen.pk]}
    )
    assert response["Content-Disposition"] == 'attachment; filename="fruits.csv"'
    lines = b"".join(response.streaming_content).decode().splitlines()
    # The characteristics' `char:<code>` columns follow (identification/tests/test_columns.py).
    assert lines[0].startswith("catalog_number,name,type,synonyms,image_count,url,updated_at,")
    assert lines[1].startswith(f"9,Topaz,apple,Topas,0,http://testserver/fruits/{chosen.pk}/,")
    assert len(lines) == 2


def test_the_change_page_takes_several_images_at_once(admin_client, fruit_factory, add_image):
    fruit = fruit_factory(name="Topaz", catalog_number=5)
    stored = add_image(fruit, make_object_png())
    data = fruit_form_data(name="Topaz", catalog_number=5, existing_images=[(stored, False)])
    data["more_images"] = [
        png_upload(make_object_png(size=(130, 100)), name="a.png"),
        png_upload(make_object_png(size=(140, 100)), name="b.png"),
        png_upload(make_object_png(), name="again.png"),  # the fruit has these bytes
    ]
    response = admin_client.post(fruit_change_url(fruit), data, follow=True)
    assert response.status_code == 200, form_errors(response)
    assert FruitImage.objects.filter(fruit=fruit).count() == 3
    assert "Skipped 1 file(s) the fruit already had: again.png." in response.text


def test_a_bad_file_among_several_is_a_form_error_and_none_is_stored(admin_client, fruit_factory):
    fruit = fruit_factory(name="Topaz", catalog_number=5)
    data = fruit_form_data(name="Topaz", catalog_number=5)
    data["more_images"] = [
        png_upload(make_object_png(), name="good.png"),
        png_upload(b"not an image", name="bad.png"),
    ]
    response = admin_client.post(fruit_change_url(fruit), data)
    assert response.status_code == 200
    assert "bad.png:" in form_errors(response)
    assert not FruitImage.objects.exists()


def test_the_change_page_edits_relations_checked_as_the_api_checks_them(
    admin_client, fruit_factory
):
    jonagold = fruit_factory(name="Jonagold", catalog_number=1)
    golden = fruit_factory(name="Golden Delicious", catalog_number=2)
    data = fruit_form_data(name="Jonagold", catalog_number=1)
    data |= management_form("relations", total=2, initial=0)
    data |= {
        "relations-0-kind": "mother",
        "relations-0-other": golden.pk,
        "relations-1-kind": "father",
        "relations-1-name": "Jonathan",
        "relations-1-note": "crossed 1943",
    }
    response = admin_client.post(fruit_change_url(jonagold), data)
    assert response.status_code == 302, form_errors(response)
    assert list(jonagold.relations.values_list("kind", "other_id", "name", "note")) == [
        ("mother", golden.pk, "Golden Delicious", ""),
        ("father", None, "Jonathan", "crossed 1943"),
    ]
    # Golden Delicious a child of Jonagold: a loop, refused as on the API.
    data = fruit_form_data(name="Golden Delicious", catalog_number=2)
    data |= management_form("relations", total=1, initial=0)
    data |= {"relations-0-kind": "seedling_of", "relations-0-other": jonagold.pk}
    response = admin_client.post(fruit_change_url(golden), data)
    assert response.status_code == 200
    assert "parentage loop" in form_errors(response)
    assert not golden.relations.exists()
