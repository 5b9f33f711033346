"""Search quality on real variety names and the misspellings visitors type, on both engines.

Run with ``python bench/bench_search_quality.py`` (part of ``make bench``). It loads the 197
varieties of ``catalog/tests/data/varieties.json`` into a throwaway SQLite database and a
throwaway PostgreSQL database (``fruitcatalog_bench_quality``, next to the one ``DATABASE_URL``
names), asks the queries of ``search_queries.json`` through the API, and prints the table
docs/site.md shows, with its floors. ``catalog/tests/test_search_quality.py`` asserts them.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import support  # bench/support.py, beside this script

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DATABASE = "fruitcatalog_bench_quality"
ROWS = [  # (label, kinds, floor on SQLite, floor on PostgreSQL)
    ("exact names (ranked first)", ["exact"], 1.0, 1.0),
    (
        "other names, case, umlauts, apostrophes, partial words (in the first three)",
        ["alias", "case", "umlaut", "apostrophe", "partial"],
        0.90,
        0.95,
    ),
    ("misspellings (in the first three)", ["misspelling"], 0.90, 0.95),
    ('gross misspellings (first three, or "did you mean")', ["gross"], 0.80, 0.80),
    ("nonsense (nothing found, nothing suggested)", ["nonsense"], 1.0, 1.0),
]


def measure_on(url: str) -> dict:
    """Load the varieties into the database `url` names and score every query (a child run)."""
    support.setup_django(url)
    from django.core.management import call_command
    from django.test import Client

    from catalog.tests.search_quality import load_varieties, measure

    call_command("migrate", verbosity=0)
    load_varieties()
    quality = measure(Client())
    return {"asked": quality.asked, "good": quality.good, "misses": quality.misses}


def run_child(url: str) -> dict:
    result = subprocess.run(
        [sys.executable, __file__, "--child", url], capture_output=True, text=True, check=False
    )
    if result.returncode:
        sys.exit(f"measuring on {url} failed:\n{result.stderr}")
    return json.loads(result.stdout)


def rate(result: dict, kinds: list[str]) -> tuple[int, float]:
    asked = sum(result["asked"].get(kind, 0) for kind in kinds)
    good = sum(result["good"].get(kind, 0) for kind in kinds)
    return asked, (good / asked if asked else 1.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure_on(args.child)))
        return

    with tempfile.TemporaryDirectory() as folder:
        sqlite = run_child(f"sqlite:///{folder}/quality.sqlite3")
    url = support.database_url(DATABASE)
    support.ensure_database(url, reload=True)
    try:
        postgresql = run_child(url)
    finally:
        support.drop_database(url)

    print("## Search quality (197 real varieties, every query of the fixture)\n")
    print("| queries | asked | SQLite (floor) | PostgreSQL (floor) | result |")
    print("|---|---:|---:|---:|---|")
    failed = False
    for label, kinds, sqlite_floor, postgresql_floor in ROWS:
        asked, on_sqlite = rate(sqlite, kinds)
        _, on_postgresql = rate(postgresql, kinds)
        ok = on_sqlite >= sqlite_floor and on_postgresql >= postgresql_floor
        failed |= not ok
        print(
            f"| {label} | {asked} | {on_sqlite:.0%} (≥ {sqlite_floor:.0%}) "
            f"| {on_postgresql:.0%} (≥ {postgresql_floor:.0%}) | {'PASS' if ok else 'FAIL'} |"
        )
    for engine, result in (("SQLite", sqlite), ("PostgreSQL", postgresql)):
        for miss in result["misses"]:
            print(f"\nmissed on {engine}: {miss}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
