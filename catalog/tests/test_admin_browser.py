"""The fruit admin in a real browser: log in, list, upload through the inline, see the preview."""

import shutil

import pytest

from catalog.models import FruitImage
from core.testing.browser import log_in_to_admin as log_in
from core.testing.media import make_object_png

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not shutil.which("chromium"), reason="Chromium is not installed"),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def page(admin_page):
    return admin_page


def test_curator_uploads_an_image_through_the_inline_and_sees_its_thumbnail(
    page, live_server, admin_user, fruit_factory
):
    fruit = fruit_factory(name="Schöner aus Boskoop", synonyms=["Boskoop", "Belle de Boskoop"])
    log_in(page, live_server, admin_user)

    page.goto(f"{live_server.url}/admin/catalog/fruit/?q=schoner")
    assert page.locator("#result_list tbody tr").count() == 1
    assert "Boskoop, Belle de Boskoop" in page.locator("#result_list").inner_text()

    page.click("#result_list a:text('Schöner aus Boskoop')")
    page.wait_for_selector("#images-group")
    page.set_input_files(
        "input[name='images-0-upload']",
        files=[
            {
                "name": "boskoop.png",
                "mimeType": "image/png",
                "buffer": make_object_png(size=(400, 300), box=(100, 60, 259, 209)),
            }
        ],
    )
    page.click("input[name='_continue']")
    page.wait_for_selector(".messagelist .success")

    image = FruitImage.objects.get(fruit=fruit)
    assert image.has_thumbnail
    preview = page.locator(f"#images-group img[src='{image.get_thumbnail_url()}']")
    preview.scroll_into_view_if_needed()
    preview.evaluate("img => img.decode()")  # lazy images load once near the viewport
    assert preview.evaluate("img => img.naturalWidth") == 170  # the 160 px crop + 2 x 5 px pad

    page.goto(f"{live_server.url}/admin/catalog/fruit/")
    thumbnail = page.locator("#result_list img.catalog-thumb").first
    thumbnail.evaluate("img => img.decode()")
    assert thumbnail.evaluate("img => img.naturalWidth") > 0


def test_a_bad_upload_shows_a_form_error_in_the_browser(
    page, live_server, admin_user, fruit_factory
):
    fruit = fruit_factory(name="Conference")
    log_in(page, live_server, admin_user)

    page.goto(f"{live_server.url}/admin/catalog/fruit/{fruit.pk}/change/")
    page.set_input_files(
        "input[name='images-0-upload']",
        files=[{"name": "x.png", "mimeType": "image/png", "buffer": b"<svg></svg>"}],
    )
    page.click("input[name='_continue']")
    page.wait_for_selector(".errornote")

    assert page.locator("#images-group .errorlist").count() == 1
    assert not FruitImage.objects.exists()
