"""The database settings under load and faults: SQLite writers, an unreachable or frozen server."""

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

SCRIPTS = Path(__file__).resolve().parent / "scripts"
ROOT = Path(__file__).resolve().parents[1]


def run_script(name: str, *, database_url: str, timeout: float = 120) -> str:
    env = {**os.environ, "DATABASE_URL": database_url, "DJANGO_LOG_LEVEL": "WARNING"}
    result = subprocess.run(
        [sys.executable, str(SCRIPTS / name)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.strip().splitlines()[-1]


def test_eight_writers_on_the_embedded_sqlite_all_succeed_with_distinct_numbers(tmp_path):
    out = run_script("sqlite_writers.py", database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    errors, fruits, distinct, highest = map(int, out.split())
    assert (errors, fruits, distinct, highest) == (0, 120, 120, 120)


@pytest.fixture
def silent_server():
    """A TCP port that accepts connections and never answers: a frozen database server."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    accepted = []
    stop = threading.Event()

    def accept():
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join()
    for conn in accepted:
        conn.close()
    listener.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("server", ["down", "frozen"])
def test_without_a_database_every_route_answers_a_quick_json_503(server, silent_server):
    port = free_port() if server == "down" else silent_server
    started = time.monotonic()
    out = run_script(
        "database_down.py", database_url=f"postgres://nobody@127.0.0.1:{port}/fruitcatalog"
    )
    elapsed = time.monotonic() - started
    # path status content-type retry-after, per route, then the log lines it wrote
    assert out == "ok", out
    # Each route's own bound is checked in the script (the connect timeout and a margin); this
    # one only catches a hang, with room for starting Django on a busy machine.
    assert elapsed < 60


@pytest.mark.django_db
def test_images_are_stored_without_a_compression_attempt_on_postgresql():
    """pglz runs over a whole JPEG before giving up: image columns are EXTERNAL, PDFs EXTENDED."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("storage modes are PostgreSQL's")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname || '.' || a.attname, a.attstorage FROM pg_attribute a "
            "JOIN pg_class c ON c.oid = a.attrelid "
            "WHERE c.relname IN ('catalog_fruitimage', 'publications_publication', "
            "'publications_publicationfruitimage', 'publications_publicationfruit') "
            "AND a.attname IN ('data', 'thumbnail_data', 'cover_data', 'description_data')"
        )
        storage = dict(cursor.fetchall())
    assert storage == {
        "catalog_fruitimage.data": "e",
        "catalog_fruitimage.thumbnail_data": "e",
        "publications_publication.cover_data": "e",
        "publications_publicationfruitimage.data": "e",
        "publications_publicationfruitimage.thumbnail_data": "e",
        "publications_publicationfruit.description_data": "x",
    }
