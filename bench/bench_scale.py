"""Server time of the fruit lists, detail, public pages, admin and BrAPI at a million fruits
(PostgreSQL).

Run with ``python bench/bench_scale.py [--fruits 1000000]`` (``make bench-scale``). It creates the
PostgreSQL database ``fruitcatalog_bench`` next to the one ``DATABASE_URL`` names (default: the
local server as ``postgres``), loads the fruits once with COPY — realistic names with accents,
0-4 synonyms each, an image for one fruit in a hundred — and keeps the database for later runs
(``--reload`` starts over). Each request goes through the whole Django stack in this process
(test client) while other processes keep the machine busy as the rest of ``make bench`` does
(``--busy``); the table shows the median of 7 runs after one warm-up, the queries it ran, whether
the answer is the one meant (the intended fruit first for a misspelling, a suggestion for a
"did you mean", nothing for nonsense), and the plan of the slowest query. A row that is slow or
answers otherwise fails the run.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import quote

import support  # bench/support.py, beside this script

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET_MS = 150
# The rows that guess at what was meant: measured again with the machine busy.
GUESSING = ("search, misspelled", "search, did you mean", "search, no guess", "search, nonsense")
DATABASE = "fruitcatalog_bench"

PREFIXES = [
    "Schöner",
    "Roter",
    "Gelber",
    "Große",
    "Kleine",
    "Früher",
    "Später",
    "Gräfin",
    "Herzogin",
    "Reine",
    "Belle",
    "Doppelte",
    "Edel",
    "Weißer",
    "Süßer",
    "Königlicher",
]
BASES = [
    "Boskoop",
    "Gravensteiner",
    "Renette",
    "Butterbirne",
    "Zwetschge",
    "Kirsche",
    "Quitte",
    "Mirabelle",
    "Aprikose",
    "Pfirsich",
    "Calville",
    "Pepping",
    "Reneklode",
    "Weichsel",
    "Bergamotte",
    "Cox Orange",
    "Jonathan",
    "Ontario",
    "Kaiser Wilhelm",
    "Pêche",
]
PLACES = [
    "aus Tirol",
    "von Nancy",
    "de Bordeaux",
    "aus Boskoop",
    "vom Bodensee",
    "du Mans",
    "aus Württemberg",
    "von Angers",
    "de Malines",
    "aus Thüringen",
    "",
    "",
    "",
    "",
]
TYPES = (
    ["apple"] * 45
    + ["pear"] * 18
    + ["plum"] * 12
    + ["cherry"] * 10
    + ["quince", "apricot", "peach", "grape", "berry", "citrus", "nut", "other"] * 2
)


def load(fruits: int) -> None:
    """Load `fruits` fruits with synonyms and a few images by COPY, unless already there."""
    from django.db import connection

    from catalog.models import Fruit
    from core.db.search import dictionary_words, name_key, search_document, spellings_of
    from core.testing.media import make_object_png

    present = Fruit.objects.count()
    if present >= fruits:
        return
    if present:
        sys.exit(f"{present} fruits present, {fruits} asked: run with --reload")
    started = time.monotonic()
    rng = random.Random(1905)
    fruit_rows, synonym_rows, spelling_rows = io.StringIO(), io.StringIO(), io.StringIO()
    image_fruits, words = [], set()
    for number in range(1, fruits + 1):
        name = f"{rng.choice(PREFIXES)} {rng.choice(BASES)} {rng.choice(PLACES)}".strip()
        name = f"{name} {number}" if rng.random() < 0.9 else name
        synonyms = []
        for _ in range(rng.randint(0, 4)):
            synonym = f"{rng.choice(BASES)} {rng.choice(PREFIXES)} {rng.randint(1, 99999)}"
            if name_key(synonym) not in {name_key(s) for s in synonyms}:
                synonyms.append(synonym)
        document = search_document(number, *synonyms, head=name).replace("\\", "\\\\")
        fruit_rows.write(
            f"{number}\t{number}\t{name}\t{rng.choice(TYPES)}\t{document}\t"
            "2026-11-23 08:00:00+00\t2026-11-23 08:00:00+00\n"
        )
        for position, synonym in enumerate(synonyms):
            synonym_rows.write(
                f"{number}\t{synonym}\t{name_key(synonym)}\t{position}\tsynonym\t\t\n"
            )
        spellings = spellings_of(name, number, *synonyms)
        for spelling, is_own_name in spellings:
            spelling_rows.write(f"{number}\t{spelling}\t{'t' if is_own_name else 'f'}\t{number}\n")
        words.update(dictionary_words([spelling for spelling, _ in spellings]))
        if number % 100 == 0:
            image_fruits.append(number)
    png = make_object_png()
    with connection.cursor() as cursor:
        cursor.execute("SET statement_timeout = 0")  # loading is not a request
        raw = cursor.cursor
        with raw.copy(
            "COPY catalog_fruit (id, catalog_number, name, type, search_text, created_at, "
            "updated_at) FROM STDIN"
        ) as copy:
            copy.write(fruit_rows.getvalue())
        with raw.copy(
            "COPY catalog_fruitname (fruit_id, name, name_key, position, kind, language, note) "
            "FROM STDIN"
        ) as copy:
            copy.write(synonym_rows.getvalue())
        with raw.copy(
            "COPY catalog_fruitspelling (fruit_id, spelling, is_own_name, catalog_number) "
            "FROM STDIN"
        ) as copy:
            copy.write(spelling_rows.getvalue())
        with raw.copy("COPY catalog_searchword (word) FROM STDIN") as copy:
            copy.write("".join(f"{word}\n" for word in sorted(words)))
        cursor.execute("SELECT setval('catalog_fruit_id_seq', %s)", [fruits])
    from catalog.models import FruitImage

    FruitImage.objects.bulk_create(
        (
            FruitImage(
                fruit_id=pk,
                data=png,
                size=len(png),
                content_type="image/png",
                width=120,
                height=100,
                sha256="0" * 64,
                thumbnail_data=png,
                thumbnail_sha256="1" * 64,
            )
            for pk in image_fruits
        ),
        batch_size=1000,
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
        cursor.execute("RESET statement_timeout")
    print(f"loaded {fruits:,} fruits in {time.monotonic() - started:.0f} s", file=sys.stderr)


def measure(client, path: str, runs: int = 7):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    response = client.get(path)  # warm-up
    assert response.status_code == 200, (path, response.status_code, response.content[:300])
    times = []
    for _ in range(runs):
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            response = client.get(path)
            times.append((time.perf_counter() - started) * 1000)
    slowest = max(captured.captured_queries, key=lambda q: float(q["time"]))
    return statistics.median(times), len(captured.captured_queries), slowest, response


def explain(sql: str) -> str:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) {sql}")
        return "\n".join(row[0] for row in cursor.fetchall())


def start_busy(count: int, url: str) -> list:
    """`count` processes that keep the machine busy until stopped (`keep_busy`)."""
    procs = []
    for number in range(count):
        support.start(
            procs,
            [sys.executable, __file__, "--busy-child", f"{url}#{number}"],
            dict(os.environ),
            Path(os.devnull),
        )
    time.sleep(3)  # under way before the first row
    return procs


def keep_busy(target: str) -> None:
    """Work as another bench does, forever: even-numbered processes make thumbnails of a
    photo (CPU), odd-numbered ones ask the database for lists and searches at a million."""
    url, number = target.rsplit("#", 1)
    if int(number) % 2 == 0:
        from blobs.imaging import make_thumbnail

        photo = support.photo_jpeg()
        while True:
            make_thumbnail(photo)
    support.setup_django(url)
    from django.test import Client

    client = Client()
    paths = [
        "/api/v1/fruits?page=3000&page_size=100",
        "/api/v1/fruits?search=renette&type=plum",
        "/api/v1/fruits?search=pepping",
        "/?type=cherry&ordering=name&page=40",
        "/api/v1/fruits?search=bergamote",
    ]
    while True:
        for path in paths:
            client.get(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fruits", type=int, default=1_000_000)
    parser.add_argument("--reload", action="store_true", help="drop and load the data again")
    parser.add_argument(
        "--busy",
        type=int,
        default=2,
        help="processes kept busy beside the measurements, as the other benches of make bench "
        "are (thumbnails on the CPU, list and search requests on the database); 0: none",
    )
    parser.add_argument(
        "--only",
        metavar="WORDS",
        help="measure only the rows whose name contains WORDS (case-insensitive), e.g. "
        "--only brapi; the data is loaded as usual",
    )
    parser.add_argument("--busy-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.busy_child:
        keep_busy(args.busy_child)
        return

    url = support.database_url(DATABASE)
    support.ensure_database(url, reload=args.reload)
    support.setup_django(url)
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.test import Client

    call_command("migrate", verbosity=0)
    load(args.fruits)
    # As autovacuum leaves a settled table: statistics fresh and the visibility map set, so
    # index-only scans (the ids of a deep page) skip the heap. Quick when nothing changed.
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM (ANALYZE) catalog_fruit, catalog_fruitname, catalog_fruitspelling")
    admin, _ = User.objects.get_or_create(
        username="bench-admin", defaults={"is_staff": True, "is_superuser": True}
    )
    client, staff = Client(), Client()
    staff.force_login(admin)
    middle = args.fruits // 2
    deep_admin_page = min(2000, args.fruits // 100)
    deep_brapi_page = max(0, min(100, args.fruits // 1000 - 1))  # BrAPI counts pages from 0

    def names(response) -> list[str]:
        return [fruit["name"] for fruit in response.json()["results"]]

    def first_named(word: str):
        """The first fruit found is named so, or was found through a name so (`matched_name`)."""

        def check(response):
            first = (response.json()["results"] or [{"name": "-", "matched_name": None}])[0]
            said = f"{first['name']} ({first['matched_name'] or 'its own name'})"
            return (
                word in first["name"] or word in (first["matched_name"] or "") or (f"first: {said}")
            )

        return check

    def page_of(size: int):
        return lambda r: len(names(r)) == size or f"{len(names(r))} rows, not {size}"

    def nothing(response):
        body = response.json()
        return (body["count"], body["suggestions"]) == (0, []) or (
            f"{body['count']} found, suggested {body['suggestions'][:1]}"
        )

    def suggests(word: str):
        def check(response):
            body = response.json()
            said = [suggestion["name"] for suggestion in body["suggestions"]]
            return (body["count"] == 0 and any(word in name for name in said)) or (
                f"{body['count']} found, suggested {said[:2]}"
            )

        return check

    def all_of_type(*types: str):
        def check(response):
            found = {fruit["type"] for fruit in response.json()["results"]}
            return (bool(found) and found <= set(types)) or f"types {sorted(found)}"

        return check

    def shows(text: str):
        return lambda r: text in r.content.decode() or f"no {text!r} on the page"

    def numbered(number: int):
        return lambda r: r.json()["catalog_number"] == number or "another fruit"

    def first_numbered(number: int):
        return lambda r: (
            [fruit["catalog_number"] for fruit in r.json()["results"][:1]] == [number]
            or "another fruit first"
        )

    def germplasm(response) -> list[dict]:
        return response.json()["result"]["data"]

    def germplasm_page_of(size: int):
        return lambda r: len(germplasm(r)) == size or f"{len(germplasm(r))} germplasm, not {size}"

    def accession(number: int):
        return lambda r: (
            [g["accessionNumber"] for g in germplasm(r)] == [str(number)] or "another germplasm"
        )

    def has_synonym(synonym: str):
        return lambda r: (
            (
                bool(germplasm(r))
                and all(synonym in [s["synonym"] for s in g["synonyms"]] for g in germplasm(r))
            )
            or "no germplasm with that synonym"
        )

    from catalog.models import FruitName

    synonym, synonym_fruit = (
        FruitName.objects.filter(fruit_id__gte=middle)
        .order_by("fruit_id")
        .values_list("name", "fruit__type")
        .first()
    )

    cases = [  # (row, client, path, what the answer must be: True or why it is not)
        ("list, page 1", client, "/api/v1/fruits", page_of(24)),
        ("list, page 2,000", client, "/api/v1/fruits?page=2000", page_of(24)),
        ("list, page_size=100", client, "/api/v1/fruits?page_size=100", page_of(100)),
        ("list, page 1,000 of 100", client, "/api/v1/fruits?page=1000&page_size=100", page_of(100)),
        (
            "search, common (boskoop)",
            client,
            "/api/v1/fruits?search=boskoop",
            first_named("Boskoop"),
        ),
        (
            "search, common, page 40",
            client,
            "/api/v1/fruits?search=boskoop&page=40",
            first_named("Boskoop"),
        ),
        (
            "search, common, type=pear",
            client,
            "/api/v1/fruits?search=boskoop&type=pear",
            all_of_type("pear"),
        ),
        (
            "search, a whole name",
            client,
            "/api/v1/fruits?search=Roter+Renette+aus+Tirol",
            first_named("Roter Renette aus Tirol"),
        ),
        (
            "search, accents (schoner)",
            client,
            "/api/v1/fruits?search=schoner",
            first_named("Schöner"),
        ),
        (
            "search, accented (schöner)",
            client,
            "/api/v1/fruits?search=sch%C3%B6ner",
            first_named("Schöner"),
        ),
        (
            "search, misspelled (gravenstiner)",
            client,
            "/api/v1/fruits?search=gravenstiner",
            first_named("Gravensteiner"),
        ),
        (
            "search, misspelled (boskop)",
            client,
            "/api/v1/fruits?search=boskop",
            first_named("Boskoop"),
        ),
        (
            "search, misspelled (kox oranje)",
            client,
            "/api/v1/fruits?search=kox+oranje",
            first_named("Cox Orange"),
        ),
        ("search, nonsense (xqzvw)", client, "/api/v1/fruits?search=xqzvw", nothing),
        (
            "search, did you mean (gravnstajner)",
            client,
            "/api/v1/fruits?search=gravnstajner",
            suggests("Gravensteiner"),
        ),
        ("search, no guess (grawnstajnr)", client, "/api/v1/fruits?search=grawnstajnr", nothing),
        (
            "search, rare (a number)",
            client,
            f"/api/v1/fruits?search={middle}",
            first_numbered(middle),
        ),
        (
            "4 types, ordering=-name",
            client,
            "/api/v1/fruits?type=apple&type=pear&type=plum&type=cherry&ordering=-name",
            all_of_type("apple", "pear", "plum", "cherry"),
        ),
        (
            "type=pear, ordering=-name",
            client,
            "/api/v1/fruits?type=pear&ordering=-name",
            all_of_type("pear"),
        ),
        ("detail", client, f"/api/v1/fruits/{middle}", numbered(middle)),
        (
            "BrAPI germplasm, a page of 1,000",
            client,
            "/brapi/v2/germplasm?pageSize=1000",
            germplasm_page_of(1000),
        ),
        (
            f"BrAPI germplasm, page {deep_brapi_page} of 1,000",
            client,
            f"/brapi/v2/germplasm?pageSize=1000&page={deep_brapi_page}",
            germplasm_page_of(1000),
        ),
        (
            "BrAPI germplasm, by accessionNumber",
            client,
            f"/brapi/v2/germplasm?accessionNumber={middle}",
            accession(middle),
        ),
        (
            "BrAPI germplasm, by synonym and crop",
            client,
            f"/brapi/v2/germplasm?synonym={quote(synonym)}&commonCropName={synonym_fruit}",
            has_synonym(synonym),
        ),
        (
            "BrAPI pedigree, a page of 1,000",
            client,
            "/brapi/v2/pedigree?pageSize=1000",
            germplasm_page_of(1000),
        ),
        ("site: the grid, page 1", client, "/", shows('class="card"')),
        ("site: the grid, search (schoner)", client, "/?search=schoner", shows("Schöner")),
        (
            "site: the grid, 2 types by name, page 3",
            client,
            "/?type=apple&type=pear&ordering=name&page=3",
            shows('class="card"'),
        ),
        ("site: the grid, page 2,000", client, "/?page=2000", shows('class="card"')),
        ("site: a fruit's page", client, f"/fruits/{middle}/", shows(f"{middle}")),
        ("site: the publications", client, "/publications/", shows("<h1")),
        ("admin changelist", staff, "/admin/catalog/fruit/", shows("result_list")),
        ("admin changelist, search", staff, "/admin/catalog/fruit/?q=boskoop", shows("Boskoop")),
        (
            "admin changelist, a deep page",
            staff,
            f"/admin/catalog/fruit/?p={deep_admin_page}",
            shows("result_list"),
        ),
    ]
    if args.only:
        cases = [case for case in cases if args.only.lower() in case[0].lower()]
        if not cases:
            sys.exit(f"no row's name contains {args.only!r}")
    print(f"## At {args.fruits:,} fruits on PostgreSQL (median of 7 runs, server time)\n")
    worst, failed = table(cases)
    # Guessing at a misspelling answers the same, as fast, whatever else the machine does.
    guessing = [case for case in cases if case[0].startswith(GUESSING)]
    if args.busy and guessing:
        print(f"\n### Guessing, with {args.busy} busy processes beside (`--busy`)\n")
        busy = start_busy(args.busy, url)
        try:
            failed += table(guessing)[1]
        finally:
            support.stop(*busy)
    print(f"\nSlowest query ({worst[1]}, {worst[0]:.1f} ms):\n\n```\n{explain(worst[2])}\n```")
    if failed:
        sys.exit(f"rows that failed: {', '.join(failed)}")


def table(cases) -> tuple[tuple[float, str, str], list[str]]:
    """Measure each case and print its row: the slowest query seen, and the rows that failed."""
    print(f"| request | ms (≤ {TARGET_MS}) | queries | answer | result |")
    print("|---|---|---|---|---|")
    worst, failed = (0.0, "", ""), []
    for name, who, path, check in cases:
        ms, queries, slowest, response = measure(who, path)
        verdict = check(response)
        answer = "as meant" if verdict is True else verdict
        ok = ms <= TARGET_MS and verdict is True
        print(f"| {name} | {ms:.1f} | {queries} | {answer} | {'PASS' if ok else 'FAIL'} |")
        if not ok:
            failed.append(name)
        if float(slowest["time"]) * 1000 > worst[0]:
            worst = (float(slowest["time"]) * 1000, name, slowest["sql"])
    return worst, failed


if __name__ == "__main__":
    main()
