"""The cost of checking hostile uploads: CPU seconds and peak memory per case, against the budget.

Run with ``python bench/bench_hostile.py`` (part of ``make bench``). Each case is built in memory,
written to a temporary file and checked in a fresh Python process — the check the API and the
admin run on an upload (`check_image_bytes`: inspect and thumbnail; `validate_pdf_bytes`) —
which reports its CPU time and its peak resident set above the process after start-up (Django,
Pillow and pypdf imported; the high-water mark is reset before the check). The PDF check parses in
a worker process of its own (`blobs.pdf_worker`): its CPU time is added, and its whole peak
resident set (as the kernel counts it, at least this process's when it started the worker). The
budget for an image: 2 s of CPU and 300 MB; for a PDF, the worker's bounds
(`blobs.pdf`: MAX_CPU_SECONDS, MAX_MEMORY_BYTES) plus its start-up (the interpreter, pypdf and the
file). The script exits 1 when a case is over its budget.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

IMAGE_BUDGET = (2.0, 300.0)  # CPU seconds, megabytes
# What the PDF worker's start-up adds to its bounds: about 0.2 s of CPU and 60 MB.
WORKER_START_UP = (1.0, 100.0)

CHILD = r"""
import json, os, resource, sys, time
import django
django.setup()
from django.core.exceptions import ValidationError
from blobs.pdf import validate_pdf_bytes
from blobs.uploads import check_image_bytes

kind, path = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
check = validate_pdf_bytes if kind == "pdf" else check_image_bytes
def status_kb(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
# Reset the high-water mark of the resident set (Linux), so the peak is the check's own.
with open("/proc/self/clear_refs", "w") as refs:
    refs.write("5")
def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
baseline = status_kb("VmRSS")
start, children_start = time.process_time(), children_cpu()
try:
    check(data)
    outcome = "accepted"
except ValidationError as error:
    outcome = "refused: " + " ".join(error.messages)
workers_cpu = children_cpu() - children_start
cpu = time.process_time() - start + workers_cpu
peak = status_kb("VmHWM")
# The PDF worker's peak as the kernel counts a child's: from the moment it is started, so at least
# the resident set of this process then (the child runs on this process's memory until it loads
# the interpreter), or of a larger child django.setup() ran. An image's check starts no process.
children_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if workers_cpu else 0
rss_mb = (peak - baseline + children_peak) / 1024
print(json.dumps({"cpu": cpu, "rss_mb": rss_mb, "outcome": outcome}))
"""


def image_cases():
    from core.testing import media

    return [
        (
            "PNG, 436,890 empty chunks before IDAT",
            lambda: media.solid_png(1, 1, chunks=media.png_chunk(b"prVt") * 436_890),
        ),
        ("progressive JPEG 7071x7071, 100 scans", lambda: media.progressive_jpeg(7071, 7071, 100)),
        ("lossless WebP 16383x3051 (header only)", lambda: media.lossless_webp(16383, 3051)),
        (
            "16-bit RGBA PNG 7071x7071",
            lambda: media.solid_png(
                7071, 7071, b"\x10\x00\x20\x00\x30\x00\xff\xff", bit_depth=16, colour_type=6
            ),
        ),
        ("GIF of 349,524 1x1 frames", lambda: media.gif_of_frames(349_524)),
        (
            "accepted: RGBA PNG 8000x6000",
            lambda: media.solid_png(8000, 6000, b"\x10\x20\x30\xff", colour_type=6),
        ),
        (
            "accepted: progressive JPEG 2000x2000, 100 scans",
            lambda: media.progressive_jpeg(2000, 2000, 100),
        ),
    ]


def pdf_cases():
    """The security review's hostile PDFs (name -> builder), which the PDF tests check too."""
    from core.testing.pdfs import HOSTILE_PDFS

    return list(HOSTILE_PDFS.items())


def measure(kind: str, data: bytes) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".bin") as handle:
        handle.write(data)
        handle.flush()
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "fruitcatalog.settings"}
        env.pop("DATABASE_URL", None)
        result = subprocess.run(
            [sys.executable, "-c", CHILD, kind, handle.name],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fruitcatalog.settings")
    import django

    django.setup()
    from blobs import pdf

    budgets = {
        "image": IMAGE_BUDGET,
        "pdf": (
            pdf.MAX_CPU_SECONDS + WORKER_START_UP[0],
            pdf.MAX_MEMORY_BYTES / 1e6 + WORKER_START_UP[1],
        ),
    }
    cases = [("image", *case) for case in image_cases()]
    cases += [("pdf", *case) for case in pdf_cases()]
    budget = ", ".join(f"{kind} {c:.0f} s CPU, {mb:.0f} MB" for kind, (c, mb) in budgets.items())
    print(f"## Hostile cost (fresh process per case; budget: {budget})\n")
    print("| case | bytes | CPU s | peak RSS MB | outcome | within budget |")
    print("|---|---|---|---|---|---|")
    passed = True
    for kind, name, build in cases:
        data = build()
        result = measure(kind, data)
        cpu_budget, memory_budget = budgets[kind]
        within = result["cpu"] <= cpu_budget and result["rss_mb"] <= memory_budget
        passed &= within
        outcome = result["outcome"]
        if len(outcome) > 90:
            outcome = outcome[:87] + "..."
        print(
            f"| {name} | {len(data):,} | {result['cpu']:.2f} | {result['rss_mb']:.0f} | "
            f"{outcome} | {'yes' if within else 'NO'} |"
        )
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
