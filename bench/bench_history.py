"""What keeping every change costs (PostgreSQL): a write, an import, the tables, a history read.

Run with ``python bench/bench_history.py [--rows 10000] [--runs 3] [--fruits 1000000]`` (part of
``make bench``, after ``bench_scale.py``, whose million-fruit database it reads and adds history
to). Each measurement runs in this process through the whole Django stack (test client), once
with the history recorded and once with django-simple-history switched off
(``SIMPLE_HISTORY_ENABLED``), which is the service without history:

- a fruit's PATCH (name and other names): the median of 21 after a warm-up, and its queries;
- an import of ``--rows`` new fruits, then of the same file with every name changed, each in a
  fresh database (``fruitcatalog_bench_history``), the median of ``--runs``;
- at ``--fruits`` fruits (``fruitcatalog_bench``): the historical rows of every fruit created and
  changed twice, written by SQL as the service would have written them, the tables' size per
  version, and the time to read one fruit's history through the API (median of 7).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import support  # bench/support.py, beside this script

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DATABASE = "fruitcatalog_bench_history"
SCALE_DATABASE = "fruitcatalog_bench"
PATCH_RUNS = 21
READ_RUNS = 7


def spreadsheet(rows: int, *, renamed: bool = False) -> bytes:
    lines = ["catalog_number,name,type,synonyms"]
    for number in range(1, rows + 1):
        name = f"Sorte {number}{' neu' if renamed else ''}"
        lines.append(f"{number},{name},apple,Synonym {number} a; Synonym {number} b")
    return ("\n".join(lines) + "\n").encode()


def curator_client():
    from django.contrib.auth.models import User
    from rest_framework.test import APIClient

    user, _ = User.objects.get_or_create(
        username="bench-curator", defaults={"is_staff": True, "is_superuser": True}
    )
    client = APIClient()
    client.force_authenticate(user)
    return client


def history_switch(enabled: bool):
    from django.test import override_settings

    return override_settings(SIMPLE_HISTORY_ENABLED=enabled)


def measure_patch(client, fruit_id: int) -> tuple[float, int]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times, queries = [], 0
    for run in range(PATCH_RUNS + 1):
        body = {"name": f"Bench {run % 2}", "names": [{"name": f"Other {run % 2}"}]}
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            response = client.patch(f"/api/v1/fruits/{fruit_id}", body, format="json")
            elapsed = (time.perf_counter() - started) * 1000
        assert response.status_code == 200, response.content[:300]
        if run:  # the first warms up
            times.append(elapsed)
            queries = len(captured.captured_queries)
    return statistics.median(times), queries


def bench_writes(rows: int, runs: int) -> list[tuple[str, str, str]]:
    from django.core.management import call_command
    from django.db import connection

    from catalog.imports import import_fruits

    url = support.database_url(DATABASE)
    # Runs with and without history alternate, so a busy spell of the machine weighs on both.
    first, second, patches, undos = defaultdict(list), defaultdict(list), {}, []
    for _ in range(runs):
        for enabled in (True, False):
            support.ensure_database(url, reload=True)
            connection.close()
            call_command("migrate", verbosity=0)
            with history_switch(enabled):
                started = time.perf_counter()
                report = import_fruits(spreadsheet(rows), dry_run=False, bounded=False)
                first[enabled].append(time.perf_counter() - started)
                assert report.ok and report.count_new == rows, report.summary()
                started = time.perf_counter()
                report = import_fruits(spreadsheet(rows, renamed=True), dry_run=False)
                second[enabled].append(time.perf_counter() - started)
                assert report.ok and report.count_changed == rows, report.summary()
                from catalog.models import Fruit

                patches[enabled] = measure_patch(
                    curator_client(), Fruit.objects.order_by("pk").first().pk
                )
                if enabled:  # undo both (the fruit the PATCHes changed is left as it is)
                    from catalog.models import ImportBatch
                    from history.undo import import_undo

                    for batch in ImportBatch.objects.order_by("-pk"):
                        started = time.perf_counter()
                        undone = import_undo(batch_id=batch.pk, force=True)
                        undos.append((batch.created_count, time.perf_counter() - started))
                        assert len(undone.deleted) + len(undone.reverted) >= rows - 1, undone
    results = []
    for enabled in (True, False):
        label = "with history" if enabled else "without history"
        for what, times in (("new", first[enabled]), ("changed", second[enabled])):
            runs_text = ", ".join(f"{seconds:.1f}" for seconds in times)
            results.append(
                (
                    f"import {rows:,} {what} fruits, {label}",
                    f"{statistics.median(times):.1f} s",
                    f"runs: {runs_text}",
                )
            )
        ms, queries = patches[enabled]
        results.append((f"a fruit's PATCH, {label}", f"{ms:.1f} ms", f"{queries} queries"))
    for created, seconds in undos:
        what = "deletes its new fruits" if created else "puts the names back"
        results.append((f"undo of the import of {rows:,} rows: {what}", f"{seconds:.1f} s", ""))
    connection.close()
    support.drop_database(url)
    return results


HISTORY_SQL = [
    # Created: every fruit and its names as they are.
    """INSERT INTO history_historicalfruit (id, catalog_number, name, type, created_at, revision,
        via, batch, action, history_date, history_change_reason, history_type, history_user_id)
       SELECT id, catalog_number, name, type, created_at, md5(id::text || 'c')::uuid, 'import',
        1, '', created_at, NULL, '+', NULL FROM catalog_fruit""",
    """INSERT INTO history_historicalfruitname (id, name, name_key, position, kind, language,
        note, fruit_id, revision, via, batch, action, history_date, history_change_reason,
        history_type, history_user_id)
       SELECT id, name, name_key, position, kind, language, note, fruit_id,
        md5(fruit_id::text || 'c')::uuid, 'import', 1, '', now(), NULL, '+', NULL
       FROM catalog_fruitname""",
]
CHANGE_SQL = [  # run twice, with the change's number as the parameter
    """INSERT INTO history_historicalfruit (id, catalog_number, name, type, created_at,
        revision, via, batch, action, history_date, history_change_reason, history_type,
        history_user_id)
       SELECT id, catalog_number, name || ' ' || %(change)s, type, created_at,
        md5(id::text || %(change)s)::uuid, 'api', NULL, '', now(), NULL, '~', NULL
       FROM catalog_fruit""",
    """INSERT INTO history_historicalfruitname (id, name, name_key, position, kind,
        language, note, fruit_id, revision, via, batch, action, history_date,
        history_change_reason, history_type, history_user_id)
       SELECT id, name, name_key, position, kind, language, note || %(change)s, fruit_id,
        md5(fruit_id::text || %(change)s)::uuid, 'api', NULL, '', now(), NULL, '~', NULL
       FROM catalog_fruitname""",
]
TABLES = ["history_historicalfruit", "history_historicalfruitname"]


def bench_tables(fruits: int) -> list[tuple[str, str, str]]:
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    from catalog.models import Fruit

    if Fruit.objects.count() < fruits:
        sys.exit(f"{SCALE_DATABASE} holds fewer than {fruits:,} fruits: run bench_scale.py first")
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM history_historicalfruit")
        if cursor.fetchone()[0] < 3 * fruits:
            cursor.execute("SET statement_timeout = 0")
            for table in TABLES:
                cursor.execute(f"TRUNCATE {table}")
            started = time.monotonic()
            for statement in HISTORY_SQL:
                cursor.execute(statement)
            for change in ("1", "2"):
                for statement in CHANGE_SQL:
                    cursor.execute(statement, {"change": change})
            cursor.execute(f"VACUUM (ANALYZE) {', '.join(TABLES)}")
            cursor.execute("RESET statement_timeout")
            print(f"history written in {time.monotonic() - started:.0f} s", file=sys.stderr)
        results = []
        for table in TABLES:
            cursor.execute(f"SELECT count(*), pg_total_relation_size('{table}') FROM {table}")  # noqa: S608
            rows, size = cursor.fetchone()
            results.append(
                (
                    f"{table}: {rows:,} rows",
                    f"{size / 2**20:,.0f} MiB",
                    f"{size / rows:.0f} B a row",
                )
            )
    client = curator_client()
    middle = fruits // 2
    client.get(f"/api/v1/fruits/{middle}/history")
    times = []
    for _ in range(READ_RUNS):
        started = time.perf_counter()
        response = client.get(f"/api/v1/fruits/{middle}/history")
        times.append((time.perf_counter() - started) * 1000)
    versions = response.json()["count"]
    assert response.status_code == 200 and versions == 3, (response.status_code, versions)
    results.append(
        ("a fruit's history (3 versions), read", f"{statistics.median(times):.1f} ms", "≤ 50 ms")
    )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--fruits", type=int, default=1_000_000)
    parser.add_argument("--only", choices=["writes", "tables"])
    parser.add_argument("--child", choices=["writes", "tables"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:  # one part, in a process of its own (each sets Django up on its database)
        if args.child == "writes":
            support.ensure_database(support.database_url(DATABASE), reload=True)
            support.setup_django(support.database_url(DATABASE))
            results = bench_writes(args.rows, args.runs)
        else:
            support.setup_django(support.database_url(SCALE_DATABASE))
            results = bench_tables(args.fruits)
        print(json.dumps(results))
        return
    print("## What keeping every change costs (PostgreSQL)\n")
    print("| measured | result | note |")
    print("|---|---|---|", flush=True)
    for part in ["writes", "tables"]:
        if args.only not in (None, part):
            continue
        options = ["--rows", str(args.rows), "--runs", str(args.runs), "--fruits", str(args.fruits)]
        child = subprocess.run(
            [sys.executable, __file__, "--child", part, *options], capture_output=True, text=True
        )
        if child.returncode:
            sys.exit(child.stderr)
        for name, value, note in json.loads(child.stdout):
            print(f"| {name} | {value} | {note} |", flush=True)


if __name__ == "__main__":
    main()
