"""Shared fixtures: API clients per role, images, PDFs and rows (helpers live in test modules)."""

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import Group, User
from django.core.cache import cache
from django.utils import translation
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from catalog.models import FruitImage
from catalog.tests.factories import FruitFactory
from core.rest.curators import CURATORS_GROUP
from core.testing.media import make_object_png, make_pdf_bytes
from core.testing.queries import reading_no_bytes
from identification import values as identification_values


@pytest.fixture
def reads_no_bytes():
    """A context manager asserting that the block selects no byte column; yields the queries."""
    return reading_no_bytes


@pytest.fixture(autouse=True)
def fresh_cache():
    """Throttle and lockout counters live in the cache, identification's values in the process:
    every test starts with none (a rolled-back test can leave a version number to be reused)."""
    cache.clear()
    identification_values.forget()


@pytest.fixture(autouse=True)
def default_language():
    """Every test starts in the default language: a request leaves its own active in the
    thread (as a server's next request sets its own), and the next test calls code directly."""
    translation.activate(django_settings.LANGUAGE_CODE)
    yield
    translation.activate(django_settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """A cheap hasher: the role fixtures create users, and PBKDF2 costs half a second each."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def fruit_factory(db):
    """Create fruits: `fruit_factory(name=..., synonyms=[...])`."""
    return FruitFactory.create


@pytest.fixture
def add_image(db):
    """Store an image of a fruit through the model's save hook."""

    def add(fruit, data=None):
        return FruitImage.objects.create(fruit=fruit, data=data or make_object_png())

    return add


@pytest.fixture
def png_bytes():
    return make_object_png()


@pytest.fixture
def pdf_bytes():
    return make_pdf_bytes()


@pytest.fixture
def anon_client():
    return APIClient()


def _client_for(user) -> APIClient:
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    client.user = user
    return client


@pytest.fixture
def curator(db):
    user = User.objects.create_user("curator", password="curator-pass-123")
    user.groups.add(Group.objects.get(name=CURATORS_GROUP))
    return user


@pytest.fixture
def curator_client(curator):
    return _client_for(curator)


@pytest.fixture
def reader_client(db):
    """Authenticated, but without any permission."""
    return _client_for(User.objects.create_user("reader", password="reader-pass-123"))


@pytest.fixture
def staff_client(db):
    user = User.objects.create_user("staff", password="staff-pass-123", is_staff=True)
    user.groups.add(Group.objects.get(name=CURATORS_GROUP))
    return _client_for(user)


@pytest.fixture
def admin_page(monkeypatch):
    """A Chromium page for the admin's browser tests (the system browser; nothing downloaded)."""
    sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
    from django.db import connections

    from core.testing.browser import CHROMIUM, CHROMIUM_ARGS

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


@pytest.fixture
def work_on(monkeypatch):
    """`counts = work_on(data)`: how often `data` is then decoded for a thumbnail and hashed."""
    import hashlib

    from blobs import imaging

    counts = {"decoded": 0, "hashed": 0}
    watched = []
    decode, sha256 = imaging.inspect_and_thumbnail_sized, hashlib.sha256

    def counted_decode(data, *args, **kwargs):
        counts["decoded"] += bytes(data) in watched
        return decode(data, *args, **kwargs)

    def counted_sha256(data=b"", *args, **kwargs):
        counts["hashed"] += bytes(data) in watched
        return sha256(data, *args, **kwargs)

    monkeypatch.setattr(imaging, "inspect_and_thumbnail_sized", counted_decode)
    monkeypatch.setattr(hashlib, "sha256", counted_sha256)

    def watch(data: bytes) -> dict[str, int]:
        watched.append(data)
        return counts

    return watch
