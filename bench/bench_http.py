"""HTTP throughput: bytes and list pages from gunicorn, through the shipped nginx, against static.

Run with ``python bench/bench_http.py`` (``make bench``); ``--quick`` is a smoke run (2 s per
run, one repetition, 2,000 fruits); ``--help`` lists the options. It needs PostgreSQL (the local
server as ``postgres`` unless ``DATABASE_URL`` names another), Debian's ``nginx`` and ``wrk``.
It loads the database ``fruitcatalog_http`` once with bench_scale's COPY loader (a fruit count
other than the one asked, or ``--reload``, loads it again) and gives fruit 1 a generated
4000x3000 photo-like JPEG (about 2.5 MB, thumbnail about 22 KB) through the model, so its
thumbnail and metadata are the service's own. The same bytes are written to a temporary folder.
On loopback, in one run:

- **gunicorn**: the service as the Dockerfile runs it (``--gunicorn-args`` changes the workers,
  threads or worker class), from the database, by the versioned URLs clients get;
- **nginx cache**: the shipped ``deploy/nginx.conf`` in front of that gunicorn, adapted to
  loopback as the slow-client proof and the edge cache's test adapt it
  (``core/testing/nginx.py``), its caches in the temporary folder: the same URLs, answered
  from its cache once a first request has filled it (``X-Cache-Status: HIT`` checked before the
  runs);
- **nginx static**: the same bytes as static files from that same nginx (a ``location`` added to
  its server block for the run): what its cache is compared with;
- **WhiteNoise**: the same gunicorn shape, serving the folder with WhiteNoise around the service's
  WSGI application (``whitenoise_app`` below, gunicorn's entry point): the floor's reference.

wrk drives them in turn (server after server, case after case, repetition after repetition) for
the thumbnail (200), the thumbnail revalidated with a matching ``If-None-Match`` (304) and the
large image (200); then ``GET /api/v1/fruits?page_size=24`` (the plain fruit list page) and the
public grid ``/``, straight from gunicorn and through the shipped nginx. Columns: ``req/s`` is
wrk's Requests/sec, ``p50``/``p99`` its latency percentiles in ms, each the median over the
repetitions; the ratio columns divide that row's req/s by the named row's for the same case;
``errors`` counts wrk's socket errors and responses other than 2xx/3xx; ``X-Cache-Status`` is
nginx's answer to a second request just before the runs. A page's p99 through nginx shows its
micro-cache's lock: the entry is gone when the page's next run starts (unread for a minute), and
the connections that ask while gunicorn renders it wait for nginx's next look at the lock, every
500 ms (a run that starts with the entry warm has a p99 of a few ms). The targets
(docs/performance.md) follow the tables (benchmarks, not tests: a miss is reported, the exit
status stays 0). Keep
``--connections`` at or under 20: the shipped nginx answers more requests in progress from one
address with 429. ``DATABASE_CONN_MAX_AGE`` and the other ``DJANGO_*`` settings pass through from
the environment.
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
from core.testing import nginx as nginx_loopback  # noqa: E402  (the project, after its path)

DATABASE = "fruitcatalog_http"
LIST_PATH = "/api/v1/fruits?page_size=24"
GRID_PATH = "/"
STATIC = "/static-bench/"  # the static location added to the shipped nginx for the run
BYTE_SERVERS = ["gunicorn", "nginx cache", "nginx static", "WhiteNoise"]
BYTE_CASES = ["thumbnail, 200", "thumbnail, 304 (If-None-Match)", "large image, 200"]
PAGE_SERVERS = ["gunicorn", "nginx"]
PAGE_CASES = {"fruit list page": LIST_PATH, "public grid": GRID_PATH}
# (case, server, over server, at least): the throughput targets of docs/performance.md.
TARGETS = [
    ("thumbnail, 200", "nginx cache", "nginx static", 0.8),
    ("large image, 200", "nginx cache", "nginx static", 0.8),
    ("thumbnail, 200", "gunicorn", "WhiteNoise", 0.4),
    ("thumbnail, 304 (If-None-Match)", "gunicorn", "WhiteNoise", 0.4),
]
STATIC_LOCATION = """
        # bench_http.py: the benchmark's bytes as static files of this same nginx.
        location {static} {{
            alias {folder}/;
            types {{ image/jpeg jpg; }}
        }}
"""


def whitenoise_app(root: str):
    """gunicorn's entry for the WhiteNoise server: `root` at /, the service's app behind it."""
    from whitenoise import WhiteNoise

    from fruitcatalog.wsgi import application

    return WhiteNoise(application, root=root)


def prepare(args) -> tuple[dict, str, str, bytes, bytes]:
    """The database loaded: its settings, the versioned thumbnail and image paths and bytes."""
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

    from catalog.models import Fruit, FruitImage

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
        image.store(support.photo_jpeg())
        image.save()
    database = settings.DATABASES["default"]
    return (
        database,
        image.get_thumbnail_url(),
        image.get_data_url(),
        bytes(image.thumbnail_data),
        bytes(image.data),
    )


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


def serve(procs: list, args, tmp: Path, nginx: str) -> dict[str, int]:
    """Start gunicorn, WhiteNoise's gunicorn and the shipped nginx; their ports once they answer."""
    ports = {server: support.free_port() for server in ("gunicorn", "WhiteNoise", "nginx")}
    env = {**os.environ, "DJANGO_DEBUG": "0", "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost"}
    gunicorn = [sys.executable, "-m", "gunicorn", *shlex.split(args.gunicorn_args)]
    whitenoise = [f"bench_http:whitenoise_app({str(tmp / 'static')!r})", "--pythonpath", str(BENCH)]
    for server, app in (("gunicorn", ["fruitcatalog.wsgi"]), ("WhiteNoise", whitenoise)):
        log = tmp / f"{server}.log"
        command = [*gunicorn, *app, "--bind", f"127.0.0.1:{ports[server]}"]
        wait_ready(support.start(procs, command, env, log), ports[server], "/health", log)
    static = STATIC_LOCATION.format(static=STATIC, folder=tmp / "static")
    try:
        config = nginx_loopback.loopback_config(
            tmp, ports["nginx"], ports["gunicorn"], server_extra=static
        )
    except ValueError as error:
        sys.exit(str(error))
    (tmp / "nginx.conf").write_text(config)
    command = nginx_loopback.command(nginx, tmp, tmp / "nginx.conf")
    proc = support.start(procs, command, env, tmp / "nginx.out")
    wait_ready(proc, ports["nginx"], f"{STATIC}large.jpg", tmp / "error.log")
    return ports


def check_bytes(server: str, port: int, paths: tuple[str, str], thumbnail: bytes, large: bytes):
    """The server's bytes are the service's; the request of each case, as (port, path, headers)."""
    thumbnail_path, large_path = paths
    for _ in range(2):  # the first fills nginx's cache
        status, headers, body = support.get(port, thumbnail_path)
        assert (status, body) == (200, thumbnail), (server, status, len(body))
        status, _, body = support.get(port, large_path)
        assert (status, body) == (200, large), (server, status, len(body))
    match = {"If-None-Match": headers["ETag"]}
    status = support.get(port, thumbnail_path, match)[0]
    assert status == 304, (server, status)
    if server == "nginx cache":
        for path, extra in ((thumbnail_path, {}), (thumbnail_path, match), (large_path, {})):
            cached = support.get(port, path, extra)[1].get("X-Cache-Status")
            assert cached == "HIT", f"nginx did not answer {path} {extra} from its cache: {cached}"
    return {
        BYTE_CASES[0]: (port, thumbnail_path, {}),
        BYTE_CASES[1]: (port, thumbnail_path, match),
        BYTE_CASES[2]: (port, large_path, {}),
    }


def median(runs: list[dict], key: str) -> float:
    return statistics.median(run[key] for run in runs)


def rate(results: dict, case: str, server: str) -> float:
    return median(results[case, server], "rps")


def report(results: dict, cache_status: dict) -> None:
    """Print the tables and the targets from the runs of each (case, server)."""
    print("### The same bytes four ways\n")
    print("| case | server | req/s | p50 ms | p99 ms | ÷ nginx static | ÷ WhiteNoise | errors |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for case in BYTE_CASES:
        static, whitenoise = rate(results, case, "nginx static"), rate(results, case, "WhiteNoise")
        for server in BYTE_SERVERS:
            runs, rps = results[case, server], rate(results, case, server)
            print(
                f"| {case} | {server} | {rps:,.0f} | {median(runs, 'p50'):.2f} | "
                f"{median(runs, 'p99'):.2f} | {rps / static:.3f} | {rps / whitenoise:.2f} | "
                f"{sum(r['errors'] for r in runs)} |"
            )
    print("\n### Pages, straight from gunicorn and through the shipped nginx\n")
    print("| page | server | req/s | p50 ms | p99 ms | ÷ gunicorn | X-Cache-Status | errors |")
    print("|---|---|---:|---:|---:|---:|---|---:|")
    for case, path in PAGE_CASES.items():
        direct = rate(results, case, "gunicorn")
        for server in PAGE_SERVERS:
            runs, rps = results[case, server], rate(results, case, server)
            status = cache_status.get((case, server)) or "—"
            print(
                f"| `{path}` | {server} | {rps:,.0f} | {median(runs, 'p50'):.2f} | "
                f"{median(runs, 'p99'):.2f} | {rps / direct:.2f} | {status} | "
                f"{sum(r['errors'] for r in runs)} |"
            )
    print("\n### Targets\n")
    print("| case | ratio | measured | target | |")
    print("|---|---|---:|---:|---|")
    for case, server, over, least in TARGETS:
        ratio = rate(results, case, server) / rate(results, case, over)
        verdict = "met" if ratio >= least else "MISSED"
        print(f"| {case} | {server} ÷ {over} | {ratio:.2f} | ≥ {least:g} | {verdict} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fruits", type=int, default=100_000)
    parser.add_argument("--reload", action="store_true", help="drop and load the data again")
    parser.add_argument("--seconds", type=float, default=10, help="length of each run")
    parser.add_argument("--reps", type=int, default=3, help="repetitions of the whole round")
    parser.add_argument("--connections", type=int, default=16, help="wrk -c (at most 20)")
    parser.add_argument("--threads", type=int, default=2, help="wrk -t")
    parser.add_argument("--gunicorn-args", default="--workers 3 --timeout 60")
    parser.add_argument("--quick", action="store_true", help="2 s runs, 1 rep, 2,000 fruits")
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.reps, args.fruits = 2, 1, 2000
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # clean up as on Ctrl-C
    nginx = nginx_loopback.nginx_binary()
    if not nginx:
        sys.exit("bench_http needs nginx (apt-get install nginx)")
    for tool in ("wrk", "psql"):
        if not shutil.which(tool):
            sys.exit(f"bench_http needs {tool}")

    database, thumbnail_path, large_path, thumbnail, large = prepare(args)
    options = database.get("OPTIONS", {})
    print(f"## HTTP serving on {os.cpu_count()} cores (load average {os.getloadavg()[0]:.2f})\n")
    settings_used = [
        f"{args.fruits:,} fruits",
        f"gunicorn `{args.gunicorn_args}`",
        "nginx `deploy/nginx.conf`",
        f"CONN_MAX_AGE {database['CONN_MAX_AGE']} (DATABASE_CONN_MAX_AGE)",
        f"server-side binding {options.get('server_side_binding', False)}",
        f"wrk -t{args.threads} -c{args.connections} -d{args.seconds:g}s",
        f"median of {args.reps} interleaved repetition(s)",
        f"thumbnail {len(thumbnail) / 1024:.1f} KB, large image {len(large) / 1e6:.2f} MB",
    ]
    print("; ".join(settings_used) + ".\n", flush=True)
    procs: list[subprocess.Popen] = []
    with tempfile.TemporaryDirectory(prefix="bench-http-") as tmp_name:
        tmp = Path(tmp_name)
        tmp.chmod(0o755)  # nginx's workers run as www-data when this runs as root
        (tmp / "static").mkdir(mode=0o755)
        (tmp / "static" / "thumbnail.jpg").write_bytes(thumbnail)
        (tmp / "static" / "large.jpg").write_bytes(large)
        for path in (tmp / "static").iterdir():
            path.chmod(0o644)
        service = (thumbnail_path, large_path)
        paths = {
            "gunicorn": service,
            "nginx cache": service,
            "nginx static": (f"{STATIC}thumbnail.jpg", f"{STATIC}large.jpg"),
            "WhiteNoise": ("/thumbnail.jpg", "/large.jpg"),
        }
        try:
            ports = serve(procs, args, tmp, nginx)
            port_of = {"gunicorn": ports["gunicorn"], "WhiteNoise": ports["WhiteNoise"]}
            port_of["nginx cache"] = port_of["nginx static"] = ports["nginx"]
            requests = {}  # (case, server) -> (port, path, headers)
            for server in BYTE_SERVERS:
                checked = check_bytes(server, port_of[server], paths[server], thumbnail, large)
                requests.update({(case, server): request for case, request in checked.items()})
            cache_status = {}
            for case, path in PAGE_CASES.items():
                for server in PAGE_SERVERS:
                    port = ports[server]
                    for _ in range(2):  # the second may come from a cache
                        status, headers, _ = support.get(port, path)
                        assert status == 200, (case, server, status)
                    cache_status[case, server] = headers.get("X-Cache-Status")
                    requests[case, server] = (port, path, {})
            measures = {key: functools.partial(wrk, args, *req) for key, req in requests.items()}
            for measure in measures.values():  # warm-up: first requests, connections, caches
                measure(1)
            results = {key: [] for key in measures}
            for rep in range(args.reps):
                print(f"repetition {rep + 1} of {args.reps}", file=sys.stderr)
                for key, measure in measures.items():
                    results[key].append(measure(args.seconds))
        finally:
            support.stop(*procs)
    report(results, cache_status)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("interrupted: every server started was stopped")
