"""The change feed at 1,000,000 entries on PostgreSQL: a page of 1,000 from the start, the
middle and the end, the poll that finds nothing newer, and what a write's commit pays for its
entry.

Run with ``python bench/bench_changes.py`` (part of ``make bench``, about a minute). It makes the
PostgreSQL database ``fruitcatalog_bench_changes`` afresh next to the one ``DATABASE_URL`` names
(default: the local server as ``postgres``), migrates it and loads 1,000,000 entries by COPY (a
year of changes, fruits mostly, a deletion in twenty), then drops it at the end.

Each request goes through the whole Django stack in this process (test ``Client``, no network,
one thread), 7 times; the table gives the median, the slowest and the queries of one request,
and every answer is checked: 1,000 entries with the expected consecutive ``seq`` values, kinds
and ids, in order, and the ``next`` that continues after the last. A write's share: a fruit
saved through ``fruit_update`` 50 times, timed with and without the feed's receivers connected,
each in its own committed transaction.
"""

from __future__ import annotations

import io
import os
import statistics
import sys
import time
from pathlib import Path

import support  # bench/support.py, beside this script

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DATABASE = "fruitcatalog_bench_changes"
ENTRIES = 1_000_000
PAGE = 1000
RUNS = 7
WRITES = 50
TARGET_MS = 100
KINDS = ("fruit", "fruit", "fruit", "publication", "characteristic")


def expected(seq: int) -> tuple[str, int, str]:
    """The entry the load gave `seq`: (kind, id, action)."""
    kind = KINDS[seq % len(KINDS)]
    action = "deleted" if seq % 20 == 0 else "created" if seq % 7 == 0 else "changed"
    return kind, seq % 50_000 + 1, action


def load_entries() -> None:
    """1,000,000 entries by COPY, `at` spread over the last year in `seq` order."""
    from django.db import connection, transaction

    from changes.models import Change

    rows = io.StringIO()
    for seq in range(1, ENTRIES + 1):
        kind, object_id, action = expected(seq)
        seconds = 365 * 86400 * (ENTRIES - seq) // ENTRIES
        rows.write(f"{seq}\t{kind}\t{object_id}\t{action}\t{seconds}\n")
    table = Change._meta.db_table
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL statement_timeout = 0")  # loading is not a request
        cursor.execute(
            "CREATE TEMPORARY TABLE load (seq bigint, kind text, object_id bigint, "
            "action text, age integer) ON COMMIT DROP"
        )
        with cursor.cursor.copy("COPY load FROM STDIN") as copy:
            copy.write(rows.getvalue())
        cursor.execute(
            f"INSERT INTO {table} (seq, at, kind, object_id, action) "  # noqa: S608 (constants)
            "SELECT seq, now() - make_interval(secs => age), kind, object_id, action FROM load"
        )
        cursor.execute("SELECT setval(pg_get_serial_sequence(%s, 'seq'), %s)", [table, ENTRIES])
    with connection.cursor() as cursor:
        cursor.execute(f"VACUUM ANALYZE {table}")


def check_page(body: dict, after: int) -> None:
    """The page after `after`: the next 1,000 entries as loaded, in order, and where to go on."""
    from changes.feed import encode_cursor

    seqs = [entry["seq"] for entry in body["results"]]
    assert seqs == list(range(after + 1, after + PAGE + 1)), (after, seqs[:3], seqs[-3:])
    got = [(entry["kind"], entry["id"], entry["action"]) for entry in body["results"]]
    assert got == [expected(seq) for seq in seqs]
    assert body["next"] == encode_cursor(after + PAGE)


def timed(client, params: dict, check) -> tuple[list[float], int]:
    """`RUNS` requests of the feed: their times in ms (each answer checked), and one's queries."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        response = client.get("/api/v1/changes", params)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.content[:300]
        check(response.json())
    with CaptureQueriesContext(connection) as captured:
        client.get("/api/v1/changes", params)
    return times, len(captured.captured_queries)


def write_times() -> tuple[list[float], list[float]]:
    """`WRITES` saves of one fruit with its entry written and as many without (the feed's
    receiver disconnected), alternately, each committed: their times in ms."""
    from catalog.models import Fruit
    from catalog.services import fruit_create, fruit_update
    from catalog.signals import fruit_written
    from changes import recording

    fruit = fruit_create(name="Bench", type="apple")
    uid = "changes-feed-fruit"
    with_entry, without = [], []
    for number in range(2 * WRITES):
        recorded = number % 2 == 0
        if not recorded:
            fruit_written.disconnect(sender=Fruit, dispatch_uid=uid)
        try:
            started = time.perf_counter()
            fruit_update(fruit=fruit, name=f"Bench {number}")
            (with_entry if recorded else without).append((time.perf_counter() - started) * 1000)
        finally:
            fruit_written.connect(recording.fruit_written, sender=Fruit, dispatch_uid=uid)
    return with_entry, without


def main() -> None:
    url = support.database_url(DATABASE)
    support.ensure_database(url, reload=True)
    try:
        run(url)
    finally:
        from django.db import connections

        connections.close_all()
        support.drop_database(url)


def run(url: str) -> None:
    started = time.monotonic()
    support.setup_django(url)
    from django.core.management import call_command
    from django.test import Client

    from changes.feed import encode_cursor

    call_command("migrate", verbosity=0)
    load_entries()
    print(f"loaded {ENTRIES:,} entries in {time.monotonic() - started:.0f} s", file=sys.stderr)
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_total_relation_size('changes_change')")
        size_mb = cursor.fetchone()[0] / 2**20

    client = Client()
    client.get("/api/v1/changes")  # the connection opened, the statements prepared
    load_before = os.getloadavg()[0]
    rows = []
    for label, after in (
        ("the start (no cursor)", None),
        ("the middle", ENTRIES // 2),
        ("the end: the last 1,000", ENTRIES - PAGE),
    ):
        params = {} if after is None else {"after": encode_cursor(after)}
        times, queries = timed(client, params, lambda body, a=after: check_page(body, a or 0))
        rows.append((f"a page of 1,000 from {label}", times, queries))

    def nothing_newer(body):
        assert body == {"results": [], "next": encode_cursor(ENTRIES)}, body

    times, queries = timed(client, {"after": encode_cursor(ENTRIES)}, nothing_newer)
    rows.append(("the poll that finds nothing newer", times, queries))
    with_feed, without_feed = write_times()
    load_after = os.getloadavg()[0]

    print(f"## The change feed at {ENTRIES:,} entries on PostgreSQL (server time, in process)\n")
    print(
        f"Median and slowest of {RUNS} requests through the whole Django stack, each answer "
        f"checked. Load average {load_before:.1f} before, {load_after:.1f} after; "
        f"{os.cpu_count()} cores.\n"
    )
    print("| request | median ms | max ms | queries | target |")
    print("|---|---:|---:|---:|---|")
    for label, times, queries in rows:
        median = statistics.median(times)
        verdict = "met" if median <= TARGET_MS else "MISSED"
        print(
            f"| {label} | {median:.1f} | {max(times):.1f} | {queries} "
            f"| ≤ {TARGET_MS} ms: {verdict} |"
        )
    print(
        f"\nThe {ENTRIES:,} entries take {size_mb:.0f} MB on disk with their indexes "
        "(the primary key's, `at`'s)."
    )
    extra = statistics.median(with_feed) - statistics.median(without_feed)
    print(
        f"\nA fruit saved through `fruit_update` and committed: {statistics.median(with_feed):.1f} "
        f"ms at the median with its entry written, {statistics.median(without_feed):.1f} ms "
        f"without ({extra:+.1f} ms: the lock and the insert at commit; {WRITES} saves each, "
        "alternately).\n"
    )
    slowest = max(statistics.median(times) for _, times, _ in rows)
    print(f"whole bench: {time.monotonic() - started:.0f} s", file=sys.stderr)
    if slowest > TARGET_MS:
        sys.exit(f"a page took {slowest:.1f} ms at the median, over the {TARGET_MS} ms target")


if __name__ == "__main__":
    main()
