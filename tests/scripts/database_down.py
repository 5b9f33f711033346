"""Requests against a database that is down or frozen (DATABASE_URL names it).

Run by test_database_settings.py in a child process. Checks that every route answers 503 with
`Retry-After` within the connect timeout (a JSON body under /api/, the site's HTML page on the
public site and the admin), that /health says "unavailable" within 2 s, and that each failed
request logs one line (no traceback); prints "ok" or what went wrong.
"""

import io
import logging
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fruitcatalog.settings")
os.environ.setdefault("DJANGO_SECRET_KEY", "test-only")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.test import Client  # noqa: E402

settings.ALLOWED_HOSTS = ["testserver"]
log = io.StringIO()
handler = logging.StreamHandler(log)
logging.getLogger().addHandler(handler)
problems = []
client = Client()
client.cookies["sessionid"] = "a-session-the-database-would-know"
routes = [
    ("get", "/api/v1/fruits"),
    ("get", "/api/v1/fruits/1"),
    ("post", "/api/v1/fruits"),
    ("get", "/api/v1/publications"),
    ("get", "/api/v1/fruits/1/images/1/thumbnail"),
    ("post", "/api/v1/auth/token"),
    ("get", "/admin/"),
    ("get", "/admin/login/"),
    ("get", "/"),
    ("get", "/fruits/1/"),
    ("get", "/publications/"),
]
for method, path in routes:
    started = time.monotonic()
    response = getattr(client, method)(path, HTTP_AUTHORIZATION="Token abc")
    took = time.monotonic() - started
    page = not path.startswith("/api/")
    content_type = "text/html; charset=utf-8" if page else "application/json"
    if response.status_code != 503 or response.get("Content-Type") != content_type:
        problems.append(f"{method} {path}: {response.status_code} {response.get('Content-Type')}")
    elif not response.get("Retry-After"):
        problems.append(f"{method} {path}: no Retry-After")
    elif page and b"Temporarily unavailable" not in response.content:
        problems.append(f"{method} {path}: page {response.content[:200]!r}")
    elif not page and "detail" not in response.json():
        problems.append(f"{method} {path}: body {response.content!r}")
    if took > settings.DATABASE_CONNECT_TIMEOUT + 1.5:
        problems.append(f"{method} {path}: took {took:.1f} s")

started = time.monotonic()
health = client.get("/health")
if health.status_code != 503 or health.json().get("database") != "unavailable":
    problems.append(f"/health: {health.status_code} {health.content!r}")
if time.monotonic() - started > 2:
    problems.append(f"/health took {time.monotonic() - started:.1f} s")

lines = [line for line in log.getvalue().splitlines() if line.strip()]
if "Traceback" in log.getvalue() or len(lines) > 2 * (len(routes) + 1):
    problems.append(f"log: {len(lines)} lines for {len(routes) + 1} requests: {lines[:6]}")
print("ok" if not problems else "; ".join(problems))
