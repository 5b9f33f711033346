"""The README's screenshots of the public site, taken with Debian's Chromium from a running server.

    .venv/bin/python docs/screenshots.py [URL]        # URL defaults to http://127.0.0.1:8000

The server should hold the demo data (`make demo`, then `make run`). Writes
docs/screenshots/grid-desktop.png (1280 px wide), grid-phone.png (390 px), fruit.png,
publication.png, identify-phone.png (a described apple: the next questions first, the
candidates a tap away; 390 px), compare.png and compare-phone.png (scrolled to the last
variety, 390 px), and the German pages on a phone (390 px): grid-phone-de.png, fruit-phone-de.png
and identify-phone-de.png.
Refuses to write anything while a card shows the "No photo yet" placeholder or an image fails
to load, and reports console errors and requests to other origins it saw.
"""

import argparse
import shutil
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.testing.browser import (  # noqa: E402 (the project root is on the path now)
    DESKTOP,
    PHONE,
    PageLog,
    image_sizes,
    launch,
    missing_tools,
    origin_of,
)

OUT = ROOT / "docs" / "screenshots"
FRUIT = "Schöner aus Boskoop"  # the demo fruit with a publication, a PDF and a plate


class NotReady(Exception):
    """The server cannot be shown as it is (no demo data, placeholders, broken images)."""


def settle(page) -> None:
    """Every image loaded (lazy ones too), the page scrolled back to its top."""
    broken = [size for size in image_sizes(page) if size[0] == 0]
    if broken:
        raise NotReady(f"{len(broken)} image(s) failed to load on {page.url}")
    page.evaluate('() => window.scrollTo({top: 0, left: 0, behavior: "instant"})')


def open_grid(page, base_url: str) -> None:
    page.goto(f"{base_url}/")
    cards = page.locator("#results li.card")
    if cards.count() == 0:
        raise NotReady("the grid shows no fruit: load the demo data first (make demo)")
    placeholders = page.locator("#results .card__image--none").count()
    if placeholders:
        raise NotReady(f"{placeholders} card(s) show the 'No photo yet' placeholder")
    settle(page)


def take(browser, base_url: str, log: PageLog, out: Path) -> list[Path]:
    """The screenshots, written to `out`; returns their paths."""
    written = []

    def shoot(page, name: str, *, full_page: bool = False) -> None:
        path = out / name
        page.screenshot(path=str(path), full_page=full_page)
        written.append(path)

    desktop = browser.new_context(viewport=DESKTOP)
    phone = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    for context in (desktop, phone):
        log.watch(context)
        context.set_default_timeout(15_000)
    page = desktop.new_page()

    open_grid(page, base_url)
    shoot(page, "grid-desktop.png")

    phone_page = phone.new_page()
    open_grid(phone_page, base_url)
    shoot(phone_page, "grid-phone.png")

    page.goto(f"{base_url}/?{urlencode({'search': FRUIT})}")
    with page.expect_navigation():
        page.locator("#results li.card a.card__link").first.click()
    settle(page)
    shoot(page, "fruit.png", full_page=True)

    page.goto(f"{base_url}/publications/")
    with page.expect_navigation():
        page.locator(".publications h2 a").first.click()
    settle(page)
    shoot(page, "publication.png", full_page=True)

    # A big, russeted apple with a brownish-red flush: what a Boskoop tree in a garden shows.
    answers = {"type": "apple", "fruit_size": "7,9", "russet_amount": "7", "over_colour_hue": "5"}
    phone_page.goto(f"{base_url}/identify/?{urlencode(answers)}")
    if phone_page.locator("ol.candidates .candidate").count() == 0:
        raise NotReady("identify shows no candidate: load the demo data first (make demo)")
    settle(phone_page)
    shoot(phone_page, "identify-phone.png")

    compare = phone_page.locator("a", has_text="compare the first three").get_attribute("href")
    page.goto(f"{base_url}{compare}")
    settle(page)
    shoot(page, "compare.png", full_page=True)

    phone_page.goto(f"{base_url}{compare}")
    settle(phone_page)
    # Scrolled to the last variety: the row labels stay in view.
    phone_page.eval_on_selector(".compare-scroll", "box => { box.scrollLeft = box.scrollWidth; }")
    shoot(phone_page, "compare-phone.png")

    # The German pages on a phone: the same site under /de/.
    open_grid(phone_page, f"{base_url}/de")
    shoot(phone_page, "grid-phone-de.png")

    phone_page.goto(f"{base_url}/de/?{urlencode({'search': FRUIT})}")
    with phone_page.expect_navigation():
        phone_page.locator("#results li.card a.card__link").first.click()
    settle(phone_page)
    shoot(phone_page, "fruit-phone-de.png")

    phone_page.goto(f"{base_url}/de/identify/?{urlencode(answers)}")
    settle(phone_page)
    shoot(phone_page, "identify-phone-de.png")

    desktop.close()
    phone.close()
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", nargs="?", default="http://127.0.0.1:8000", help="the live server")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write (%(default)s)")
    arguments = parser.parse_args()
    base_url, out = arguments.url.rstrip("/"), arguments.out.resolve()
    reason = missing_tools()
    if reason:
        print(f"Cannot take screenshots: {reason}", file=sys.stderr)
        return 2

    from playwright.sync_api import Error, sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    log = PageLog(origin=origin_of(base_url))
    # Taken into a scratch directory first: a failed run leaves the README's images as they were.
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as scratch:
        browser = launch(playwright)
        try:
            taken = take(browser, base_url, log, Path(scratch))
        except (NotReady, Error) as error:
            print(f"No screenshots taken from {base_url}: {error}", file=sys.stderr)
            return 1
        finally:
            browser.close()
        for path in taken:
            shutil.move(path, out / path.name)
            print(f"wrote {out / path.name}")
    for problem in log.problems:
        print(f"warning: {problem}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
