"""An image upload through the whole stack against `make_thumbnail` alone, on PostgreSQL.

Run with ``python bench/bench_upload.py [--runs 7]`` (part of ``make bench``). It uses the
database ``fruitcatalog_upload`` on the server that ``DATABASE_URL`` names (default: the local
server as ``postgres``), migrated on first use, and posts a ~3 MB photo-like JPEG to
``POST /api/v1/fruits/{id}/images`` with the test client (the whole Django stack, in this
process), with psycopg's server-side binding on (the default) and off. The target: an upload costs
at most twice `make_thumbnail` on the same bytes, so the path around the thumbnail (parsing,
checks, hashing, the INSERT of the bytes) costs no more than the thumbnail itself.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import support  # bench/support.py, beside this script

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DATABASE = "fruitcatalog_upload"
TARGET_RATIO = 2.0


def median_ms(action, runs: int) -> float:
    action()  # warm-up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()

    url = support.database_url(DATABASE)
    support.ensure_database(url)
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fruitcatalog.settings")
    # Production settings: with debug on, Django keeps every query's SQL with the parameters
    # inlined, which writes the uploaded bytes out once more as hex text.
    os.environ["DJANGO_DEBUG"] = "0"
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-secret-key")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.db import connection
    from rest_framework.test import APIClient

    from blobs import imaging
    from catalog.models import Fruit, FruitImage

    call_command("migrate", verbosity=0)
    settings.ALLOWED_HOSTS = ["*"]
    user, _ = User.objects.get_or_create(
        username="bench-curator", defaults={"is_staff": True, "is_superuser": True}
    )
    client = APIClient()
    client.force_authenticate(user)
    fruit, _ = Fruit.objects.get_or_create(name="Bench upload", defaults={"type": "apple"})
    data = support.photo_jpeg(quality=88)  # 12 MP, about 3 MB: a phone's photo
    path = f"/api/v1/fruits/{fruit.pk}/images"

    def upload():
        response = client.post(path, data, content_type="image/jpeg")
        assert response.status_code == 201, response.content[:200]

    thumbnail_ms = median_ms(lambda: imaging.make_thumbnail(data), args.runs)
    rows = []
    for binding in (True, False):
        connection.close()
        connection.settings_dict["OPTIONS"]["server_side_binding"] = binding
        upload_ms = median_ms(upload, args.runs)
        rows.append((binding, upload_ms))
    FruitImage.objects.filter(fruit=fruit).delete()

    print(f"## Upload of a {len(data) / 1e6:.1f} MB JPEG (median of {args.runs})\n")
    print("| what | ms | x make_thumbnail | target |")
    print("|---|---|---|---|")
    print(f"| `make_thumbnail` alone | {thumbnail_ms:.0f} | 1.0 | |")
    passed = True
    for binding, upload_ms in rows:
        ratio = upload_ms / thumbnail_ms
        name = "server-side binding (default)" if binding else "client-side binding (hex text)"
        verdict = ""
        if binding:
            passed = ratio <= TARGET_RATIO
            verdict = f"≤ {TARGET_RATIO:.0f}x: {'PASS' if passed else 'FAIL'}"
        print(f"| upload, {name} | {upload_ms:.0f} | {ratio:.2f} | {verdict} |")
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
