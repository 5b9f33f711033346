"""Debian's Chromium driven by Playwright: launch, what went wrong on a page, axe-core.

The public site's browser tests and `docs/screenshots.py` share these. Playwright never
downloads a browser here: it drives the system's `chromium` through `executable_path`, and
axe-core comes from `node_modules/` (`npm ci`, as `make test` runs it), never from a CDN.
"""

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
AXE_SCRIPT = ROOT / "node_modules" / "axe-core" / "axe.min.js"
LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
LIGHTHOUSE_CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}  # a current mid-size phone in CSS pixels
BLOCKING_IMPACTS = ("serious", "critical")  # axe impacts that fail a test; the others are reported


def missing_tools(*, axe: bool = False, lighthouse: bool = False) -> str:
    """Why the browser tests (`axe`: the accessibility tests; `lighthouse`: the audits) cannot
    run here, or "" if they can."""
    if not Path(CHROMIUM).exists():
        return "Chromium is not installed (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (pip install -r requirements-dev.txt)"
    for wanted, path in ((axe, AXE_SCRIPT), (lighthouse, LIGHTHOUSE)):
        if wanted and not path.exists():
            return (
                f"{path.relative_to(ROOT)} is missing: `make test` runs `npm ci` when npm "
                "is installed"
            )
    return ""


def require_tools(*, axe: bool = False, lighthouse: bool = False) -> None:
    """Skip when Chromium, Playwright (or axe-core, Lighthouse) is missing; in CI (`CI` set),
    fail instead."""
    import pytest

    reason = missing_tools(axe=axe, lighthouse=lighthouse)
    if reason and os.environ.get("CI"):
        pytest.fail(f"CI must run the browser tests: {reason}", pytrace=False)
    if reason:
        pytest.skip(reason)


def launch(playwright):
    """The system Chromium, headless."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


@dataclass
class PageLog:
    """Console errors, uncaught exceptions and requests to another origin, across a context."""

    origin: str  # scheme://host:port of the site under test
    problems: list[str] = field(default_factory=list)
    expected_statuses: dict[str, int] = field(default_factory=dict)

    def watch(self, context) -> None:
        """Record what goes wrong in every page of `context`."""
        context.on("console", self._on_console)
        context.on("weberror", lambda error: self.problems.append(f"uncaught: {error.error}"))
        context.on("request", self._on_request)

    def expect_status(self, url: str, status: int) -> None:
        """`url` is meant to answer `status` (a 404 page): Chromium's console line about it is
        no problem."""
        self.expected_statuses[url] = status

    def clear(self) -> None:
        self.problems.clear()
        self.expected_statuses.clear()

    def assert_clean(self) -> None:
        """Fail listing the problems recorded so far; they are reported once, then forgotten."""
        problems, self.problems = self.problems, []
        assert not problems, "\n".join(problems)

    def _on_console(self, message) -> None:
        if message.type != "error":
            return
        url = message.location.get("url", "")
        status = self.expected_statuses.get(url)
        if status and f"status of {status}" in message.text:
            return
        page = message.page.url if message.page else "?"
        self.problems.append(f"console error on {page}: {message.text} ({url})")

    def _on_request(self, request) -> None:
        # data:, blob: and the browser's own chrome:// pages (its PDF viewer) are no network.
        if urlsplit(request.url).scheme not in ("http", "https", "ws", "wss"):
            return
        if origin_of(request.url) != self.origin:
            self.problems.append(f"request to another origin: {request.url}")


def origin_of(url: str) -> str:
    """scheme://host[:port] of `url`."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def image_sizes(page, selector: str = "img") -> list[list[int]]:
    """[naturalWidth, naturalHeight] of every image matching `selector` once it has loaded
    ([0, 0] for one that failed), lazy ones scrolled into view first."""
    return page.eval_on_selector_all(
        selector,
        """async images => {
            const sizes = [];
            for (const image of images) {
                image.scrollIntoView({block: "center"});
                try {
                    await image.decode();
                    sizes.push([image.naturalWidth, image.naturalHeight]);
                } catch {
                    sizes.push([0, 0]);
                }
            }
            return sizes;
        }""",
    )


def axe_violations(page, impacts=BLOCKING_IMPACTS) -> list[str]:
    """axe-core's violations of these impacts on the current page, one line per element.

    The script is added from `node_modules/`; the page's own Content-Security-Policy forbids
    inline scripts, so the page's context must be made with `bypass_csp=True`.
    """
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=AXE_SCRIPT)
    results = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
    lines = []
    for violation in results["violations"]:
        if violation["impact"] not in impacts:
            continue
        for node in violation["nodes"]:
            target = " ".join(str(part) for part in node["target"])
            lines.append(
                f"{violation['id']} ({violation['impact']}) at `{target}`: {violation['help']}"
                f" — {node.get('failureSummary', '').replace(chr(10), ' ')}"
            )
    return lines


# pytest-django's `admin_user` logs in with this password.
ADMIN_USER_PASSWORD = "password"  # noqa: S105


def log_in_to_admin(page, live_server, user, password: str = ADMIN_USER_PASSWORD):
    """Log `user` in through the admin login form."""
    page.goto(f"{live_server.url}/admin/login/?next=/admin/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    page.wait_for_selector("#site-name")


def lighthouse_scores(url: str, attempts: int = 4) -> dict[str, float]:
    """Lighthouse's four category scores (0 to 1) for `url`, run on the system Chromium.

    Lighthouse's default: a mid-range phone on a throttled network. A run that ends without
    scores (Chromium failing to start, a trace Lighthouse cannot read, such as its NO_NAVSTART
    on a busy machine, which struck twice in a row in one CI run) is tried again after a pause,
    up to `attempts` runs in all.
    """
    import json
    import subprocess
    import tempfile
    import time

    flags = " ".join(arg for arg in CHROMIUM_ARGS if arg != "--headless")
    problem = ""
    for attempt in range(attempts):
        if attempt:
            time.sleep(2 * attempt)
        with tempfile.NamedTemporaryFile(suffix=".json") as report:
            run = subprocess.run(
                [
                    str(LIGHTHOUSE),
                    url,
                    "--quiet",
                    f"--chrome-flags=--headless=new {flags}",
                    "--output=json",
                    f"--output-path={report.name}",
                    f"--only-categories={','.join(LIGHTHOUSE_CATEGORIES)}",
                ],
                env={**os.environ, "CHROME_PATH": CHROMIUM},
                capture_output=True,
                text=True,
                timeout=180,
            )
            result = json.loads(Path(report.name).read_text() or "{}")
        scores = {
            name: category["score"] for name, category in result.get("categories", {}).items()
        }
        if len(scores) == len(LIGHTHOUSE_CATEGORIES) and None not in scores.values():
            return scores
        problem = result.get("runtimeError") or run.stderr[-2000:] or scores
    raise AssertionError(f"Lighthouse gave no scores for {url}: {problem}")


def screenshot(page, file_name: str, viewport) -> None:
    """Keep the page's picture in `SCREENSHOTS_DIR` (the docs' screenshots), at the desktop
    width only; nothing when the variable is unset."""
    folder = os.environ.get("SCREENSHOTS_DIR")
    if folder and viewport == DESKTOP:
        page.screenshot(path=str(Path(folder) / file_name), full_page=True)


def assert_accessible_within(page, viewport) -> None:
    """No serious or critical axe violation, and nothing wider than the window."""
    assert axe_violations(page) == []
    assert page.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
