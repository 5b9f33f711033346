"""The fruit admin in a real browser: log in, list, upload through the inline, see the preview."""

import shutil

import pytest
from django.db import connections

from catalog.models import FruitImage
from fruitcatalog.testing.browser import CHROMIUM, CHROMIUM_ARGS
from fruitcatalog.testing.media import make_object_png

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not shutil.which("chromium"), reason="Chromium is not installed"),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def page(monkeypatch):
    """A Chromium page (the system browser: Playwright never downloads one here)."""
    sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
    # Playwright's sync API runs an event loop in this thread; the ORM calls the tests make
    # between browser steps are still plain synchronous code.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(15_000)
        yield page
        browser.close()
        # ORM calls made while Playwright's event loop runs get a connection of their own (the
        # connection handler is context-local); close it, or the test database cannot be dropped.
        connections.close_all()


def log_in(page, live_server, user):
    """Log `user` in through the admin login form."""
    page.goto(f"{live_server.url}/admin/login/?next=/admin/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", "password")
    page.click("input[type=submit]")
    page.wait_for_selector("#site-name")


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


@pytest.mark.parametrize("width", [1280, 1440])
def test_every_admin_page_fits_a_laptop_with_the_sidebar_open(
    page, live_server, admin_user, fruit_factory, width
):
    from fruitcatalog.testing.media import make_pdf_bytes
    from publications.models import PublicationFruitImage
    from publications.services import publication_fruit_set_description, publication_link_fruit
    from publications.tests.factories import PublicationFactory

    fruit = fruit_factory(name="Vereinsdechantsbirne", synonyms=["Doyenné du Comice", "Comice"])
    for _ in range(2):
        FruitImage.objects.create(fruit=fruit, data=make_object_png())
    publication = PublicationFactory(cover_data=make_object_png(size=(100, 140)))
    link, _ = publication_link_fruit(publication=publication, fruit=fruit)
    publication_fruit_set_description(link=link, data=make_pdf_bytes())
    PublicationFruitImage.objects.create(link=link, data=make_object_png())
    log_in(page, live_server, admin_user)
    page.set_viewport_size({"width": width, "height": 900})

    paths = [
        "/admin/",
        "/admin/catalog/fruit/",
        f"/admin/catalog/fruit/{fruit.pk}/change/",
        "/admin/catalog/fruit/add/",
        "/admin/catalog/fruitimage/",
        "/admin/publications/publication/",
        f"/admin/publications/publication/{publication.pk}/change/",
        f"/admin/publications/publicationfruit/{link.pk}/change/",
        "/admin/publications/publicationfruitimage/",
    ]
    too_wide = {}
    for path in paths:
        page.goto(f"{live_server.url}{path}")
        if path != "/admin/":  # the index has no sidebar; every other page has it open
            assert page.locator("#nav-sidebar").is_visible(), path
        # The page, and a changelist's table in its own scrolling box, show every column.
        scroll = page.evaluate(
            """() => {
                const results = document.querySelector('#changelist .results');
                const inner = results ? results.scrollWidth - results.clientWidth : 0;
                return document.documentElement.scrollWidth + Math.max(0, inner);
            }"""
        )
        if scroll > width:
            too_wide[path] = scroll
    assert not too_wide, too_wide
