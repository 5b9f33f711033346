"""The edge cache of deploy/nginx.conf, proved with Debian's nginx in front of the live server.

nginx runs the shipped config adapted to loopback as the benchmarks adapt it
(`core/testing/nginx.py`), its caches in a temporary folder, proxying to pytest-django's
live server (transactional tests: the server sees what the tests write). Skipped when nginx is
missing (`apt-get install nginx`), except in CI (`CI` set), where that fails.
"""

import http.client
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.test import Client
from PIL import Image

from catalog.models import FruitImage, FruitName
from catalog.tests.factories import FruitFactory
from core.testing import nginx as nginx_loopback
from core.testing.media import make_object_png

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

IMMUTABLE = "public, max-age=31536000, immutable"


@dataclass
class Answer:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    @property
    def cache(self) -> str | None:
        """nginx's X-Cache-Status: HIT, MISS, BYPASS..., or None when nothing was cacheable."""
        return self.headers.get("X-Cache-Status")

    def json(self):
        return json.loads(self.body)


@dataclass
class Edge:
    """nginx on 127.0.0.1:`port` with the shipped config; its byte cache in `cache_dir`."""

    port: int
    cache_dir: Path

    def request(self, method: str, path: str, body: bytes | None = None, **headers) -> Answer:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            return Answer(response.status, response.headers, response.read())
        finally:
            conn.close()

    def get(self, path: str, **headers) -> Answer:
        return self.request("GET", path, **headers)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def nginx_binary() -> str:
    binary = nginx_loopback.nginx_binary()
    if not binary:
        reason = "nginx is not installed (apt-get install nginx)"
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the edge cache's test: {reason}", pytrace=False)
        pytest.skip(reason)
    return binary


@pytest.fixture
def start_edge(nginx_binary, live_server):
    """Start nginx in front of the live server (or `upstream`); stopped after the test."""
    running = []

    def start(*, bytes_max_size: str = "", upstream: int | None = None) -> Edge:
        # Not pytest's tmp_path: nginx's workers run as www-data when the tests run as root.
        tmp = Path(tempfile.mkdtemp(prefix="edge-cache-"))
        tmp.chmod(0o755)
        port = free_port()
        upstream = upstream or urlsplit(live_server.url).port
        config = nginx_loopback.loopback_config(tmp, port, upstream, bytes_max_size=bytes_max_size)
        (tmp / "nginx.conf").write_text(config)
        log = (tmp / "nginx.out").open("wb")
        proc = subprocess.Popen(
            nginx_loopback.command(nginx_binary, tmp, tmp / "nginx.conf"),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: its workers stop with it
        )
        running.append((proc, log, tmp))
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                errors = (tmp / "error.log").read_text() if (tmp / "error.log").exists() else ""
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"nginx did not start: {errors[-2000:]}")
                time.sleep(0.05)
        return Edge(port, tmp / "cache-bytes")

    yield start
    for proc, log, tmp in running:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture
def edge(start_edge) -> Edge:
    return start_edge()


@pytest.fixture
def fruit():
    return FruitFactory(name="Schöner aus Boskoop")


@pytest.fixture
def curator(live_curator):
    return live_curator


@pytest.fixture
def curator_token(live_curator) -> str:
    return live_curator.token


def path_of(url: str) -> str:
    """The path and query of an absolute URL the app built."""
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}" if parts.query else parts.path


def noise_png(seed: int, side: int) -> bytes:
    """A PNG of random pixels: about 3 bytes a pixel, whatever the compressor does."""
    pixels = random.Random(seed).randbytes(side * side * 3)
    out = BytesIO()
    Image.frombytes("RGB", (side, side), pixels).save(out, "PNG", compress_level=1)
    return out.getvalue()


def disk_usage(folder: Path) -> int:
    """What `du -s` counts: the blocks of every file and directory under `folder`."""
    total = folder.lstat().st_blocks * 512
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            total += (Path(root) / name).lstat().st_blocks * 512
    return total


def test_a_versioned_thumbnail_is_a_miss_then_a_hit_with_the_same_bytes(edge, fruit):
    image = FruitImage.objects.create(fruit=fruit, data=make_object_png())
    url = image.get_thumbnail_url()

    first, second = edge.get(url), edge.get(url)

    assert (first.status, first.cache) == (200, "MISS")
    assert (second.status, second.cache) == (200, "HIT")
    assert first.body == second.body == bytes(image.thumbnail_data)
    assert second.headers["Cache-Control"] == IMMUTABLE
    assert second.headers["ETag"] == first.headers["ETag"]
    assert second.headers["Content-Type"] == "image/jpeg"
    # A browser's revalidation and a HEAD are answered from the cache too.
    revalidated = edge.get(url, **{"If-None-Match": first.headers["ETag"]})
    assert (revalidated.status, revalidated.cache, revalidated.body) == (304, "HIT", b"")
    head = edge.request("HEAD", url)
    assert (head.status, head.cache, head.body) == (200, "HIT", b"")


def test_a_replaced_image_is_served_at_once_by_its_new_url(edge, fruit, curator_token):
    old = FruitImage.objects.create(fruit=fruit, data=make_object_png(color=(220, 0, 0)))
    detail = f"/api/v1/fruits/{fruit.pk}"
    old_url = path_of(edge.get(detail).json()["thumbnail_url"])
    assert edge.get(old_url).cache == "MISS"
    assert edge.get(old_url).cache == "HIT"

    # A curator replaces the card image through nginx: uploads a new one, deletes the old one.
    auth = {"Authorization": f"Token {curator_token}"}
    new_png = make_object_png(color=(0, 0, 220))
    posted = edge.request(
        "POST", f"{detail}/images", new_png, **auth, **{"Content-Type": "image/png"}
    )
    assert posted.status == 201, posted.body
    deleted = edge.request("DELETE", f"{detail}/images/{old.pk}", **auth)
    assert deleted.status == 204, deleted.body

    new_url = path_of(edge.get(detail).json()["thumbnail_url"])
    assert new_url != old_url
    new = FruitImage.objects.get(fruit=fruit)
    served = edge.get(new_url)
    assert (served.status, served.cache) == (200, "MISS")
    assert served.body == bytes(new.thumbnail_data) != edge.get(old_url).body
    assert edge.get(new_url).cache == "HIT"
    # The bare path is the app's truth at once: the old image is gone.
    bare_old = old_url.partition("?")[0]
    assert edge.get(bare_old).status == 404


def test_requests_with_credentials_are_never_answered_from_the_cache(
    edge, fruit, curator, curator_token
):
    image = FruitImage.objects.create(fruit=fruit, data=make_object_png())
    url = image.get_thumbnail_url()
    edge.get(url)
    assert edge.get(url).cache == "HIT"
    browser = Client()
    browser.force_login(curator)
    session = browser.cookies["sessionid"].value

    for credentials in (
        {"Authorization": f"Token {curator_token}"},
        {"Cookie": f"sessionid={session}"},
    ):
        for _ in range(2):
            answer = edge.get(url, **credentials)
            assert (answer.status, answer.cache) == (200, "BYPASS"), credentials
            assert answer.body == bytes(image.thumbnail_data)


def test_the_bare_path_and_a_stale_version_are_never_hits(edge, fruit):
    image = FruitImage.objects.create(fruit=fruit, data=make_object_png())
    bare = image.get_thumbnail_url().partition("?")[0]

    for path in (bare, f"{bare}/", f"{bare}?v=0000000000000000"):
        for _ in range(3):
            answer = edge.get(path)
            assert answer.status == 200, path
            assert answer.headers["Cache-Control"] == "no-cache", path
            assert answer.cache != "HIT", path
            assert answer.body == bytes(image.thumbnail_data)


def test_a_revalidation_of_the_bare_path_reaches_the_app_and_is_a_304(edge, fruit):
    image = FruitImage.objects.create(fruit=fruit, data=make_object_png())
    bare = image.get_thumbnail_url().partition("?")[0]
    etag = edge.get(bare).headers["ETag"]

    for _ in range(2):
        answer = edge.get(bare, **{"If-None-Match": etag})
        assert (answer.status, answer.body) == (304, b"")
        assert answer.cache != "HIT"
        assert answer.headers["ETag"] == etag
    assert edge.get(bare, **{"If-None-Match": '"other"'}).status == 200


def test_the_cache_directory_stays_within_its_bound(start_edge, fruit):
    bound = 1024 * 1024
    edge = start_edge(bytes_max_size="1m")
    images = [
        FruitImage.objects.create(fruit=fruit, data=noise_png(seed, 320)) for seed in range(12)
    ]
    assert sum(image.size for image in images) > 3 * bound
    for image in images:  # each stored (a hit on its second request), 3.6 MB in all
        assert edge.get(image.get_data_url()).cache == "MISS"
        assert edge.get(image.get_data_url()).cache == "HIT"

    # nginx's cache manager trims the least recently used entries when it next wakes (every
    # 10 s at most). Slack: the level directories (4 KB each) and one entry written after.
    slack = 256 * 1024 + max(image.size for image in images)
    deadline = time.monotonic() + 20
    while disk_usage(edge.cache_dir) > bound + slack and time.monotonic() < deadline:
        time.sleep(0.25)
    assert disk_usage(edge.cache_dir) <= bound + slack
    # What it kept is the most recently used.
    assert edge.get(images[-1].get_data_url()).cache == "HIT"
    assert edge.get(images[0].get_data_url()).cache == "MISS"


def test_the_anonymous_grid_and_fruit_list_are_micro_cached(edge, fruit, curator_token):
    for path in ("/", "/api/v1/fruits?page_size=24", "/brapi/v2/germplasm?pageSize=24"):
        first, second = edge.get(path), edge.get(path)
        assert (first.status, first.cache) == (200, "MISS"), path
        assert (second.status, second.cache) == (200, "HIT"), path
        assert "Set-Cookie" not in first.headers
        for credentials in (
            {"Authorization": f"Token {curator_token}"},
            {"Cookie": "sessionid=abc"},
            {"Cookie": "csrftoken=abc"},
        ):
            assert edge.get(path, **credentials).cache == "BYPASS", (path, credentials)

    # Within two seconds (`1s` is counted in whole seconds), anonymous readers see a change.
    FruitFactory(name="Gravensteiner")
    assert b"Gravensteiner" in edge.get("/", Cookie="sessionid=abc").body
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        pages = [
            edge.get("/api/v1/fruits?page_size=24").body,
            edge.get("/").body,
            edge.get("/brapi/v2/germplasm?pageSize=24").body,
        ]
        if all(b"Gravensteiner" in page for page in pages):
            break
        time.sleep(0.1)
    assert all(b"Gravensteiner" in page for page in pages)


def test_the_brapi_search_is_never_answered_from_the_cache(edge, fruit):
    search = b'{"germplasmNames": ["%s"]}' % fruit.name.encode()
    for _ in range(2):
        answer = edge.request(
            "POST", "/brapi/v2/search/germplasm", search, **{"Content-Type": "application/json"}
        )
        assert answer.status == 200 and answer.cache != "HIT", answer.cache
        assert fruit.name.encode() in answer.body


def test_nginx_errors_on_the_byte_paths_are_the_apis_json(start_edge):
    edge = start_edge(upstream=free_port())  # nothing listens there

    answer = edge.get("/api/v1/fruits/1/images/2/thumbnail?v=0123456789abcdef")

    assert answer.status == 502
    assert answer.headers["Content-Type"] == "application/json"
    assert answer.json()["detail"]


def test_nginx_errors_on_brapi_are_in_brapis_envelope(start_edge):
    edge = start_edge(upstream=free_port())  # nothing listens there

    answers = [
        edge.get("/brapi/v2/germplasm", Origin="https://viewer.example"),
        edge.request("POST", "/brapi/v2/search/germplasm", b"x" * 5_400_000),
    ]

    assert [answer.status for answer in answers] == [502, 413]
    for answer in answers:
        assert answer.headers["Content-Type"] == "application/json"
        assert answer.headers["Access-Control-Allow-Origin"] == "*"
        (status,) = answer.json()["metadata"]["status"]
        assert status["messageType"] == "ERROR" and status["message"]


@pytest.fixture
def german_named_fruit():
    fruit = FruitFactory(name="Belle de Boskoop")
    FruitName.objects.create(
        fruit=fruit, name="Schöner aus Boskoop", kind="translation", language="de"
    )
    return fruit


@pytest.mark.parametrize("order", [("en", "de"), ("de", "en")])
def test_an_answer_is_never_served_to_a_client_of_the_other_language(
    edge, german_named_fruit, order
):
    headings = {"en": "Belle de Boskoop", "de": "Schöner aus Boskoop"}
    asks = {"en": "en-GB,en;q=0.9", "de": "de-DE,de;q=0.9,en;q=0.8"}
    size = 24 if order[0] == "en" else 23  # each order its own URL, cold
    for path in (f"/api/v1/fruits?page_size={size}", f"/api/v1/fruits?page_size={size}&x=1"):
        for language in (*order, *order):
            answer = edge.get(path, **{"Accept-Language": asks[language]})
            assert answer.status == 200
            assert answer.headers["Content-Language"] == language, (path, language, answer.cache)
            assert answer.json()["results"][0]["display_name"] == headings[language]
        # ?lang is in the URL, so in the key: whatever the header says.
        lang = edge.get(f"{path}&lang={order[1]}", **{"Accept-Language": asks[order[0]]})
        assert lang.headers["Content-Language"] == order[1]


def test_a_language_written_another_way_is_the_same_cached_answer(edge, german_named_fruit):
    path = "/api/v1/fruits?page_size=22"
    first = edge.get(path, **{"Accept-Language": "de"})
    again = edge.get(path, **{"Accept-Language": "de"})
    other = edge.get(path, **{"Accept-Language": "fr-CH, fr;q=0.9, de;q=0.8, en;q=0.7"})

    assert (first.cache, again.cache) == ("MISS", "HIT")
    assert other.headers["Content-Language"] == "de"
    assert other.json() == first.json()


def test_public_pages_stay_one_language_a_url_and_cacheable(edge, german_named_fruit):
    for path, language in (("/", "en"), ("/de/", "de")):
        answers = [
            edge.get(path, **{"Accept-Language": asks})
            for asks in ("de-DE,de;q=0.9", "en-US,en;q=0.9", "fr")
        ]
        assert [a.headers["Content-Language"] for a in answers] == [language] * 3, path
        assert [a.cache for a in answers] == ["MISS", "HIT", "HIT"], path
        assert f'<html lang="{language}">'.encode() in answers[0].body
    # A visitor who chose German with the switch is sent on from /, never from the cache.
    chose = edge.get("/", Cookie="django_language=de")
    assert (chose.status, chose.headers["Location"], chose.cache) == (302, "/de/", "BYPASS")
    # ...and served /de/ from it like everyone else.
    assert edge.get("/de/", Cookie="django_language=de").cache == "HIT"
