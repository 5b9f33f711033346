"""Nothing the service serves makes a browser reach another origin: no page, no static asset.

Every URL a page or asset names where a browser fetches or follows it (an attribute or a
script's `src`/`href`, CSS `url()` and `@import`, a script's `import`) is on the service's own
origin, except the few listed in `ALLOWED`, each with why it is no request of the page's.
Text that merely mentions a URL (JSON-LD's `@context`, a licence in structured data) is data
and not looked at. What the bundles build at run time is watched in a real browser
(`test_docs_browser.py`).
"""

import re
from urllib.parse import urlsplit

import pytest
from django.contrib.staticfiles import finders
from django.template.loader import render_to_string

from catalog.models import FruitImage
from core.testing.media import make_object_png
from identification.models import Characteristic
from publications.models import Publication
from publications.services import publication_link_fruit

pytestmark = pytest.mark.django_db

HOST = "testserver"  # the test client's host: the service's own origin
REFERENCE = re.compile(
    r"""(?ix)
    (?:
        (?<![\w-])(?:src|srcset|href|action|formaction|poster|data)\s*[:=]\s*["'`]?
      | (?<![\w-])url\(\s*["']?
      | @import\s+["']
      | (?<![\w.$])import\s*\(?\s*["'`]
      | (?<![\w.$])from\s+["'`]
    )
    \s*((?:https?:)?//[^\s"'`)<>\\]+)
    """
)
# URL prefixes on other origins that may be named, and why no page requests them.
ALLOWED = {
    "https://creativecommons.org/": "an image's licence, a link in its credit line",
    "https://www.django-rest-framework.org/": "the browsable API's brand, a link",
    "https://redocly.com/redoc/": "ReDoc's credit in its menu, a link",
    "https://cdn.redoc.ly/redoc/logo-mini.svg": (
        "the logo of ReDoc's credit: the ReDoc page leaves images of other origins without a "
        "source (core/templates/core/redoc.html), so it is never requested"
    ),
    "http://xregexp.com/api/": "an example in a comment of the admin's XRegExp",
    "http://www.google.com/": "an example in a comment of the admin's XRegExp",
}
# What collectstatic skips by default.
IGNORED_STATIC = ["CVS", ".*", "*~"]
TEXT_SUFFIXES = (".js", ".mjs", ".css", ".html", ".svg", ".json", ".map", ".txt", ".xml")


def foreign_references(text: str) -> list[str]:
    """The URLs `text` names on another origin, allowed ones left out."""
    found = []
    for match in REFERENCE.finditer(text):
        url = match.group(1)
        if urlsplit(url).hostname == HOST:
            continue
        if not any(url.startswith(prefix) for prefix in ALLOWED):
            found.append(url)
    return found


def allowances_used(text: str) -> set[str]:
    return {
        prefix
        for match in REFERENCE.finditer(text)
        for prefix in ALLOWED
        if match.group(1).startswith(prefix)
    }


def collected_static_files():
    """(path, text) of every static text file collectstatic would collect: the first found."""
    seen = set()
    for finder in finders.get_finders():
        for path, storage in finder.list(IGNORED_STATIC):
            if path in seen:
                continue
            seen.add(path)
            if path.endswith(TEXT_SUFFIXES):
                with storage.open(path) as file:
                    yield path, file.read().decode("utf-8")


@pytest.fixture
def site(fruit_factory, admin_client):
    """A fruit with a credited image and another to compare it with, a publication with a
    cover describing it; an admin's client."""
    fruit = fruit_factory(name="Boskoop", type="apple")
    other = fruit_factory(name="Gravensteiner", type="apple")
    FruitImage.objects.create(
        fruit=fruit, data=make_object_png(), creator="A. Gardener", license="CC-BY-4.0"
    )
    publication = Publication.objects.create(
        title="Deutschlands Obstsorten", year=1905, cover_data=make_object_png(size=(130, 100))
    )
    publication_link_fruit(publication=publication, fruit=fruit)
    assert Characteristic.objects.of_type("apple").exists()  # /identify/ asks its questions
    return {
        "client": admin_client,
        "pages": [
            "/",
            f"/fruits/{fruit.pk}/",
            "/identify/",
            "/identify/?type=apple",
            f"/compare/?fruits={fruit.pk},{other.pk}",
            "/publications/",
            f"/publications/{publication.pk}/",
            "/admin/",
            "/admin/catalog/fruit/",
            f"/admin/catalog/fruit/{fruit.pk}/change/",
            "/api/v1/docs",
            "/api/v1/redoc",
            "/api/v1",
            "/api/v1/fruits",
        ],
    }


def test_no_page_names_another_origin(site, client):
    pages = {"/admin/login/": client.get("/admin/login/")}
    for path in site["pages"]:
        pages[path] = site["client"].get(path, HTTP_ACCEPT="text/html")
    used = set()
    for path, response in pages.items():
        assert response.status_code == 200, path
        assert response["Content-Type"].startswith("text/html"), path
        html = response.content.decode()
        assert foreign_references(html) == [], path
        used |= allowances_used(html)
    assert {"https://creativecommons.org/", "https://www.django-rest-framework.org/"} <= used


def test_no_static_file_names_another_origin():
    found = {}
    used = set()
    for path, text in collected_static_files():
        if foreign := foreign_references(text):
            found[path] = foreign
        used |= allowances_used(text)
    assert found == {}
    # The list stays short: an allowance no file needs any more goes.
    page_links = {"https://creativecommons.org/", "https://www.django-rest-framework.org/"}
    assert used | page_links == set(ALLOWED)


def test_the_check_finds_what_a_browser_would_fetch_from_elsewhere():
    # drf-spectacular's own ReDoc page, which the service's overrides, loads Google's fonts.
    page = render_to_string("drf_spectacular/redoc.html", {"schema_url": "/api/v1/schema"})
    assert any(url.startswith("https://fonts.googleapis.com/") for url in foreign_references(page))
    assert foreign_references(
        """<img srcset="//cdn.example/a.png 2x"><style>@import "https://x.example/a.css";
        body { background: url( 'https://x.example/b.png' ) }</style>
        <script>import("https://esm.example/c.js"); e.src="http://x.example/d.js"</script>"""
    ) == [
        "//cdn.example/a.png",
        "https://x.example/a.css",
        "https://x.example/b.png",
        "https://esm.example/c.js",
        "http://x.example/d.js",
    ]
