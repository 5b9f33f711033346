"""HTTP throughput: image bytes from the service, WhiteNoise and nginx; the list against pgbench.

Run with ``python bench/bench_http.py`` (``make bench``); ``--quick`` is a smoke run (2 s per
run, one repetition, 2,000 fruits); ``--help`` lists the options. It needs PostgreSQL (the local
server as ``postgres`` unless ``DATABASE_URL`` names another), Debian's ``nginx``, ``wrk`` and
``pgbench``. It loads the database ``fruitcatalog_http`` once with bench_scale's COPY loader (a
fruit count other than the one asked, or ``--reload``, loads it again) and gives fruit 1 a
generated 4000x3000 photo-like JPEG (about 2.5 MB, thumbnail about 22 KB) through the model, so
its thumbnail and metadata are the service's own. The same bytes are written to a temporary
folder and served on loopback by

- **service**: gunicorn with the Dockerfile's command (``--gunicorn-args`` changes the workers,
  threads or worker class), from the database, the way clients get them;
- **WhiteNoise**: the same gunicorn shape, serving the folder with WhiteNoise around the service's
  WSGI app (``whitenoise_app`` below, gunicorn's entry point);
- **nginx**: a minimal generated config, ``worker_processes auto``, ``sendfile on``.

wrk drives them in turn (service, WhiteNoise, nginx; case after case; repetition after
repetition) for a thumbnail (200), the same thumbnail revalidated with a matching
``If-None-Match`` (304) and the large image (200). Columns: ``req/s`` is wrk's Requests/sec,
``p50``/``p99`` its latency percentiles in ms, each the median over the repetitions;
``÷ WhiteNoise``/``÷ nginx`` are that row's req/s over theirs for the same case; ``errors`` counts
wrk's socket errors and responses other than 2xx/3xx. The second table puts
``GET /api/v1/fruits?page_size=24`` through the service beside pgbench running the very queries
the page runs (captured through the service's WSGI application, which answers the page in its
list front, parameters inlined), as one pgbench transaction, with persistent connections and
with a new connection per transaction (``-C``, what ``DATABASE_CONN_MAX_AGE=0`` does); its ratio
is the page's req/s over pgbench's tps.
``DATABASE_CONN_MAX_AGE`` and the other ``DJANGO_*`` settings pass through from the environment.
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import support  # bench/support.py, beside this script

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path[:0] = [str(ROOT), str(BENCH)]

DATABASE = "fruitcatalog_http"
LIST_PATH = "/api/v1/fruits?page_size=24"
SERVERS = ["service", "WhiteNoise", "nginx"]
CASES = ["thumbnail, 200", "thumbnail, 304 (If-None-Match)", "large image, 200"]
LIST = "list page"
LIST_ROWS = {
    "service": "the page through the service (wrk; latency p50)",
    "pgbench": "its queries, persistent connections (tps; latency average)",
    "pgbench -C": "its queries, a new connection per transaction (-C)",
}
NGINX_CONF = """daemon off;
worker_processes auto;
pid {tmp}/nginx.pid;
error_log {tmp}/nginx-error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    types {{ image/jpeg jpg; }}
    client_body_temp_path {tmp}/client_body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    server {{
        listen 127.0.0.1:{port};
        root {tmp}/static;
    }}
}}
"""


def whitenoise_app(root: str):
    """gunicorn's entry for the WhiteNoise server: `root` at /, the service's app behind it."""
    from whitenoise import WhiteNoise

    from fruitcatalog.wsgi import application

    return WhiteNoise(application, root=root)


def prepare(args) -> tuple[str, dict, int, bytes, bytes, list[str]]:
    """The database loaded; its URL and settings, the image id, thumbnail, image, the list's SQL."""
    import bench_scale

    url = support.database_url(DATABASE)
    support.ensure_database(url, reload=args.reload)
    os.environ["DATABASE_URL"] = url
    os.environ["DJANGO_SETTINGS_MODULE"] = "fruitcatalog.settings"
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from catalog.models import Fruit, FruitImage
    from fruitcatalog.api import LIST_READS
    from fruitcatalog.listreads import ListReadApplication
    from fruitcatalog.tests.wsgi_client import Spy, WSGIClient

    settings.ALLOWED_HOSTS = ["testserver"]
    call_command("migrate", verbosity=0)
    present = Fruit.objects.count()
    if present and present != args.fruits:
        print(f"{present:,} fruits present, {args.fruits:,} asked: loading again", file=sys.stderr)
        with connection.cursor() as cursor:
            cursor.execute("TRUNCATE catalog_fruit RESTART IDENTITY CASCADE")
    bench_scale.load(args.fruits)
    image = FruitImage.objects.filter(fruit_id=1, size__gt=1_000_000).first()
    if image is None:
        image = FruitImage(fruit_id=1)
        image.set_data(support.photo_jpeg())
        image.save()
    # The page's queries as the service runs them: in its list front (which must answer it).
    django = Spy()  # Django's application, counting what the front hands on
    client = WSGIClient(ListReadApplication(django, LIST_READS))
    client.get(LIST_PATH)  # warm-up: what runs once per process is not the page's
    with CaptureQueriesContext(connection) as captured:
        response = client.get(LIST_PATH)
    assert response.status_code == 200, response.content[:300]
    assert not django.paths, "the list front handed the page to Django"
    sql = [query["sql"] for query in captured.captured_queries]  # before the next request
    assert response.json() == Client().get(LIST_PATH).json()  # the same page as Django's
    database = settings.DATABASES["default"]
    return url, database, image.pk, bytes(image.thumbnail_data), bytes(image.data), sql


def run(command: list[str], **kwargs) -> str:
    """Run a tool to its end; its output, or exit with its errors."""
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if done.returncode:
        sys.exit(f"{shlex.join(command)} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return done.stdout


def wait_ready(proc: subprocess.Popen, port: int, path: str, log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"{proc.args[0]} exited; its log:\n{log.read_text()[-3000:]}")
        try:
            if support.get(port, path)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    sys.exit(f"no answer on port {port}; log:\n{log.read_text()[-3000:]}")


UNITS_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


def wrk(args, port: int, path: str, headers: dict, seconds: float) -> dict:
    """One wrk run: req/s, p50 and p99 in ms and errors, parsed from its --latency report."""
    command = ["wrk", f"-t{args.threads}", f"-c{args.connections}", f"-d{seconds:g}s", "--latency"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    out = run([*command, f"http://127.0.0.1:{port}{path}"])

    def latency(percent: str) -> float:
        value, unit = re.search(rf"^\s+{percent}%\s+([\d.]+)(us|ms|s|m)$", out, re.M).groups()
        return float(value) * UNITS_MS[unit]

    socket_errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+)", out)
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = sum(map(int, socket_errors.groups())) if socket_errors else 0
    return {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        "p50": latency("50"),
        "p99": latency("99"),
        "errors": errors + (int(bad.group(1)) if bad else 0),
    }


def pgbench(args, url: str, options: str, script: Path, reconnect: bool, seconds: float) -> dict:
    """One pgbench run of the list's queries: tps and average latency in ms."""
    command = ["pgbench", "-n", f"-c{args.connections}", f"-j{args.threads}", "-f", str(script)]
    command += [f"-T{max(1, round(seconds))}", *(["-C"] if reconnect else [])]
    env = {**os.environ, "PGOPTIONS": options}  # what the service's connections set
    out = run([*command, url], env=env)
    failed = re.search(r"number of failed transactions: (\d+)", out)
    return {
        "rps": float(re.search(r"^tps = ([\d.]+)", out, re.M).group(1)),
        "p50": float(re.search(r"latency average = ([\d.]+) ms", out).group(1)),
        "errors": int(failed.group(1)) if failed else 0,
    }


def serve(procs: list, args, tmp: Path, nginx: str) -> dict[str, int]:
    """Start the three servers on free loopback ports; return their ports once they answer."""
    ports = {server: support.free_port() for server in SERVERS}
    env = {**os.environ, "DJANGO_DEBUG": "0", "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost"}
    gunicorn = [sys.executable, "-m", "gunicorn", *shlex.split(args.gunicorn_args)]
    whitenoise = [f"bench_http:whitenoise_app({str(tmp / 'static')!r})", "--pythonpath", str(BENCH)]
    for server, app in (("service", ["fruitcatalog.wsgi"]), ("WhiteNoise", whitenoise)):
        log = tmp / f"{server}.log"
        command = [*gunicorn, *app, "--bind", f"127.0.0.1:{ports[server]}"]
        wait_ready(support.start(procs, command, env, log), ports[server], LIST_PATH, log)
    (tmp / "nginx.conf").write_text(NGINX_CONF.format(tmp=tmp, port=ports["nginx"]))
    log = tmp / "nginx-error.log"
    command = [nginx, "-p", str(tmp), "-e", str(log), "-c", str(tmp / "nginx.conf")]
    wait_ready(
        support.start(procs, command, env, tmp / "nginx.log"), ports["nginx"], "/large.jpg", log
    )
    return ports


def median(runs: list[dict], key: str) -> float:
    return statistics.median(run[key] for run in runs)


def report(results: dict, list_queries: int) -> None:
    """Print the two tables from the runs of each (case, server)."""
    print("| case | server | req/s | p50 ms | p99 ms | ÷ WhiteNoise | ÷ nginx | errors |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for case in CASES:
        rps = {server: median(results[case, server], "rps") for server in SERVERS}
        for server in SERVERS:
            runs = results[case, server]
            print(
                f"| {case} | {server} | {rps[server]:,.0f} | {median(runs, 'p50'):.2f} | "
                f"{median(runs, 'p99'):.2f} | {rps[server] / rps['WhiteNoise']:.2f} | "
                f"{rps[server] / rps['nginx']:.2f} | {sum(r['errors'] for r in runs)} |"
            )
    print(f"\n### `GET {LIST_PATH}` against its {list_queries} queries in pgbench\n")
    print("| measured | per second | latency ms | page req/s ÷ this | errors |")
    print("|---|---:|---:|---:|---:|")
    page = median(results[LIST, "service"], "rps")
    for server, label in LIST_ROWS.items():
        runs = results[LIST, server]
        rate = median(runs, "rps")
        print(
            f"| {label} | {rate:,.0f} | {median(runs, 'p50'):.2f} | {page / rate:.2f} | "
            f"{sum(r['errors'] for r in runs)} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fruits", type=int, default=100_000)
    parser.add_argument("--reload", action="store_true", help="drop and load the data again")
    parser.add_argument("--seconds", type=float, default=10, help="length of each run")
    parser.add_argument("--reps", type=int, default=3, help="repetitions of the whole round")
    parser.add_argument("--connections", type=int, default=16, help="wrk -c and pgbench -c")
    parser.add_argument("--threads", type=int, default=2, help="wrk -t and pgbench -j")
    parser.add_argument("--gunicorn-args", default="--workers 3 --timeout 60")
    parser.add_argument("--quick", action="store_true", help="2 s runs, 1 rep, 2,000 fruits")
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.reps, args.fruits = 2, 1, 2000
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # clean up as on Ctrl-C
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    for tool in (nginx, "wrk", "pgbench", "psql"):
        if not shutil.which(tool):
            sys.exit(f"bench_http needs {tool}")

    url, database, image_id, thumbnail, large, list_sql = prepare(args)
    options = database.get("OPTIONS", {})
    print(f"## HTTP serving on {os.cpu_count()} cores (load average {os.getloadavg()[0]:.2f})\n")
    settings_used = [
        f"{args.fruits:,} fruits",
        f"gunicorn `{args.gunicorn_args}`",
        f"CONN_MAX_AGE {database['CONN_MAX_AGE']} (DATABASE_CONN_MAX_AGE)",
        f"health checks {database['CONN_HEALTH_CHECKS']}",
        f"server-side binding {options.get('server_side_binding', False)}",
        f"wrk -t{args.threads} -c{args.connections} -d{args.seconds:g}s",
        f"median of {args.reps} interleaved repetition(s)",
        f"thumbnail {len(thumbnail) / 1024:.1f} KB, large image {len(large) / 1e6:.2f} MB",
    ]
    print("; ".join(settings_used) + ".\n", flush=True)
    procs: list[subprocess.Popen] = []
    with tempfile.TemporaryDirectory(prefix="bench-http-") as tmp_name:
        tmp = Path(tmp_name)
        tmp.chmod(0o755)  # nginx's workers run as nobody when this runs as root
        (tmp / "static").mkdir(mode=0o755)
        (tmp / "static" / "thumbnail.jpg").write_bytes(thumbnail)
        (tmp / "static" / "large.jpg").write_bytes(large)
        script = tmp / "list.sql"
        script.write_text("".join(f"{sql};\n" for sql in list_sql))
        image = f"/api/v1/fruits/1/images/{image_id}"
        paths = {"service": (f"{image}/thumbnail", image)}
        paths["WhiteNoise"] = paths["nginx"] = ("/thumbnail.jpg", "/large.jpg")
        try:
            ports = serve(procs, args, tmp, nginx)
            requests = {}  # (case, server) -> (port, path, headers)
            for server, (thumbnail_path, large_path) in paths.items():
                port = ports[server]
                status, headers, body = support.get(port, thumbnail_path)
                assert (status, body) == (200, thumbnail), (server, status, len(body))
                assert support.get(port, large_path)[2] == large, server
                match = {"If-None-Match": headers["ETag"]}
                assert support.get(port, thumbnail_path, match)[0] == 304, server
                requests[CASES[0], server] = (port, thumbnail_path, {})
                requests[CASES[1], server] = (port, thumbnail_path, match)
                requests[CASES[2], server] = (port, large_path, {})
            measures = {  # (case, server) -> one run of `seconds`, servers in turn for each case
                (case, server): functools.partial(wrk, args, *requests[case, server])
                for case in CASES
                for server in SERVERS
            }
            measures[LIST, "service"] = functools.partial(
                wrk, args, ports["service"], LIST_PATH, {}
            )
            for reconnect, server in ((False, "pgbench"), (True, "pgbench -C")):
                measures[LIST, server] = functools.partial(
                    pgbench, args, url, options.get("options", ""), script, reconnect
                )
            for measure in measures.values():  # warm-up: first requests, caches; checks pgbench
                measure(1)
            results = {key: [] for key in measures}
            for rep in range(args.reps):
                print(f"repetition {rep + 1} of {args.reps}", file=sys.stderr)
                for key, measure in measures.items():
                    results[key].append(measure(args.seconds))
        finally:
            support.stop(*procs)
    report(results, len(list_sql))


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("interrupted: every server started was stopped")
