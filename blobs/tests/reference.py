"""The thumbnail rules applied literally at full resolution: the yardstick for `make_thumbnail`.

The tests check that `make_thumbnail` agrees with it; `bench/bench_thumbnails.py` measures how
much faster and leaner `make_thumbnail` is.
"""

import io
import statistics
from collections import Counter

from PIL import Image, ImageChops, ImageOps, ImageStat

from blobs import imaging

WHITE = (255, 255, 255)


def naive_thumbnail_image(data: bytes) -> tuple[Image.Image, tuple[int, int, int, int]]:
    """The naive thumbnail before JPEG encoding, and its crop box (full-resolution pixels)."""
    image = ImageOps.exif_transpose(Image.open(io.BytesIO(data)))
    if image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info:
        image = image.convert("RGBA")
        box = image.getchannel("A").getbbox() or (0, 0, *image.size)
        white = Image.new("RGBA", image.size, (*WHITE, 255))
        image = Image.alpha_composite(white, image).convert("RGB")
    else:
        image = image.convert("RGB")
        background = Image.new("RGB", image.size, border_colour(image))
        difference = ImageChops.difference(image, background)
        mask = difference.point(lambda v: 255 if v > imaging.BACKGROUND_TOLERANCE else 0)
        box = mask.getbbox() or (0, 0, *image.size)
    box = imaging.pad_box(box, image.size, imaging.THUMBNAIL_PADDING)
    image = image.crop(box)
    image.thumbnail((imaging.THUMBNAIL_MAX_SIDE,) * 2, Image.Resampling.LANCZOS)
    return image, box


def naive_thumbnail(data: bytes) -> bytes:
    """The naive thumbnail as JPEG bytes."""
    image, _ = naive_thumbnail_image(data)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=imaging.THUMBNAIL_QUALITY)
    return out.getvalue()


def border_colour(image: Image.Image) -> tuple[int, ...]:
    """The thumbnail rule's background: median of the busiest 16-level bucket of border colours."""
    width, height = image.size
    strips = [
        (0, 0, width, 1),
        (0, height - 1, width, height),
        (0, 0, 1, height),
        (width - 1, 0, width, height),
    ]
    pixels = [pixel for strip in strips for pixel in image.crop(strip).get_flattened_data()]
    buckets = Counter(tuple(value // 16 for value in pixel) for pixel in pixels)
    dominant = buckets.most_common(1)[0][0]
    members = [pixel for pixel in pixels if tuple(value // 16 for value in pixel) == dominant]
    return tuple(sorted(channel)[len(channel) // 2] for channel in zip(*members, strict=True))


def mean_difference(first: Image.Image, second: Image.Image) -> float:
    """Mean absolute difference per channel (0-255), `first` resized to `second` when needed."""
    if first.size != second.size:
        first = first.resize(second.size, Image.Resampling.LANCZOS)
    difference = ImageChops.difference(first.convert("RGB"), second.convert("RGB"))
    return statistics.fmean(ImageStat.Stat(difference).mean)
