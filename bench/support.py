"""What the benchmark scripts share: their PostgreSQL databases, server processes, a test photo.

Imported by the scripts in this folder (run as ``python bench/<script>.py``, which puts this
folder on the import path).
"""

from __future__ import annotations

import contextlib
import http.client
import io
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# --- Databases -----------------------------------------------------------------------------------


def database_url(name: str) -> str:
    """The URL of database `name` on the PostgreSQL server `DATABASE_URL` names (default: local)."""
    base = os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/postgres"
    if not base.startswith("postgres"):
        sys.exit("the benchmarks need PostgreSQL: set DATABASE_URL to a postgres:// URL")
    return base.rsplit("/", 1)[0] + "/" + name


def ensure_database(url: str, *, reload: bool = False) -> None:
    """Create the database `url` names unless it exists (`reload`: drop it first)."""
    server, name = url.rsplit("/", 1)
    admin = server + "/postgres"
    if reload:
        subprocess.run(
            ["psql", admin, "-qc", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], check=True
        )
    exists = subprocess.run(
        ["psql", admin, "-tAc", f"SELECT 1 FROM pg_database WHERE datname = '{name}'"],  # noqa: S608
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not exists:
        subprocess.run(["psql", admin, "-qc", f"CREATE DATABASE {name}"], check=True)


def setup_django(url: str, **environ: str) -> None:
    """Django set up on the database `url` names (`environ`: more settings from the
    environment), for requests through the test `Client` (host `testserver`)."""
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fruitcatalog.settings")
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only")
    os.environ.update(environ)
    import django

    django.setup()
    from django.conf import settings

    settings.ALLOWED_HOSTS = ["testserver"]


def drop_database(url: str) -> None:
    """Drop the database `url` names, if it exists."""
    server, name = url.rsplit("/", 1)
    subprocess.run(
        ["psql", server + "/postgres", "-qc", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"],
        check=True,
    )


# --- Server processes ----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(procs: list, command: list[str], env: dict, log: Path) -> subprocess.Popen:
    """Start a server in its own process group, so that stopping it reaches its workers."""
    with log.open("ab") as out:
        proc = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=out, stderr=out, start_new_session=True
        )
    procs.append(proc)
    return proc


def stop(*procs: subprocess.Popen) -> None:
    """TERM each process group, then KILL what is left after 10 s."""
    for proc in procs:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
    for proc in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def get(port: int, path: str, headers: dict | None = None, timeout: float = 30):
    """One GET on a new loopback connection: status, headers, body."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.headers, response.read()
    finally:
        conn.close()


# --- A test photo --------------------------------------------------------------------------------


def photo_jpeg(width: int = 4000, height: int = 3000, quality: int = 86) -> bytes:
    """A photo-like JPEG: colour gradients with noise at four scales and a little grain.

    Detail at every scale keeps the sizes realistic: at 4000x3000 about 2.5 MB at quality 86
    (3 MB at 90), and about 22 KB for the service's 300 px thumbnail of it.
    """
    from PIL import Image, ImageChops

    size, bands = (width, height), []
    ramps = [Image.linear_gradient("L"), Image.linear_gradient("L").rotate(90)]
    for ramp in [*ramps, Image.radial_gradient("L")]:
        band = ramp.resize(size).point(lambda v: 60 + v // 2)
        for cells, sigma in [(6, 50), (24, 30), (120, 22), (400, 12)]:
            layer = Image.effect_noise((cells, max(1, cells * height // width)), sigma)
            band = ImageChops.add(band, layer.resize(size, Image.Resampling.BICUBIC), 1, -128)
        bands.append(ImageChops.add(band, Image.effect_noise(size, 7), 1, -128))
    out = io.BytesIO()
    Image.merge("RGB", bands).save(out, "JPEG", quality=quality)
    return out.getvalue()
