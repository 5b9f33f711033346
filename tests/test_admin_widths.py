"""Every admin page fits the laptops curators use (1280 to 1440 px) with the sidebar open."""

import shutil

import pytest

from catalog.models import FruitImage
from core.testing.browser import log_in_to_admin
from core.testing.media import make_object_png, make_pdf_bytes
from identification.tests.factories import make_characteristic
from publications.models import PublicationFruitImage
from publications.services import publication_fruit_set_description, publication_link_fruit
from publications.tests.factories import PublicationFactory

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not shutil.which("chromium"), reason="Chromium is not installed"),
    pytest.mark.django_db(transaction=True),
]

# The page's width, plus what a changelist's table hides in its own scrolling box, plus how far
# an inline's table sticks out of its module (its last columns past the module's header).
WIDTH_SCRIPT = """() => {
    const results = document.querySelector('#changelist .results');
    const inner = results ? results.scrollWidth - results.clientWidth : 0;
    const outside = [...document.querySelectorAll('.inline-group')].map(group => {
        const table = group.querySelector('table');
        if (!table) return 0;
        return table.getBoundingClientRect().right - group.getBoundingClientRect().right;
    });
    return document.documentElement.scrollWidth + Math.max(0, inner, ...outside);
}"""


@pytest.mark.parametrize("width", [1280, 1440])
def test_every_admin_page_fits_a_laptop_with_the_sidebar_open(
    admin_page, live_server, admin_user, fruit_factory, width
):
    fruit = fruit_factory(name="Vereinsdechantsbirne", synonyms=["Doyenné du Comice", "Comice"])
    for _ in range(2):
        FruitImage.objects.create(fruit=fruit, data=make_object_png())
    publication = PublicationFactory(cover_data=make_object_png(size=(100, 140)))
    link, _ = publication_link_fruit(publication=publication, fruit=fruit)
    publication_fruit_set_description(link=link, data=make_pdf_bytes())
    PublicationFruitImage.objects.create(link=link, data=make_object_png())
    # The live server's database is flushed between tests: the migration's characteristics may
    # be gone, so the page's own one is made here.
    size = make_characteristic("t_width", types=("apple", "pear"), reference="UPOV TG/14/10")
    log_in_to_admin(admin_page, live_server, admin_user)
    admin_page.set_viewport_size({"width": width, "height": 900})

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
        "/admin/identification/characteristic/",
        f"/admin/identification/characteristic/{size.pk}/change/",
    ]
    too_wide = {}
    for path in paths:
        admin_page.goto(f"{live_server.url}{path}")
        if path != "/admin/":  # the index has no sidebar; every other page has it open
            assert admin_page.locator("#nav-sidebar").is_visible(), path
        scroll = admin_page.evaluate(WIDTH_SCRIPT)
        if scroll > width:
            too_wide[path] = scroll
    assert not too_wide, too_wide
