"""The identify endpoint's time at 10,000 apples x 40 characteristics on PostgreSQL, and whether
keeping a type's values in the process (``identification/values.py``) pays for itself.

Run with ``python bench/bench_identify_http.py`` (part of ``make bench``, ~2 minutes). It makes
the PostgreSQL database ``fruitcatalog_bench_identify`` afresh next to the one ``DATABASE_URL``
names (default: the local server as ``postgres``), migrates it (the 26 standard apple
characteristics come with the data migration), adds 14 synthetic apple characteristics through
``characteristic_save`` and 10,000 apples, and loads their values by COPY: the standard
characteristics' states drawn with the real-apple frequencies of ``bench_identify_quality.py``,
three values in ten a range of two states, one in ten missing. The database is dropped at the
end.

Each request goes through the whole Django stack in this process (test ``Client``, no network,
one thread): 200 requests of ten answers that describe a random apple (one of them wrong), with
the type's values kept (warm); the queries one of them runs; the cold read of the values
(``values.load``, what a request pays after a write bumped the version) and the memory it keeps
(tracemalloc); and the alternative that keeps nothing: one query for the answered
characteristics' values, then the ranking (a lower bound for such an endpoint: it leaves out the
listed fruits' query, the next questions and the JSON).
"""

from __future__ import annotations

import io
import os
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from urllib.parse import urlencode

import support  # bench/support.py, beside this script

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import bench_identify_quality as quality  # noqa: E402  (beside this script)

DATABASE = "fruitcatalog_bench_identify"
FRUITS, SYNTHETIC = 10_000, 14
REQUESTS, UNKEPT_REQUESTS, ANSWERS, COLD_RUNS = 200, 100, 10, 5
TARGET_P95_MS = 150

# The synthetic characteristics, in turn: scale, states, their frequencies.
KINDS = [
    ("ordinal", (1, 3, 5, 7, 9), (0.06, 0.22, 0.44, 0.22, 0.06)),
    ("ordinal", (3, 5, 7), (0.25, 0.5, 0.25)),
    ("nominal", (1, 2, 3, 4), (0.4, 0.3, 0.2, 0.1)),
    ("nominal", (1, 2, 3, 4, 5, 6), (0.35, 0.25, 0.15, 0.12, 0.08, 0.05)),
]
RELIABILITIES = ("high", "medium", "low")


def synthetic_characteristics() -> tuple[dict, dict]:
    """Create the synthetic characteristics; their scoring form and state frequencies."""
    from identification import scoring
    from identification.models import Characteristic
    from identification.services import characteristic_save

    chars, frequencies = {}, {}
    for number in range(1, SYNTHETIC + 1):
        scale, states, weights = KINDS[number % len(KINDS)]
        reliability = RELIABILITIES[number % len(RELIABILITIES)]
        code = f"extra_{number:02d}"
        characteristic_save(
            characteristic=Characteristic(
                code=code,
                name=f"Extra {number}",
                scale=scale,
                reliability=reliability,
                position=300 + 10 * number,
            ),
            fruit_types=["apple"],
            states=[{"value": value, "label": f"state {value}"} for value in states],
        )
        chars[code] = scoring.Characteristic(code, states, scale == "ordinal", reliability)
        frequencies[code] = weights
    return chars, frequencies


def load_data(rng: random.Random) -> tuple[dict, dict]:
    """10,000 apples and their values for 40 characteristics; (fruit id -> values, chars)."""
    from django.db import connection, transaction

    from catalog.models import Fruit
    from identification.models import (
        Characteristic,
        CharacteristicState,
        FruitCharacteristic,
        FruitCharacteristicState,
    )
    from identification.services import bump_versions

    extra_chars, extra_frequencies = synthetic_characteristics()
    chars = {**quality.CHARS, **extra_chars}
    frequencies = {**quality.FREQUENCIES, **extra_frequencies}
    Fruit.objects.bulk_create(
        (
            Fruit(catalog_number=number, name=f"Apfel {number}", type="apple")
            for number in range(1, FRUITS + 1)
        ),
        batch_size=2000,
    )
    ids = dict(Fruit.objects.values_list("catalog_number", "pk"))
    state_ids = {
        (code, value): pk
        for code, value, pk in CharacteristicState.objects.values_list(
            "characteristic__code", "value", "pk"
        )
    }
    char_ids = dict(Characteristic.objects.of_type("apple").values_list("code", "pk"))
    described = quality.orchard(FRUITS, rng, chars, frequencies)  # catalog number -> values
    values_rows, state_rows, row = io.StringIO(), io.StringIO(), 0
    for number, values in described.items():
        for code, states in values.items():
            row += 1
            values_rows.write(
                f"{row}\t{ids[number]}\t{char_ids[code]}\t\\N\t\t\t2026-11-27 08:00:00+00\n"
            )
            for value in sorted(states):
                state_rows.write(f"{row}\t{state_ids[code, value]}\n")
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL statement_timeout = 0")  # loading is not a request
        raw = cursor.cursor
        with raw.copy(
            f"COPY {FruitCharacteristic._meta.db_table} (id, fruit_id, characteristic_id, "
            "source_publication_id, pages, note, updated_at) FROM STDIN"
        ) as copy:
            copy.write(values_rows.getvalue())
        with raw.copy(
            f"COPY {FruitCharacteristicState._meta.db_table} (fruit_characteristic_id, state_id) "
            "FROM STDIN"
        ) as copy:
            copy.write(state_rows.getvalue())
        cursor.execute(
            "SELECT setval(pg_get_serial_sequence(%s, 'id'), %s)",
            [FruitCharacteristic._meta.db_table, row],
        )
        bump_versions(["apple"])
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    by_id = {ids[number]: values for number, values in described.items()}
    return by_id, chars


def describe(values: dict, chars: dict, rng: random.Random) -> dict[str, int]:
    """Ten answers about the fruit (each one of its states), one of them a state it lacks."""
    codes = rng.sample(sorted(values), min(ANSWERS, len(values)))
    answers = {code: rng.choice(sorted(values[code])) for code in codes}
    wrongable = [code for code in codes if set(chars[code].states) - values[code]]
    if wrongable:
        code = rng.choice(wrongable)
        answers[code] = rng.choice([s for s in chars[code].states if s not in values[code]])
    return answers


class Timings:
    """Wall and CPU time (this process's) of each run of a `with` block, in milliseconds: the
    difference is the database's share, or waiting for a core on a busy machine."""

    def __init__(self):
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def __enter__(self):
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall.append((time.perf_counter() - self._wall) * 1000)
        self.cpu.append((time.process_time() - self._cpu) * 1000)

    def row(self) -> str:
        """p50, p95 and max wall time, p50 and p95 CPU time, as table cells."""
        return " | ".join(
            f"{value:.0f}"
            for value in (
                statistics.median(self.wall),
                p95(self.wall),
                max(self.wall),
                statistics.median(self.cpu),
                p95(self.cpu),
            )
        )


def p95(times: list[float]) -> float:
    return statistics.quantiles(times, n=100, method="inclusive")[94]


def unkept(answers: dict[str, int], chars: dict, ids: dict[str, int]) -> list[int]:
    """What an endpoint without kept values would do at least: read the answered
    characteristics' values of the type's fruits (one query, in catalog order), rank them.
    `ids`: the characteristics' ids by code."""
    from identification import scoring
    from identification.values import fruit_values

    fruits = fruit_values("apple", {ids[code]: code for code in answers})
    # In question order, as the endpoint sums them (float sums in another order can part ties).
    asked = {code: (answers[code],) for code in chars if code in answers}
    return [fruit for fruit, _ in scoring.rank(chars, asked, fruits)[:10]]


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
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from identification import values as kept_values
    from identification.models import Characteristic

    call_command("migrate", verbosity=0)
    rng = random.Random(1905)
    fruits, chars = load_data(rng)
    links = sum(len(v) for fruit in fruits.values() for v in fruit.values())
    cells = sum(len(fruit) for fruit in fruits.values())
    print(
        f"loaded {FRUITS:,} apples x {len(chars)} characteristics ({cells:,} values, "
        f"{links:,} states) in {time.monotonic() - started:.0f} s",
        file=sys.stderr,
    )

    client = Client()
    fruit_ids = list(fruits)
    requests = []
    for _ in range(REQUESTS):
        described = rng.choice(fruit_ids)
        requests.append((described, describe(fruits[described], chars, rng)))

    def path(answers: dict[str, int]) -> str:
        return "/api/v1/identify?" + urlencode({"type": "apple", **answers})

    load_before = os.getloadavg()[0]
    kept_values.forget()
    first = client.get(path(requests[0][1]))  # reads the values: the cold request
    assert first.status_code == 200, first.content[:300]
    warm, listed_first, listed_ten = Timings(), 0, 0
    endpoint_top = []
    for described, answers in requests:
        with warm:
            response = client.get(path(answers))
        assert response.status_code == 200, response.content[:300]
        ids = [candidate["fruit"]["id"] for candidate in response.json()["candidates"]]
        endpoint_top.append(ids)
        listed_first += bool(ids) and ids[0] == described
        listed_ten += described in ids
    with CaptureQueriesContext(connection) as captured:
        client.get(path(requests[0][1]))
    queries = len(captured.captured_queries)

    version = kept_values.current_version("apple")
    cold = Timings()
    for _ in range(COLD_RUNS):
        with CaptureQueriesContext(connection) as captured, cold:
            kept_values.load("apple", version)
    cold_queries = len(captured.captured_queries)
    tracemalloc.start()
    held = kept_values.load("apple", version)
    memory, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del held

    scoring_chars = kept_values.type_values("apple").characteristics
    ids = dict(Characteristic.objects.values_list("code", "pk"))
    alternative, differ = Timings(), 0
    for (_, answers), top in zip(requests[:UNKEPT_REQUESTS], endpoint_top, strict=False):
        with alternative:
            ranked = unkept(answers, scoring_chars, ids)
        differ += ranked != top
    load_after = os.getloadavg()[0]

    print(
        f"## Identify at {FRUITS:,} apples x {len(chars)} characteristics on PostgreSQL "
        "(server time, in process)\n"
    )
    print(
        f"{cells:,} values holding {links:,} states ({links / cells:.2f} per value). Load "
        f"average {load_before:.1f} before the requests, {load_after:.1f} after; "
        f"{os.cpu_count()} cores.\n"
    )
    print("| what | p50 ms | p95 ms | max ms | CPU p50 ms | CPU p95 ms | queries | runs | note |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    print(
        f"| `GET /api/v1/identify`, 10 answers, values kept | {warm.row()} | {queries} "
        f"| {REQUESTS} | target p95 ≤ {TARGET_P95_MS} ms |"
    )
    print(
        f"| values read cold (`values.load`) | {cold.row()} | {cold_queries} | {COLD_RUNS} "
        f"| after each write, once per process; keeps {memory / 2**20:.0f} MB "
        f"(peak {peak / 2**20:.0f} MB) |"
    )
    print(
        f"| nothing kept: the answered values' query + ranking | {alternative.row()} | 1 "
        f"| {len(alternative.wall)} | a lower bound; {differ} of {len(alternative.wall)} top "
        "tens differ from the endpoint's |"
    )
    saved = statistics.median(alternative.wall) - statistics.median(warm.wall)
    cold_p50 = statistics.median(cold.wall)
    breakeven = f"{cold_p50 / saved:.0f}" if saved > 0 else "never"
    print(
        f"\nKept values pay for themselves after {breakeven} requests per process between two "
        f"writes of apple values (a cold read of {cold_p50:.0f} ms against {saved:.0f} ms "
        "saved per request at the median)."
    )
    print(
        f"\nThe described apple (ten answers, one wrong) came first in "
        f"{listed_first / REQUESTS:.0%} of the requests and among the ten listed in "
        f"{listed_ten / REQUESTS:.0%}.\n"
    )
    print(f"whole bench: {time.monotonic() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
