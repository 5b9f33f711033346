"""The API's documentation pages in a real browser: they render, and nothing they load or show
comes from another origin (no request leaves the service, no console error from a blocked one).

Swagger UI asks validator.swagger.io for a badge only for a schema on a public host, so the
pages are opened under a name of their own (`docs.test`, mapped to the live server), not
`localhost`. Skipped when Chromium is missing, except in CI.
"""

import pytest

from core.testing.browser import CHROMIUM, CHROMIUM_ARGS, DESKTOP, PageLog, require_tools

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

HOST = "docs.test"


@pytest.fixture
def docs_page(live_server, settings):
    """A browser page on the live server under `HOST`, with what goes wrong in it."""
    require_tools()
    from playwright.sync_api import sync_playwright

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, HOST]
    port = live_server.url.rsplit(":", 1)[1]
    origin = f"http://{HOST}:{port}"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's loop in this thread
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM,
                args=[
                    *CHROMIUM_ARGS,
                    f"--host-resolver-rules=MAP {HOST} 127.0.0.1",
                    # As trustworthy as HTTPS in production: its headers (COOP) apply.
                    f"--unsafely-treat-insecure-origin-as-secure={origin}",
                ],
            )
            context = browser.new_context(viewport=DESKTOP)
            context.set_default_timeout(15_000)
            log = PageLog(origin=origin)
            log.watch(context)
            page = context.new_page()
            page.origin = origin
            page.log = log
            yield page
            browser.close()


def test_swagger_ui_renders_from_the_service_alone(docs_page):
    docs_page.goto(f"{docs_page.origin}/api/v1/docs")
    docs_page.get_by_text("List fruits").first.wait_for()
    docs_page.wait_for_load_state("networkidle")

    assert docs_page.locator("img[alt='Online validator badge']").count() == 0
    docs_page.log.assert_clean()


def test_redoc_renders_from_the_service_alone(docs_page):
    docs_page.goto(f"{docs_page.origin}/api/v1/redoc")
    docs_page.get_by_role("heading", name="Fruit Catalog API").first.wait_for()
    docs_page.get_by_text("API docs by Redocly").wait_for()  # the menu's credit, with its logo
    docs_page.wait_for_load_state("networkidle")

    assert docs_page.locator("img[alt='redocly logo']").is_hidden()

    docs_page.log.assert_clean()
