"""Fixtures of the cross-app tests (the project's own are in the root conftest.py)."""

import pytest

from fruitcatalog.tests import stored
from fruitcatalog.tests.wsgi_client import Spy


@pytest.fixture
def byte_paths(db):
    """One path of each kind of stored bytes, each with bytes of its own."""
    return stored.byte_paths()


@pytest.fixture(
    params=[(0, False), (3600, False), (0, True), (3600, True)],
    ids=["no-hsts", "hsts", "proxy", "hsts-proxy"],
)
def security_settings(request, settings):
    """HSTS off or on, behind a proxy or not, as `(hsts_seconds, proxy)`, the settings applied.

    What a front's headers and scheme follow; the proxy as `DJANGO_BEHIND_PROXY=1` sets it.
    """
    hsts, proxy = request.param
    settings.SECURE_HSTS_SECONDS = hsts
    if proxy:
        settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
        settings.USE_X_FORWARDED_HOST = True
    return request.param


@pytest.fixture
def django_app():
    """Django's application behind a front under test, counting what the front handed on."""
    return Spy()
