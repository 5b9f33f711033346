"""A database that hangs: every request ends in a bounded time, and nothing is lost.

gunicorn (as deployed: sync workers, persistent connections) serves the test database through
a loopback proxy (`core.testing.faults.PausableProxy`). Pausing the proxy freezes the
database as the app sees it: connections stay open, nothing answers. PostgreSQL only.
"""

import concurrent.futures
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from rest_framework.authtoken.models import Token

from catalog.models import Fruit
from core.testing.faults import PausableProxy

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[1]
REQUEST_TIMEOUT = 3  # DATABASE_REQUEST_TIMEOUT for the server under test, in seconds
# The longest a request may take: its deadline (past it, a cut connection is not opened again),
# then the answer.
BOUND = REQUEST_TIMEOUT + 1
WORKERS = 5  # more than the requests sent at once: none waits for a worker


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def upstream_of(database: dict) -> tuple[str, int] | str:
    """Where the test database listens: its TCP address, or its Unix socket."""
    port = int(database.get("PORT") or 5432)
    host = database.get("HOST") or "/var/run/postgresql"
    if host.startswith("/"):
        return f"{host}/.s.PGSQL.{port}"
    return host, port


def call(base: str, path: str, method: str = "GET", body=None, headers=None):
    """(status, content type, body bytes, seconds) of one request; no exception for 4xx/5xx."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{base}{path}", data=data, method=method)
    for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
        request.add_header(name, value)
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            status, kind, content = (
                response.status,
                response.headers["Content-Type"],
                response.read(),
            )
    except urllib.error.HTTPError as error:
        status, kind, content = error.code, error.headers["Content-Type"], error.read()
    return status, kind, content, time.monotonic() - started


@pytest.fixture
def frozen_database_server():
    """(base URL, proxy): gunicorn on the test database through a pausable proxy."""
    if connection.vendor != "postgresql":
        pytest.skip("the hung-database proof needs PostgreSQL")
    database = settings.DATABASES["default"]
    proxy = PausableProxy(upstream_of(database))
    user = database.get("USER") or ""
    password = f":{database['PASSWORD']}" if database.get("PASSWORD") else ""
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{user}{password}@127.0.0.1:{proxy.port}/{database['NAME']}",
        "DATABASE_REQUEST_TIMEOUT": str(REQUEST_TIMEOUT),
        "DATABASE_CONN_MAX_AGE": "600",
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "test-only-secret-key-not-for-production",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
    }
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "fruitcatalog.wsgi",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(WORKERS),
            "--timeout",
            "60",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                if call(base, "/health")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.1)
        else:
            raise AssertionError(f"gunicorn did not start: {server.stderr.read1().decode()}")
        yield base, proxy
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        proxy.close()


def test_a_frozen_database_gets_503s_in_bounded_time_and_recovery_loses_nothing(
    frozen_database_server, fruit_factory
):
    base, proxy = frozen_database_server
    fruit = fruit_factory(name="Gravensteiner")
    # A superuser: transactional tests flush the Curators group its data migration made.
    user = User.objects.create_superuser("faults")
    token = {"Authorization": f"Token {Token.objects.create(user=user).key}"}
    # Every worker holds a persistent connection, as a server in use does.
    for _ in range(4 * WORKERS):
        assert call(base, "/api/v1/fruits")[0] == 200
        assert call(base, f"/fruits/{fruit.pk}/")[0] == 200

    proxy.pause()
    requests = {
        "health": ("/health", "GET", None, {}),
        "api list": ("/api/v1/fruits", "GET", None, {}),
        "site page": (f"/fruits/{fruit.pk}/", "GET", None, {"Accept": "text/html"}),
        "create": (
            "/api/v1/fruits",
            "POST",
            {"name": "Boskoop", "type": "apple"},
            {**token, "Idempotency-Key": "boskoop-1"},
        ),
    }
    with concurrent.futures.ThreadPoolExecutor(len(requests)) as pool:
        futures = {name: pool.submit(call, base, *args) for name, args in requests.items()}
        answers = {name: future.result() for name, future in futures.items()}

    status, kind, body, seconds = answers["health"]
    assert (status, kind) == (503, "application/json") and seconds < 2.0, answers["health"]
    assert json.loads(body)["database"] == "unavailable"
    for name in ("api list", "create"):
        status, kind, body, seconds = answers[name]
        assert (status, kind) == (503, "application/json"), (name, answers[name])
        assert seconds < BOUND, (name, seconds)
    status, kind, body, seconds = answers["site page"]
    assert (status, kind.split(";")[0]) == (503, "text/html") and seconds < BOUND, seconds
    assert b"Temporarily unavailable" in body

    proxy.resume()
    time.sleep(1)
    assert call(base, "/health")[0] == 200
    for _ in range(2 * WORKERS):  # each worker's broken connection is replaced
        assert call(base, "/api/v1/fruits")[0] == 200
        assert call(base, f"/fruits/{fruit.pk}/")[0] == 200
    retried = call(
        base,
        "/api/v1/fruits",
        "POST",
        {"name": "Boskoop", "type": "apple"},
        {**token, "Idempotency-Key": "boskoop-1"},
    )
    assert retried[0] == 201
    assert sorted(Fruit.objects.values_list("name", flat=True)) == ["Boskoop", "Gravensteiner"]
