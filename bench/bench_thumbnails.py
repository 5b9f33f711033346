"""Benchmark of `make_thumbnail` against the naive full-resolution Pillow pipeline.

Run from anywhere: ``python bench/bench_thumbnails.py [--runs 7] [--only 4000x3000]``. Images
are generated in memory; the script prints one Markdown table per section and exits 1 when a
target is missed. This section needs no Django. Sections are plain functions listed in SECTIONS,
each taking the parsed arguments and returning (markdown, passed): one that needs Django sets it
up inside itself (django.setup() with DJANGO_SETTINGS_MODULE) and is appended to the list.
"""

from __future__ import annotations

import argparse
import gc
import io
import multiprocessing
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PIL import Image, ImageChops, ImageDraw

from blobs import imaging
from blobs.imaging import thumbnails
from blobs.tests.reference import (
    mean_difference,
    naive_thumbnail,
    naive_thumbnail_image,
)

MAX_BOX_DIFFERENCE = 3
MAX_MEAN_PIXEL_DIFFERENCE = 2.0


@dataclass(frozen=True)
class Case:
    """One benchmarked image and the targets it must meet."""

    name: str
    make: Callable[[], bytes]
    min_speedup: float
    max_peak_mb: float | None = None
    max_peak_vs_naive: float | None = None


# --- generated images -------------------------------------------------------------------------


def photo_jpeg(width: int, height: int, *, quality: int = 90, grain: float = 12) -> bytes:
    """A studio-like photo: light, graded, slightly noisy background; textured object in the middle.

    ``grain`` is the strength of pixel-level noise on the object (sensor noise, fine texture),
    which is what makes a JPEG of a given size large.
    """
    noise = Image.effect_noise((width // 2, height // 2), 2).resize(
        (width, height), Image.Resampling.BILINEAR
    )
    shade = Image.linear_gradient("L").resize((width, height)).point(lambda v: v // 16)
    grey = ImageChops.subtract(ImageChops.add(noise, Image.new("L", (width, height), 108)), shade)
    photo = Image.merge(
        "RGB", [grey, grey, ImageChops.subtract(grey, Image.new("L", (width, height), 6))]
    )
    photo.paste(*_textured_object(width, height, grain))
    out = io.BytesIO()
    photo.save(out, "JPEG", quality=quality)
    return out.getvalue()


def _textured_object(width: int, height: int, grain: float):
    """An ellipse, 60% of each side, shaded and textured at several scales as natural images are."""
    object_width, object_height = size = int(width * 0.6), int(height * 0.6)
    ramp = Image.linear_gradient("L").resize(size)
    bands = [ramp, ImageChops.invert(ramp), Image.linear_gradient("L").rotate(90).resize(size)]
    # Blotches a few across the object and finer ones, weaker (natural images lose amplitude as
    # frequency grows), then grain: sensor noise and fine texture, at the pixel level.
    octaves = [(8, 40), (32, 16)]
    for index, band in enumerate(bands):
        for cells, sigma in octaves:
            small = (cells, max(1, cells * object_height // object_width))
            layer = Image.effect_noise(small, sigma).resize(size, Image.Resampling.BICUBIC)
            band = ImageChops.add(band, layer, 1, -128)
        bands[index] = ImageChops.add(band, Image.effect_noise(size, grain), 1, -128)
    mask = Image.new("L", size, 0)
    ImageDraw.Draw(mask).ellipse((0, 0, object_width - 1, object_height - 1), fill=255)
    # Off the 8-pixel JPEG block grid, as a real object would be.
    offset = ((width - object_width) // 2 + 3, (height - object_height) // 2 + 5)
    return Image.merge("RGB", bands), offset, mask


def with_orientation(jpeg: bytes, orientation: int) -> bytes:
    """The same JPEG with an EXIF block carrying ``orientation`` inserted after SOI."""
    exif = Image.Exif()
    exif[0x0112] = orientation
    payload = exif.tobytes()
    return jpeg[:2] + b"\xff\xe1" + (len(payload) + 2).to_bytes(2, "big") + payload + jpeg[2:]


def rgba_png(size: int) -> bytes:
    """A cut-out product shot: textured opaque object on a fully transparent square."""
    image = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    thing, offset, mask = _textured_object(size, size, 12)
    image.paste(thing.convert("RGBA"), offset, mask)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


CASES = [
    Case(
        "4000x3000 JPEG, object on light background",
        lambda: photo_jpeg(4000, 3000),
        5,
        max_peak_mb=16,
    ),
    Case("6000x4000 JPEG near 5 MB", lambda: photo_jpeg(6000, 4000, grain=20), 6, max_peak_mb=16),
    Case(
        "4000x3000 JPEG, EXIF orientation 6",
        lambda: with_orientation(photo_jpeg(4000, 3000), 6),
        4,
        max_peak_mb=16,
    ),
    Case("1200x900 JPEG", lambda: photo_jpeg(1200, 900), 1.7),
    Case("3000x3000 RGBA PNG (decode-bound)", lambda: rgba_png(3000), 1.2, max_peak_vs_naive=1.2),
]

PIPELINES = {"naive": naive_thumbnail, "ours": imaging.make_thumbnail}


# --- measurements -----------------------------------------------------------------------------


def median_times(data: bytes, runs: int) -> dict[str, float]:
    """Median seconds per pipeline, runs interleaved so load on the machine hits both alike."""
    times: dict[str, list[float]] = {name: [] for name in PIPELINES}
    for pipeline in PIPELINES.values():
        pipeline(data)
    for _ in range(runs):
        for name, pipeline in PIPELINES.items():
            started = time.perf_counter()
            pipeline(data)
            times[name].append(time.perf_counter() - started)
    return {name: statistics.median(values) for name, values in times.items()}


def peak_extra_mb(pipeline_name: str, path: str) -> float:
    """Peak resident memory one call adds, measured in a fresh process.

    Pillow allocates pixels with its own allocator, out of tracemalloc's sight, so the honest
    number is the process's resident high-water mark. Writing 5 to /proc/self/clear_refs resets
    VmHWM to the current RSS after imports, the input bytes and a warm-up call on a tiny image of
    the same format (plugins, libmagic's database); VmHWM after the call minus VmRSS before it is
    what the call itself needed. Without /proc, ru_maxrss is the fallback and can only undercount.
    """
    context = multiprocessing.get_context("spawn")
    with context.Pool(1) as pool:
        return pool.apply(_measure_in_child, (pipeline_name, path))


def _measure_in_child(pipeline_name: str, path: str) -> float:
    data = Path(path).read_bytes()
    pipeline = PIPELINES[pipeline_name]
    pipeline(_tiny_like(data))
    gc.collect()
    try:
        Path("/proc/self/clear_refs").write_text("5")
        before = _status_kib("VmRSS")
        pipeline(data)
        return (_status_kib("VmHWM") - before) / 1024
    except OSError:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        pipeline(data)
        return (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise OSError(f"{field} not in /proc/self/status")


def _tiny_like(data: bytes) -> bytes:
    image = Image.open(io.BytesIO(data))
    tiny = Image.new(image.mode, (64, 48), "white")
    ImageDraw.Draw(tiny).rectangle((10, 10, 30, 30), fill="red")
    out = io.BytesIO()
    tiny.save(out, image.format)
    return out.getvalue()


def equivalence(data: bytes) -> tuple[int, float, float]:
    """Crop-box difference (full-resolution px) and mean |pixel difference| vs the naive pipeline.

    The pixel difference is taken before JPEG encoding, where the two pipelines differ; the
    encoder is the same for both, but on grainy content its quantization noise alone differs by
    about 3 levels as soon as the inputs differ at all, so the encoded difference is reported
    too, for information.
    """
    naive, naive_box = naive_thumbnail_image(data)
    ours, box, _ = thumbnails._render(
        data,
        max_pixels=imaging.DEFAULT_MAX_PIXELS,
        max_side=imaging.THUMBNAIL_MAX_SIDE,
        padding=imaging.THUMBNAIL_PADDING,
    )
    encoded_naive = Image.open(io.BytesIO(naive_thumbnail(data))).convert("RGB")
    encoded_ours = Image.open(io.BytesIO(imaging.make_thumbnail(data))).convert("RGB")
    box_difference = max(abs(a - b) for a, b in zip(box, naive_box, strict=True))
    return (
        box_difference,
        mean_difference(ours, naive),
        mean_difference(encoded_ours, encoded_naive),
    )


# --- sections ---------------------------------------------------------------------------------


def section_thumbnails(args: argparse.Namespace) -> tuple[str, bool]:
    """Speed, memory and equivalence of make_thumbnail on generated photos."""
    rows = [
        "| image | size | naive ms | ours ms | speed-up (target) | naive peak MB | ours peak MB "
        "(target) | box Δ px (≤ 3) | mean abs Δ (≤ 2) | same, after JPEG | result |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    all_passed = True
    with tempfile.TemporaryDirectory() as folder:
        for index, case in enumerate(CASES):
            if args.only not in case.name:
                continue
            data = case.make()
            path = Path(folder, f"case{index}")
            path.write_bytes(data)
            times = median_times(data, args.runs)
            peaks = {name: peak_extra_mb(name, str(path)) for name in PIPELINES}
            box_difference, mean, encoded_mean = equivalence(data)
            speedup = times["naive"] / times["ours"]
            checks = [
                speedup >= case.min_speedup,
                box_difference <= MAX_BOX_DIFFERENCE,
                mean <= MAX_MEAN_PIXEL_DIFFERENCE,
            ]
            memory_target = "—"
            if case.max_peak_mb is not None:
                memory_target = f"≤ {case.max_peak_mb:g}"
                checks.append(peaks["ours"] <= case.max_peak_mb)
            if case.max_peak_vs_naive is not None:
                memory_target = f"≤ {case.max_peak_vs_naive:g}x naive"
                checks.append(peaks["ours"] <= case.max_peak_vs_naive * peaks["naive"])
            passed = all(checks)
            all_passed &= passed
            rows.append(
                f"| {case.name} | {len(data) / 1e6:.2f} MB | {times['naive'] * 1000:.1f} | "
                f"{times['ours'] * 1000:.1f} | {speedup:.1f}x (≥ {case.min_speedup:g}x) | "
                f"{peaks['naive']:.1f} | {peaks['ours']:.1f} ({memory_target}) | "
                f"{box_difference} | {mean:.2f} | {encoded_mean:.2f} | "
                f"{'PASS' if passed else 'FAIL'} |"
            )
    return "\n".join(rows), all_passed


# The report, in order: each section takes the parsed arguments and returns (markdown, passed).
SECTIONS = [section_thumbnails]


def main(argv: list[str] | None = None) -> int:
    """Run every section, print its table and return 1 if any target was missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="timed runs per pipeline (default 7)")
    parser.add_argument("--only", default="", help="run only the images whose name contains this")
    args = parser.parse_args(argv)
    all_passed = True
    for section in SECTIONS:
        markdown, passed = section(args)
        print(f"## {section.__doc__}\n\n{markdown}\n", flush=True)
        all_passed &= passed
    return 0 if all_passed else 1


if __name__ == "__main__":
    sys.exit(main())
