"""Benchmark of the thumbnail backfill: peak memory per batch size, and two concurrent runs.

Run with ``python bench/bench_backfill.py [--images 200]``. It makes a throwaway SQLite database
(and, when PostgreSQL answers on DATABASE_URL_BENCH or 127.0.0.1:5432, a throwaway PostgreSQL
database), stores the images the way bulk loads do (no thumbnails), and runs
``manage.py backfill_thumbnails`` in child processes, each reporting its own peak resident memory
(VmHWM). Prints Markdown tables and exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_thumbnails import photo_jpeg  # noqa: E402

MAX_PEAK_RSS_MB = 150
MAX_CONCURRENT_RATIO = 0.65
PG_ADMIN_URL = os.environ.get("DATABASE_URL_BENCH", "postgres://postgres@127.0.0.1:5432")

# Runs the command in this child and reports the child's own peak RSS on the last line.
CHILD = """
import os, sys
sys.path.insert(0, {root!r})
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fruitcatalog.settings")
import django
django.setup()
from django.core.management import call_command
try:
    call_command("backfill_thumbnails", *sys.argv[1:], verbosity=0)
finally:
    status = open("/proc/self/status").read().split("VmHWM:")[1].split()[0]
    print("PEAK_KIB", status)
"""


def manage(env: dict, *args: str) -> None:
    """Run a management command in a child process."""
    subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, capture_output=True
    )


def backfill_child(env: dict, *args: str) -> subprocess.Popen:
    """Start a backfill in a child process that reports its peak RSS."""
    code = CHILD.format(root=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def peak_mb(output: str) -> float:
    """The PEAK_KIB line of a child's output, in MB."""
    line = next(line for line in output.splitlines() if line.startswith("PEAK_KIB"))
    return int(line.split()[1]) / 1024


def fill(env: dict, count: int, data: bytes) -> None:
    """Migrate and store `count` images without thumbnails (bulk insert skips the save hook)."""
    manage(env, "migrate", "--noinput")
    code = f"""
import os, sys
sys.path.insert(0, {str(ROOT)!r})
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fruitcatalog.settings")
import django
django.setup()
from catalog.models import Fruit, FruitImage
data = open({str(env["BENCH_IMAGE"])!r}, "rb").read()
FruitImage.objects.all().delete()
fruit = Fruit.objects.create(name="Bench", type="apple", catalog_number=1)
for start in range(0, {count}, 20):
    size = min(20, {count} - start)
    FruitImage.objects.bulk_create(FruitImage(fruit=fruit, data=data) for _ in range(size))
"""
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True)


def reset_thumbnails(env: dict) -> None:
    """Forget every thumbnail so the next run has the whole set to do."""
    code = f"""
import os, sys
sys.path.insert(0, {str(ROOT)!r})
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fruitcatalog.settings")
import django
django.setup()
from catalog.models import FruitImage
FruitImage.objects.update(thumbnail_data=None, thumbnail_sha256="")
"""
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True)


def base_env(database_url: str, image_path: Path) -> dict:
    """Environment of the children: the bench database, debug off."""
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "bench-only",
        "BENCH_IMAGE": str(image_path),
    }


def section_memory(args, image_path: Path) -> tuple[str, bool]:
    """Peak RSS of a backfill of the whole set, per batch size (SQLite)."""
    rows = [
        f"| batch size | images | seconds | peak RSS MB (target ≤ {MAX_PEAK_RSS_MB}) | result |",
        "|---|---|---|---|---|",
    ]
    passed = True
    with tempfile.TemporaryDirectory() as folder:
        env = base_env(f"sqlite:///{folder}/bench.sqlite3", image_path)
        fill(env, args.images, image_path.read_bytes())
        for batch_size in ("default", "1", "200"):
            reset_thumbnails(env)
            extra = [] if batch_size == "default" else ["--batch-size", batch_size]
            started = time.perf_counter()
            child = backfill_child(env, *extra)
            output, errors = child.communicate()
            seconds = time.perf_counter() - started
            if child.returncode != 0:
                raise SystemExit(errors)
            peak = peak_mb(output)
            ok = peak <= MAX_PEAK_RSS_MB
            passed &= ok
            rows.append(
                f"| {batch_size} | {args.images} | {seconds:.1f} | {peak:.0f} | "
                f"{'PASS' if ok else 'FAIL'} |"
            )
    return "\n".join(rows), passed


def postgres_available() -> bool:
    """Whether the bench can create a database on PostgreSQL."""
    result = subprocess.run(
        ["psql", f"{PG_ADMIN_URL}/postgres", "-c", "SELECT 1"], capture_output=True
    )
    return result.returncode == 0


def section_concurrency(args, image_path: Path) -> tuple[str, bool]:
    """One run against two concurrent runs over the same set (PostgreSQL, SKIP LOCKED)."""
    if not postgres_available():
        return "PostgreSQL is not reachable: skipped.", True
    name = f"fruitcatalog_bench_{os.getpid()}"
    subprocess.run(
        ["psql", f"{PG_ADMIN_URL}/postgres", "-c", f"CREATE DATABASE {name}"],
        check=True,
        capture_output=True,
    )
    try:
        env = base_env(f"{PG_ADMIN_URL}/{name}", image_path)
        fill(env, args.images, image_path.read_bytes())
        reset_thumbnails(env)
        started = time.perf_counter()
        one = backfill_child(env)
        one.communicate()
        single = time.perf_counter() - started

        reset_thumbnails(env)
        started = time.perf_counter()
        pair = [backfill_child(env) for _ in range(2)]
        for child in pair:
            child.communicate()
        double = time.perf_counter() - started
    finally:
        subprocess.run(
            ["psql", f"{PG_ADMIN_URL}/postgres", "-c", f"DROP DATABASE IF EXISTS {name}"],
            capture_output=True,
        )
    ratio = double / single
    ok = ratio <= MAX_CONCURRENT_RATIO and all(child.returncode == 0 for child in [one, *pair])
    rows = [
        f"| images | one run s | two concurrent runs s | ratio (target ≤ {MAX_CONCURRENT_RATIO}) "
        "| result |",
        "|---|---|---|---|---|",
        f"| {args.images} | {single:.1f} | {double:.1f} | {ratio:.2f} | "
        f"{'PASS' if ok else 'FAIL'} |",
    ]
    return "\n".join(rows), ok


def main(argv: list[str] | None = None) -> int:
    """Run both sections and print their tables; 1 if a target was missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=200, help="images in the set (default 200)")
    args = parser.parse_args(argv)
    all_passed = True
    with tempfile.TemporaryDirectory() as folder:
        image_path = Path(folder, "photo.jpg")
        image_path.write_bytes(photo_jpeg(4000, 3000))
        print(
            f"Set: {args.images} copies of a {image_path.stat().st_size / 1e6:.1f} MB 4000x3000 "
            "JPEG, stored without thumbnails.\n",
            flush=True,
        )
        for section in (section_memory, section_concurrency):
            markdown, passed = section(args, image_path)
            print(f"## {section.__doc__}\n\n{markdown}\n", flush=True)
            all_passed &= passed
    return 0 if all_passed else 1


if __name__ == "__main__":
    sys.exit(main())
