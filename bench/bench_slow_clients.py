"""Slow clients: /health under a slowloris attack, straight to gunicorn and behind nginx.

Run with ``python bench/bench_slow_clients.py`` (CI runs it; about 45 s). It needs Debian's
``nginx`` (``/usr/sbin/nginx``) and nothing else: the database is a throwaway SQLite file.

On free loopback ports it starts gunicorn with the Dockerfile's command (read from its ``CMD``;
only the address changes, and the access log also records the forwarded headers) and nginx with
``deploy/nginx.conf``, adapted the one way the config allows (the lines marked ``bench:``, by
``core/testing/nginx.py``, which the edge cache's test and bench_http.py share): upstream
and listen address on loopback, logs, temporary files and caches in a temporary folder, and
``pid``/``daemon`` given with ``-g``. Then:

1. Checks through nginx: a 6 MiB ``POST /api/v1/auth/token`` is refused by nginx itself (413,
   ``{"detail": ...}``, and gunicorn never sees it); a normal request reaches the app with
   ``Host``, ``X-Forwarded-Host``, ``-Proto`` and ``-For`` set by nginx (a client's own
   ``X-Forwarded-For`` is replaced).
2. Baseline: ``--connections`` slow connections straight to gunicorn, each sending a request line
   and then one header byte every 2 s, reconnecting when the server closes it, for ``--seconds``;
   meanwhile ``GET /health`` every 0.5 s with a 1 s timeout. Expected to starve: reported, not
   failed on.
3. The same attack and probes through nginx.
4. With gunicorn stopped, nginx answers the API's 502 as ``{"detail": ...}``.

It prints a markdown table (target, probes, answered < 1 s, worst latency, verdict) and the
attack's figures, and exits 1 if ``/health`` through nginx ever failed or took 1 s or more, or a
check failed.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import http.client
import json
import os
import re
import select
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import support  # bench/support.py, beside this script

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from core.testing import nginx as nginx_loopback  # noqa: E402  (the project, after its path)

PROBE_EVERY = 0.5  # seconds between two /health probes
PROBE_TIMEOUT = 1.0  # a probe slower than this counts as failed
TRICKLE_EVERY = 2.0  # seconds between two header bytes of a slow connection
# What gunicorn's access log records besides the request: the headers nginx sets.
ACCESS_FORMAT = (
    '%(h)s "%(r)s" %(s)s host=%({host}i)s xfh=%({x-forwarded-host}i)s '
    "xfp=%({x-forwarded-proto}i)s xff=%({x-forwarded-for}i)s"
)


# --- Processes -----------------------------------------------------------------------------------


def dockerfile_command(port: int) -> list[str]:
    """The Dockerfile's CMD (gunicorn run by this Python), bound to loopback on `port`."""
    cmd = re.search(r"^CMD (\[.*\])$", (ROOT / "Dockerfile").read_text(), re.M)
    if not cmd:
        sys.exit("no CMD [...] line in the Dockerfile")
    command = json.loads(cmd.group(1))
    assert command[0] == "gunicorn" and "--bind" in command, command
    command[command.index("--bind") + 1] = f"127.0.0.1:{port}"
    return [sys.executable, "-m", *command, "--access-logformat", ACCESS_FORMAT]


def nginx_config(tmp: Path, listen: int, upstream: int) -> str:
    """deploy/nginx.conf on loopback, its logs, temporary files and caches in `tmp`."""
    try:
        return nginx_loopback.loopback_config(tmp, listen, upstream)
    except ValueError as error:
        sys.exit(str(error))


def wait_healthy(port: int, logs: list[Path], seconds: float = 90) -> float:
    """Wait until /health answers 200; the seconds waited."""
    begin = time.monotonic()
    while time.monotonic() - begin < seconds:
        with contextlib.suppress(OSError):
            if support.get(port, "/health", timeout=2)[0] == 200:
                return time.monotonic() - begin
        time.sleep(0.2)
    tails = "\n".join(f"--- {log}\n{log.read_text()[-3000:]}" for log in logs if log.exists())
    sys.exit(f"/health on port {port} did not answer within {seconds:.0f} s\n{tails}")


# --- The attack and the probes -------------------------------------------------------------------


@dataclass
class Attack:
    """Slow connections kept open against one port until `stop` is set."""

    port: int
    connections: int
    stop: threading.Event = field(default_factory=threading.Event)
    opened: int = 0
    connect_failures: int = 0
    lifetimes: list[float] = field(default_factory=list)  # of those the server closed
    lock: threading.Lock = field(default_factory=threading.Lock)

    def run(self) -> list[threading.Thread]:
        threads = [
            threading.Thread(target=self.client, daemon=True) for _ in range(self.connections)
        ]
        for thread in threads:
            thread.start()
        return threads

    def client(self) -> None:
        """One slowloris connection: a request line, then a header byte every TRICKLE_EVERY s."""
        while not self.stop.is_set():
            try:
                sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
            except OSError:
                with self.lock:
                    self.connect_failures += 1
                self.stop.wait(0.5)
                continue
            with self.lock:
                self.opened += 1
            began = time.monotonic()
            try:
                sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                while not self.stop.wait(TRICKLE_EVERY):
                    if select.select([sock], [], [], 0)[0] and not sock.recv(4096):
                        raise ConnectionResetError  # the server closed it (or answered)
                    sock.sendall(b"a")
            except OSError:
                with self.lock:
                    self.lifetimes.append(time.monotonic() - began)
            finally:
                sock.close()


def probe(port: int) -> tuple[bool, float]:
    """GET /health: (200 within PROBE_TIMEOUT, seconds taken)."""
    began = time.monotonic()
    try:
        status = support.get(port, "/health", timeout=PROBE_TIMEOUT)[0]
    except OSError:
        return False, time.monotonic() - began
    took = time.monotonic() - began
    return status == 200 and took < PROBE_TIMEOUT, took


def attacked(port: int, connections: int, seconds: float) -> dict:
    """Attack `port` for `seconds` while probing its /health; the figures."""
    attack = Attack(port, connections)
    threads = attack.run()
    time.sleep(1)  # every slow connection open before the first probe
    futures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        began = time.monotonic()
        for tick in range(int(seconds / PROBE_EVERY)):
            time.sleep(max(0.0, began + tick * PROBE_EVERY - time.monotonic()))
            futures.append(pool.submit(probe, port))
        results = [future.result() for future in futures]
    attack.stop.set()
    for thread in threads:
        thread.join(timeout=10)
    answered = [took for ok, took in results if ok]
    return {
        "probes": len(results),
        "answered": len(answered),
        "failed": len(results) - len(answered),
        "worst": max(took for _, took in results),
        "opened": attack.opened,
        "connect_failures": attack.connect_failures,
        "closed": len(attack.lifetimes),
        "lifetime": statistics.median(attack.lifetimes) if attack.lifetimes else None,
    }


# --- Checks through nginx ------------------------------------------------------------------------


def check(failures: list[str], ok: bool, what: str) -> None:
    print(f"- {'ok' if ok else 'FAILED'}: {what}")
    if not ok:
        failures.append(what)


def json_detail(headers, body: bytes) -> bool:
    try:
        detail = json.loads(body).get("detail")
    except (ValueError, AttributeError):
        return False
    return headers.get("Content-Type", "").startswith("application/json") and bool(detail)


def check_limits_and_headers(failures: list[str], port: int, app_log: Path) -> None:
    """The 6 MiB POST refused by nginx; a normal request forwarded with the X-Forwarded-* set."""
    body = b"{" + b" " * (6 * 1024 * 1024 - 2) + b"}"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(
            "POST", "/api/v1/auth/token", body=body, headers={"Content-Type": "application/json"}
        )
        response = conn.getresponse()
        status, headers, answer = response.status, response.headers, response.read()
    finally:
        conn.close()
    check(
        failures,
        status == 413 and json_detail(headers, answer),
        f"6 MiB POST /api/v1/auth/token through nginx: {status} {answer.decode()[:90].strip()}",
    )
    host = f"localhost:{port}"
    status, headers, answer = support.get(
        port, "/api/v1/fruits?page_size=1", {"Host": host, "X-Forwarded-For": "203.0.113.9"}
    )
    check(
        failures, status == 200 and "results" in json.loads(answer), f"GET /api/v1/fruits: {status}"
    )
    time.sleep(0.5)  # gunicorn writes its access log line after the response
    log = app_log.read_text()
    check(failures, "POST /api/v1/auth/token" not in log, "gunicorn never saw the 6 MiB POST")
    line = next((x for x in log.splitlines() if "GET /api/v1/fruits?page_size=1" in x), "")
    expected = f"host={host} xfh={host} xfp=http xff=127.0.0.1"
    check(failures, expected in line, f"gunicorn got {expected} (the client's XFF replaced)")


# --- Report --------------------------------------------------------------------------------------


def row(target: str, figures: dict, expect_starved: bool) -> str:
    worst = figures["worst"]
    worst_text = f"{worst:.3f} s" if worst < PROBE_TIMEOUT else f"≥ {PROBE_TIMEOUT:g} s (timed out)"
    if figures["failed"] == 0:
        verdict = "PASS: unaffected" if not expect_starved else "unaffected"
    elif expect_starved:
        verdict = "starved (expected without nginx)"
    else:
        verdict = "FAIL"
    return f"| {target} | {figures['probes']} | {figures['answered']} | {worst_text} | {verdict} |"


def attack_line(target: str, figures: dict) -> str:
    lifetime = figures["lifetime"]
    closed = (
        f"{figures['closed']} closed by the server (median after {lifetime:.1f} s)"
        if lifetime is not None
        else "none closed by the server"
    )
    return (
        f"- {target}: {figures['opened']} slow connections opened, {closed}, "
        f"{figures['connect_failures']} connect failures"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20, help="length of each attack")
    parser.add_argument("--connections", type=int, default=50, help="slow connections")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # clean up as on Ctrl-C
    nginx = nginx_loopback.nginx_binary()
    if not nginx:
        sys.exit("bench_slow_clients needs nginx (apt-get install nginx)")

    procs: list[subprocess.Popen] = []
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench-slow-clients-") as tmp_name:
        tmp = Path(tmp_name)
        tmp.chmod(0o755)  # nginx's workers run as www-data when this runs as root
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "REDIS_"))},
            "DATABASE_URL": f"sqlite:///{tmp / 'db.sqlite3'}",
            "DJANGO_SECRET_KEY": "bench-slow-clients-only",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DJANGO_DEBUG": "0",
            "DJANGO_BEHIND_PROXY": "1",
            "DJANGO_NUM_PROXIES": "1",
        }
        migrate = [sys.executable, "manage.py", "migrate", "--noinput", "-v0"]
        subprocess.run(migrate, cwd=ROOT, env=env, check=True)
        app_port, nginx_port = support.free_port(), support.free_port()
        app_log, nginx_log = tmp / "gunicorn.log", tmp / "error.log"
        (tmp / "nginx.conf").write_text(nginx_config(tmp, nginx_port, app_port))
        nginx_cmd = nginx_loopback.command(nginx, tmp, tmp / "nginx.conf")
        gunicorn_cmd = dockerfile_command(app_port)
        try:
            app = support.start(procs, gunicorn_cmd, env, app_log)
            support.start(procs, nginx_cmd, env, tmp / "nginx.out")
            wait_healthy(app_port, [app_log])
            wait_healthy(nginx_port, [nginx_log, tmp / "nginx.out"])
            print(f"## Slow clients on loopback ({os.cpu_count()} cores)\n")
            print(f"gunicorn: `{' '.join(gunicorn_cmd[2:-2])}`; nginx: deploy/nginx.conf.\n")
            check_limits_and_headers(failures, nginx_port, app_log)

            print(f"\nAttacking gunicorn directly for {args.seconds:g} s ...", file=sys.stderr)
            direct = attacked(app_port, args.connections, args.seconds)
            recovery = wait_healthy(app_port, [app_log])
            print(f"Attacking through nginx for {args.seconds:g} s ...", file=sys.stderr)
            proxied = attacked(nginx_port, args.connections, args.seconds)

            support.stop(app)
            status, headers, body = support.get(nginx_port, "/api/v1/fruits")
            check(
                failures,
                status == 502 and json_detail(headers, body),
                f"gunicorn stopped: nginx answers /api/v1/fruits {status} "
                f"{body.decode()[:70].strip()}",
            )
        finally:
            for proc in reversed(procs):
                support.stop(proc)

    print(
        f"\n### /health during {args.connections} slowloris connections, {args.seconds:g} s "
        f"(probe every {PROBE_EVERY:g} s, {PROBE_TIMEOUT:g} s timeout)\n"
    )
    print("| target | probes | answered < 1 s | worst latency | verdict |")
    print("|---|---:|---:|---:|---|")
    print(row("gunicorn direct (Dockerfile: 3 sync workers)", direct, expect_starved=True))
    print(row("nginx (deploy/nginx.conf) → gunicorn", proxied, expect_starved=False))
    print()
    print(attack_line("gunicorn direct", direct))
    print(f"  gunicorn answered /health again {recovery:.1f} s after the attack stopped")
    print(attack_line("nginx", proxied))
    if proxied["failed"]:
        failures.append("/health through nginx failed or took ≥ 1 s under attack")
    if failures:
        print("\nFAILED:\n" + "\n".join(f"- {failure}" for failure in failures))
        return 1
    print("\nPASS: nginx kept /health answering under 1 s; every check passed.")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit("interrupted: every server started was stopped")
