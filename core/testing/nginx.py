"""deploy/nginx.conf on loopback: the one adaptation the nginx proofs share.

The edge cache's test (`tests/test_edge_cache.py`) and the benchmarks
(`bench/bench_slow_clients.py`, `bench/bench_http.py`) run Debian's nginx with the shipped config,
changed only where its lines marked ``bench:`` say: the upstream and the listen address on
loopback, the logs, temporary files and cache directories in a temporary folder, and ``pid`` and
``daemon`` given on the command line. A line that is not found as expected is an error, so the
config cannot drift away from what the proofs run.
"""

import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NGINX_CONF = ROOT / "deploy" / "nginx.conf"
BYTES_MAX_SIZE = "max_size=1g"  # the byte cache's bound as shipped
CACHES = 2  # proxy_cache_path lines


def nginx_binary() -> str | None:
    """Debian's nginx (`/usr/sbin/nginx`, not on a normal user's PATH), else the one on PATH."""
    return "/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else shutil.which("nginx")


def loopback_config(
    tmp: Path, listen: int, upstream: int, *, bytes_max_size: str = "", server_extra: str = ""
) -> str:
    """deploy/nginx.conf listening on 127.0.0.1:`listen`, proxying to 127.0.0.1:`upstream`.

    Logs, temporary files and cache directories go to `tmp` (the byte cache to
    `tmp/cache-bytes`). `bytes_max_size` (e.g. "1m") replaces the byte cache's bound;
    `server_extra` is added to the server block (a benchmark's static location). Raises
    ValueError when a line to adapt is not in the config as expected.
    """
    text = NGINX_CONF.read_text()
    temp_paths = "".join(
        f"    {name}_temp_path {tmp / name};\n"
        for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    edits = [
        ("server app:8000;", f"server 127.0.0.1:{upstream};", 1),
        ("listen 80 default_server;", f"listen 127.0.0.1:{listen} default_server;", 1),
        ("/var/log/nginx/", f"{tmp}/", 2),
        ("proxy_cache_path /var/cache/fruitcatalog-", f"proxy_cache_path {tmp}/cache-", CACHES),
        ("\nhttp {\n", "\nhttp {\n" + temp_paths, 1),
    ]
    if bytes_max_size:
        edits.append((BYTES_MAX_SIZE, f"max_size={bytes_max_size}", 1))
    if server_extra:
        anchor = "        limit_conn per_address 20;\n"
        edits.append((anchor, anchor + server_extra, 1))
    for old, new, count in edits:
        if text.count(old) != count:
            raise ValueError(
                f"deploy/nginx.conf: expected {count} x {old.strip()!r} to adapt for loopback"
            )
        text = text.replace(old, new)
    return text


def command(nginx: str, tmp: Path, conf: Path) -> list[str]:
    """nginx in the foreground on `conf`, its pid file and start-up errors in `tmp`."""
    return [
        nginx,
        *("-p", str(tmp), "-e", str(tmp / "error.log"), "-c", str(conf)),
        *("-g", f"daemon off; pid {tmp / 'nginx.pid'};"),
    ]
