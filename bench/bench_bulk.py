"""Bulk curation and open exports on PostgreSQL: an import of 10,000 rows, a first load side by
side with django-import-export, the exports at a million fruits, and a batch of photos.

Run with ``python bench/bench_bulk.py [--photos 1000] [--rows 10000] [--runs 3]
[--only import|first-load]`` (part of ``make bench``, after ``bench_scale.py``, whose
``fruitcatalog_bench`` database of a million fruits the exports read). The import runs in a
database of its own (``fruitcatalog_bench_bulk``, made afresh), and so does ``manage.py
import_fruits`` on a full worksheet of rows with errors. The first load imports one file of new
fruits (``--rows``) into a fresh database, each run a new copy of a migrated template, once with
``manage.py import_fruits`` and once with django-import-export (a ``ModelResource`` for Fruit
storing the same names and refreshing the search text a row at a time, tuned as its docs advise
with ``CachedInstanceLoader`` and ``skip_html_diff``); the median of ``--runs`` each, and the
statements each sent. Each export is read through the whole Django stack in this process; its
peak memory is measured in a child process (``ru_maxrss``), as are the photo batch's (``manage.py
import_images``) and that of the worksheet of errors.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import support  # bench/support.py, beside this script

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SCALE_DATABASE = "fruitcatalog_bench"
BULK_DATABASE = "fruitcatalog_bench_bulk"
FIRST_LOAD_TEMPLATE = "fruitcatalog_bench_first_template"  # migrated once, copied for each run
FIRST_LOAD_DATABASE = "fruitcatalog_bench_first"
FIRST_LOADERS = ["import_fruits", "django-import-export"]
ROWS = 10_000
SHEET_ROWS = 1_048_575  # a full worksheet's data rows: the most a spreadsheet exports


def setup_django(url: str) -> None:
    support.setup_django(url, FRUITCATALOG_EXPORT_RATE_PER_ADDRESS="")  # measured, not limited


def spreadsheet(rows: int, *, renamed: bool = False) -> bytes:
    lines = ["catalog_number,name,type,synonyms"]
    for number in range(1, rows + 1):
        name = f"Sorte {number}{' neu' if renamed and number % 2 else ''}"
        lines.append(f"{number},{name},apple,Synonym {number} a; Synonym {number} b")
    return ("\n".join(lines) + "\n").encode()


def bench_import() -> list[tuple[str, float, str]]:
    url = support.database_url(BULK_DATABASE)
    support.ensure_database(url, reload=True)
    results = []
    child = subprocess.run(
        [sys.executable, __file__, "--child-import", url], capture_output=True, text=True
    )
    if child.returncode:
        sys.exit(child.stderr)
    for name, seconds, outcome in json.loads(child.stdout):
        results.append((name, seconds, outcome))
    support.drop_database(url)
    return results


def child_import(url: str) -> None:
    setup_django(url)
    from django.core.management import call_command

    from catalog.imports import import_fruits

    call_command("migrate", verbosity=0)
    results = []
    for name, data, dry_run in [
        (f"import {ROWS:,} new rows, dry run", spreadsheet(ROWS), True),
        (f"import {ROWS:,} new rows", spreadsheet(ROWS), False),
        (f"import {ROWS:,} rows, half changed, dry run", spreadsheet(ROWS, renamed=True), True),
        (f"import {ROWS:,} rows, half changed", spreadsheet(ROWS, renamed=True), False),
        (f"import {ROWS:,} unchanged rows", spreadsheet(ROWS, renamed=True), False),
    ]:
        started = time.perf_counter()
        report = import_fruits(data, dry_run=dry_run)
        seconds = time.perf_counter() - started
        counts = report.as_dict()
        outcome = (
            f"{counts['created']} new, {counts['updated']} changed, {counts['unchanged']} same"
        )
        results.append((name, seconds, outcome))
    print(json.dumps(results))


def bench_first_load(rows: int, runs: int) -> list[tuple[str, float, str]]:
    """The same file of new fruits loaded into a fresh database by each loader, `runs` times
    (alternating, so both meet the same machine), the median of each."""
    template = support.database_url(FIRST_LOAD_TEMPLATE)
    support.ensure_database(template, reload=True)
    migrated = subprocess.run(
        [sys.executable, __file__, "--child-migrate", template], capture_output=True, text=True
    )
    if migrated.returncode:
        sys.exit(migrated.stderr)
    url = support.database_url(FIRST_LOAD_DATABASE)
    server, name = url.rsplit("/", 1)
    measured: dict[str, list[tuple[float, int, str]]] = {loader: [] for loader in FIRST_LOADERS}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "fruits.csv")
        path.write_bytes(spreadsheet(rows))
        for _ in range(runs):
            for loader in FIRST_LOADERS:
                support.drop_database(url)
                subprocess.run(
                    [
                        "psql",
                        server + "/postgres",
                        "-qc",
                        f"CREATE DATABASE {name} TEMPLATE {FIRST_LOAD_TEMPLATE}",
                    ],
                    check=True,
                )
                child = subprocess.run(
                    [sys.executable, __file__, "--child-first-load", loader, url, str(path)],
                    capture_output=True,
                    text=True,
                )
                if child.returncode:
                    sys.exit(child.stderr)
                seconds, statements, stored = json.loads(child.stdout)
                measured[loader].append((seconds, statements, stored))
    support.drop_database(url)
    support.drop_database(template)
    results = []
    for loader, label in zip(FIRST_LOADERS, first_load_labels(), strict=True):
        times = sorted(seconds for seconds, _, _ in measured[loader])
        median = times[len(times) // 2]
        statements = sorted(count for _, count, _ in measured[loader])[len(times) // 2]
        outcome = (
            f"median of {runs} ({', '.join(f'{t:.1f}' for t in times)} s); "
            f"{statements:,} statements; {measured[loader][0][2]}"
        )
        results.append((f"first load of {rows:,} new fruits: {label}", median, outcome))
    return results


def first_load_labels() -> list[str]:
    from importlib.metadata import version

    return [
        "import_fruits",
        f"django-import-export {version('django-import-export')} "
        "(CachedInstanceLoader, skip_html_diff)",
    ]


def child_migrate(url: str) -> None:
    setup_django(url)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def fruit_resource():
    """django-import-export's resource for the bench's file: a fruit by its catalog number,
    its synonyms stored as its other names and its search text refreshed after each row is
    saved, as the catalog's services store them."""
    from import_export import resources
    from import_export.instance_loaders import CachedInstanceLoader

    from catalog.models import Fruit
    from catalog.services import fruit_set_names

    class FruitResource(resources.ModelResource):
        class Meta:
            model = Fruit
            fields = ("catalog_number", "name", "type")
            import_id_fields = ("catalog_number",)
            instance_loader_class = CachedInstanceLoader
            skip_html_diff = True

        def save_instance(self, instance, is_create, row, **kwargs):
            super().save_instance(instance, is_create, row, **kwargs)
            texts = [text.strip() for text in (row.get("synonyms") or "").split(";")]
            names = [
                {"name": text, "kind": "synonym", "language": "", "note": ""}
                for text in texts
                if text
            ]
            fruit_set_names(fruit=instance, names=names, new=is_create)
            instance.refresh_search_text([name["name"] for name in names], new=is_create)

    return FruitResource()


def child_first_load(loader: str, url: str, path: str) -> None:
    setup_django(url)
    import io

    import tablib
    from django.core.management import call_command
    from django.db import connection

    from catalog.models import Fruit, FruitName, FruitSpelling

    statements = 0

    def count(execute, sql, params, many, context):
        nonlocal statements
        statements += 1
        return execute(sql, params, many, context)

    resource = fruit_resource()  # both loaders' modules imported before the clock starts
    with connection.execute_wrapper(count):
        started = time.perf_counter()
        if loader == "import_fruits":
            call_command("import_fruits", path, stdout=io.StringIO())
        else:
            dataset = tablib.Dataset().load(Path(path).read_text(), format="csv")
            result = resource.import_data(dataset, dry_run=False, use_transactions=True)
            if result.has_errors() or result.has_validation_errors():
                sys.exit(f"django-import-export refused the file: {result.totals}")
        seconds = time.perf_counter() - started
    stored = (
        f"{Fruit.objects.count():,} fruits, {FruitName.objects.count():,} names, "
        f"{FruitSpelling.objects.count():,} spellings"
    )
    print(json.dumps([seconds, statements, stored]))


def bench_import_memory() -> list[tuple[str, float, str]]:
    url = support.database_url(BULK_DATABASE)
    support.ensure_database(url, reload=True)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "errors.csv")
        with path.open("w") as file:  # two errors a row: no name, no such type
            file.write("catalog_number,name,type\n")
            file.writelines(f"{number},,appel\n" for number in range(1, SHEET_ROWS + 1))
        child = subprocess.run(
            [sys.executable, __file__, "--child-import-memory", url, str(path)],
            capture_output=True,
            text=True,
        )
    support.drop_database(url)
    if child.returncode:
        sys.exit(child.stderr)
    return [tuple(row) for row in json.loads(child.stdout)]


def child_import_memory(url: str, path: str) -> None:
    setup_django(url)
    import io
    import os

    from django.core.management import call_command
    from django.core.management.base import CommandError

    call_command("migrate", verbosity=0)
    with tempfile.TemporaryDirectory() as folder:  # the baseline: everything loaded
        one = Path(folder, "one.csv")
        one.write_text("catalog_number,name,type\n1,,appel\n")
        with contextlib.suppress(CommandError):
            call_command("import_fruits", one, stderr=io.StringIO())
    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    with open(os.devnull, "w") as sink:
        try:
            call_command("import_fruits", path, stderr=sink)
            outcome = "no error"
        except CommandError as error:
            outcome = str(error).split(":")[0]
    seconds = time.perf_counter() - started
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - baseline) / 1024
    name = f"import_fruits: {SHEET_ROWS:,} rows with errors (first 100 listed)"
    print(json.dumps([[name, seconds, f"peak memory +{grown:.0f} MB; {outcome}"]]))


def bench_exports() -> list[tuple[str, float, str]]:
    url = support.database_url(SCALE_DATABASE)
    results = []
    for path in ["/api/v1/exports/fruits.csv", "/api/v1/exports/dwca.zip"]:
        child = subprocess.run(
            [sys.executable, __file__, "--child-export", url, path], capture_output=True, text=True
        )
        if child.returncode:
            sys.exit(child.stderr)
        results.extend(tuple(row) for row in json.loads(child.stdout))
    return results


def child_export(url: str, path: str) -> None:
    setup_django(url)
    from django.core.management import call_command
    from django.test import Client

    call_command("migrate", verbosity=0)  # the scale bench's database, as this code has it

    client = Client()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    response = client.get(path)
    pieces = iter(response.streaming_content)
    first = next(pieces)
    first_byte = time.perf_counter() - started
    size = len(first) + sum(len(piece) for piece in pieces)
    total = time.perf_counter() - started
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    times = []
    for _ in range(7):
        started = time.perf_counter()
        again = client.get(path, HTTP_IF_NONE_MATCH=response["ETag"])
        times.append(time.perf_counter() - started)
        assert again.status_code == 304
    name = path.rsplit("/", 1)[1]
    print(
        json.dumps(
            [
                [f"{name}: first byte", first_byte, f"{size / 1e6:.0f} MB in all"],
                [f"{name}: the whole file", total, f"peak memory +{grown:.0f} MB"],
                [f"{name}: conditional request (304)", sorted(times)[3], "median of 7"],
            ]
        )
    )


def bench_photos(count: int) -> list[tuple[str, float, str]]:
    url = support.database_url(BULK_DATABASE)
    support.ensure_database(url, reload=True)
    base = support.photo_jpeg()
    with tempfile.TemporaryDirectory() as folder:
        for number in range(1, count + 1):
            # A comment segment after SOI: other bytes (no duplicate), the same picture.
            comment = f"photo {number}".encode()
            marker = b"\xff\xfe" + (len(comment) + 2).to_bytes(2, "big") + comment
            Path(folder, f"{number}.jpg").write_bytes(base[:2] + marker + base[2:])
        child = subprocess.run(
            [sys.executable, __file__, "--child-photos", url, folder, str(count)],
            capture_output=True,
            text=True,
        )
    support.drop_database(url)
    if child.returncode:
        sys.exit(child.stderr)
    return [tuple(row) for row in json.loads(child.stdout)]


def child_photos(url: str, folder: str, count: int) -> None:
    setup_django(url)
    import io

    from django.core.management import call_command

    from catalog.models import Fruit

    call_command("migrate", verbosity=0)
    Fruit.objects.bulk_create(
        Fruit(catalog_number=n, name=f"Sorte {n}", type="apple") for n in range(1, count + 1)
    )
    # The baseline: everything loaded and one photo handled.
    first = Path(folder, "1.jpg")
    with tempfile.TemporaryDirectory() as one:
        Path(one, "1.jpg").write_bytes(first.read_bytes())
        call_command("import_images", one, stdout=io.StringIO())
    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    out = io.StringIO()
    call_command("import_images", folder, stdout=out)
    seconds = time.perf_counter() - started
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - baseline) / 1024
    size = first.stat().st_size / 1e6
    print(
        json.dumps(
            [
                [
                    f"import_images: {count:,} photos of {size:.1f} MB",
                    seconds,
                    f"peak memory +{grown:.0f} MB; {out.getvalue().strip().splitlines()[-1]}",
                ]
            ]
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=1000)
    parser.add_argument(
        "--rows", type=int, default=ROWS, help="new fruits of the first load (%(default)s)"
    )
    parser.add_argument(
        "--runs", type=int, default=3, help="runs of the first load, each loader (%(default)s)"
    )
    parser.add_argument(
        "--only",
        choices=["import", "first-load"],
        help="only the import's rows, or only the first load side by side (no exports)",
    )
    parser.add_argument("--child-import", help=argparse.SUPPRESS)
    parser.add_argument("--child-migrate", help=argparse.SUPPRESS)
    parser.add_argument("--child-first-load", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--child-import-memory", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--child-export", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--child-photos", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_import:
        return child_import(args.child_import)
    if args.child_migrate:
        return child_migrate(args.child_migrate)
    if args.child_first_load:
        return child_first_load(*args.child_first_load)
    if args.child_import_memory:
        return child_import_memory(*args.child_import_memory)
    if args.child_export:
        return child_export(*args.child_export)
    if args.child_photos:
        url, folder, count = args.child_photos
        return child_photos(url, folder, int(count))

    if args.only == "import":
        rows = bench_import()
    elif args.only == "first-load":
        rows = bench_first_load(args.rows, args.runs)
    else:
        rows = [
            *bench_import(),
            *bench_first_load(args.rows, args.runs),
            *bench_import_memory(),
            *bench_exports(),
            *bench_photos(args.photos),
        ]
    print("## Bulk import, exports and photo batches on PostgreSQL\n")
    print("| what | seconds | outcome |")
    print("|---|---:|---|")
    for name, seconds, outcome in rows:
        print(f"| {name} | {seconds:.2f} | {outcome} |")


if __name__ == "__main__":
    main()
