"""Content-cropped JPEG thumbnails of accepted images: oriented, cropped to the content, small.

Decode (at the smallest JPEG DCT scale that still gives the thumbnail), apply the EXIF
orientation, find the non-background box, pad, scale, flatten on white and encode. Pure: bytes in,
bytes out, nothing of Django; `bench/bench_thumbnails.py` compares it with a naive pipeline.
"""

from __future__ import annotations

import io
import math
from collections import Counter
from dataclasses import dataclass
from functools import cache

from PIL import Image, ImageChops, ImageCms, ImageMath

from blobs.imaging.checks import (
    DEFAULT_MAX_PIXELS,
    SIXTEEN_BIT_MODES,
    ImageInfo,
    decoding,
    open_checked,
)

THUMBNAIL_MAX_SIDE = 300
THUMBNAIL_PADDING = 5
# JPEG at quality 75 leaves up to about 16 levels of error next to edges, chroma subsampling
# smears colour further and a studio background has a lighting gradient: 32 absorbs all that,
# while anything a viewer reads as an object (an eighth of the range or more) still counts.
BACKGROUND_TOLERANCE = 32
THUMBNAIL_QUALITY = 85
# Rows are searched and flattened in bands of about a megapixel (4 MB in RGB).
BAND_PIXELS = 1 << 20


_TRANSPOSE = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
_QUANTIZE = bytes(value >> 4 for value in range(256))
_WHITE = (255, 255, 255)


def make_thumbnail(
    data: bytes,
    *,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    max_side: int = THUMBNAIL_MAX_SIDE,
    padding: int = THUMBNAIL_PADDING,
) -> bytes:
    """JPEG thumbnail cropped to the image's content; no EXIF, no ICC profile."""
    return inspect_and_thumbnail(data, max_pixels=max_pixels, max_side=max_side, padding=padding)[1]


def inspect_and_thumbnail(
    data: bytes,
    *,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    max_side: int = THUMBNAIL_MAX_SIDE,
    padding: int = THUMBNAIL_PADDING,
) -> tuple[ImageInfo, bytes]:
    """``inspect_image`` and ``make_thumbnail`` in one: the bytes are checked and opened once."""
    info, thumbnail = inspect_and_thumbnail_sized(
        data, max_pixels=max_pixels, max_side=max_side, padding=padding
    )
    return info, thumbnail.data


@dataclass(frozen=True)
class Thumbnail:
    """An encoded JPEG thumbnail and its size in pixels."""

    data: bytes
    width: int
    height: int


def inspect_and_thumbnail_sized(
    data: bytes,
    *,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    max_side: int = THUMBNAIL_MAX_SIDE,
    padding: int = THUMBNAIL_PADDING,
) -> tuple[ImageInfo, Thumbnail]:
    """``inspect_and_thumbnail`` with the thumbnail's width and height, known without a re-read."""
    image, _, info = _render(data, max_pixels=max_pixels, max_side=max_side, padding=padding)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=THUMBNAIL_QUALITY, optimize=True)
    return info, Thumbnail(out.getvalue(), *image.size)


def content_box(image: Image.Image) -> tuple[int, int, int, int]:
    """Bounding box (left, upper, right, lower) of non-background pixels; whole image when blank.

    Where some pixels at the edges are fully transparent, transparency is the background.
    Otherwise (no alpha, or an alpha band leaving nothing transparent at the edges) the background
    is the colour dominating the 1-pixel border, give or take BACKGROUND_TOLERANCE per channel.
    """
    work = _working_copy(image)
    if work.mode in ("RGBA", "LA"):
        box = _alpha_box(work)
        if box is not None:
            return box
    # An RGBA or LA image is flattened on white a band at a time (see _colour_box).
    return _colour_box(work, _background_colour(work)) or (0, 0, *work.size)


def pad_box(
    box: tuple[int, int, int, int], size: tuple[int, int], padding: int
) -> tuple[int, int, int, int]:
    """Grow ``box`` by ``padding`` on every side, clamped to an image of ``size``."""
    left, upper, right, lower = box
    width, height = size
    return (
        max(0, left - padding),
        max(0, upper - padding),
        min(width, right + padding),
        min(height, lower + padding),
    )


def fit_within(size: tuple[int, int], max_side: int) -> tuple[int, int]:
    """Size scaled so its longest side is at most ``max_side``: aspect kept, never upscaled."""
    width, height = size
    longest = max(width, height)
    if longest <= max_side:
        return width, height
    scale = max_side / longest
    return max(1, round(width * scale)), max(1, round(height * scale))


# --- thumbnail --------------------------------------------------------------------------------


def _render(
    data: bytes, *, max_pixels: int, max_side: int, padding: int
) -> tuple[Image.Image, tuple[int, int, int, int], ImageInfo]:
    """The RGB thumbnail before encoding, its crop box in displayed full-resolution pixels, and
    the image's description."""
    if max_side < 1 or padding < 0:
        raise ValueError("max_side must be positive and padding not negative.")
    with decoding(max_pixels):
        opened = open_checked(data, max_pixels)
        full_size = opened.image.size
        if opened.info.format == "JPEG":
            image, box, source_box = _jpeg_source(
                data, opened.image, max_side, padding, opened.jpeg_scale_floor
            )
        else:
            image, box, source_box = _decoded_source(opened.image, padding)
        # EXIF orientation is applied to the 300 px result, not to the decoded image.
        target = fit_within((box[2] - box[0], box[3] - box[1]), max_side)
        thumbnail = _crop_and_scale(image, source_box, target)
        if opened.orientation in _TRANSPOSE:
            thumbnail = thumbnail.transpose(_TRANSPOSE[opened.orientation])
        thumbnail = _to_srgb(thumbnail, opened.image)
    return thumbnail, _orient_box(box, full_size, opened.orientation), opened.info


def _decoded_source(image: Image.Image, padding: int):
    """First frame of a non-JPEG, decoded whole; its box is found at full resolution."""
    image.load()
    work = _working_copy(image)
    box = pad_box(content_box(work), work.size, padding)
    return work, box, box


def _jpeg_source(data: bytes, image: Image.Image, max_side: int, padding: int, floor: int):
    """A JPEG decoded at the smallest DCT scale that still fills the thumbnail, and its box.

    DCT scaling skips most of the decoder's work and memory. Objects usually fill most of the
    frame, so the first decode is at the scale a crop of 3/4 of the frame would need; only a crop
    too small for that scale costs a second, finer decode, searched near the first estimate.
    No decode is finer than ``floor``, the finest scale within the memory budget: a small crop of
    a huge progressive JPEG is then scaled up a little rather than refused.
    """
    size = image.size
    first = _dct_scale(max(size) * 3 // 4, max_side, floor=floor)
    image, scale = _decode_jpeg(data, image, first)
    background = _background_colour(image)
    coarse = _colour_box(image, background)
    if coarse is None:
        padded = (0, 0, *size)
    else:
        box = _full_resolution_box(image, coarse, background, scale, size)
        padded = pad_box(box, size, padding)
        crop_side = max(padded[2] - padded[0], padded[3] - padded[1])
        finer = _dct_scale(crop_side, max_side, cap=scale, floor=floor)
        if finer < scale:
            image, finer = _decode_jpeg(data, None, finer)
            # Content lies within a coarse pixel of the estimate: search only near it.
            region = _scale_box_down(pad_box(box, size, 2 * scale), finer, image.size)
            fine = _colour_box(image.crop(region), background)
            if fine is not None:
                fine = _offset_box(fine, region[:2])
                box = _full_resolution_box(image, fine, background, finer, size)
                padded = pad_box(box, size, padding)
            scale = finer
    width, height = image.size
    source_box = (
        padded[0] / scale,
        padded[1] / scale,
        min(padded[2] / scale, width),
        min(padded[3] / scale, height),
    )
    return image, padded, source_box


def _dct_scale(length: int, needed: int, cap: int = 8, floor: int = 1) -> int:
    """Largest JPEG DCT scale (8, 4, 2 or 1), at most ``cap``, keeping ``length`` >= ``needed``;
    at least ``floor``."""
    for scale in (8, 4, 2):
        if scale <= cap and length / scale >= needed:
            return max(scale, floor)
    return floor


def _decode_jpeg(data: bytes, image: Image.Image | None, scale: int) -> tuple[Image.Image, int]:
    """The first picture of a JPEG decoded at 1/``scale`` in a working mode, and the scale used."""
    if image is None:
        image = Image.open(io.BytesIO(data), formats=["JPEG"])
    width, height = image.size
    applied = 1
    if scale > 1:
        drafted = image.draft(image.mode, (max(1, width // scale), max(1, height // scale)))
        if drafted is not None:
            applied = round(width / drafted[1][2])
    image.load()
    return _working_copy(image), applied


def _full_resolution_box(
    image: Image.Image, box, background: tuple[int, ...], scale: int, size: tuple[int, int]
) -> tuple[int, int, int, int]:
    """Full-resolution box of the content found at ``box`` in ``image``, decoded at 1/``scale``.

    A pixel of a reduced decode averages scale x scale full-resolution pixels, so rounding the
    box out to whole pixels could be off by scale - 1. Instead, how far the content reaches into
    each edge line (and the faint line beyond it) is read from how different those pixels are,
    compared with the pixels just inside; the result is then rounded outward.
    """
    if scale == 1:
        return box
    left, upper, right, lower = box
    width, height = image.size
    lut = _difference_lut(background)

    def columns(first: int, last: int):
        start, stop = max(0, first), min(width, last + 1)
        values = _magnitudes(image.crop((start, upper, stop, lower)), lut)
        step = stop - start
        return lambda x: values[x - start :: step] if start <= x < stop else None

    def rows(first: int, last: int):
        start, stop = max(0, first), min(height, last + 1)
        values = _magnitudes(image.crop((left, start, right, stop)), lut)
        step = right - left
        return lambda y: (
            values[(y - start) * step : (y - start + 1) * step] if start <= y < stop else None
        )

    line = columns(left - 2, left + 1)
    inside = line(left + 1) if left + 1 < right else None
    reach_left = _reach(line(left), line(left - 1), inside, line(left - 2))
    line = columns(right - 2, right + 1)
    inside = line(right - 2) if right - 2 >= left else None
    reach_right = _reach(line(right - 1), line(right), inside, line(right + 1))
    line = rows(upper - 2, upper + 1)
    inside = line(upper + 1) if upper + 1 < lower else None
    reach_upper = _reach(line(upper), line(upper - 1), inside, line(upper - 2))
    line = rows(lower - 2, lower + 1)
    inside = line(lower - 2) if lower - 2 >= upper else None
    reach_lower = _reach(line(lower - 1), line(lower), inside, line(lower + 1))
    full_width, full_height = size
    return (
        max(0, math.floor(scale * (left + 1 - reach_left))),
        max(0, math.floor(scale * (upper + 1 - reach_upper))),
        min(full_width, math.ceil(scale * (right - 1 + reach_right))),
        min(full_height, math.ceil(scale * (lower - 1 + reach_lower))),
    )


def _reach(edge: bytes, beyond: bytes | None, inside: bytes | None, outside: bytes | None) -> float:
    """How far (0 to 2 pixels) content reaches from inside into ``edge`` and the line ``beyond``.

    Each pixel is read as a mix of background, as different as the typical pixel of the line
    ``outside`` (past ``beyond``, clear of the content), and content as different as its inside
    neighbour. The widest reach along the line counts: the outermost pixel decides the box.
    """
    # Pixels outside the box are background by construction, so the floor stays under the
    # tolerance and below any content.
    floor = min(sorted(outside)[len(outside) // 2], BACKGROUND_TOLERANCE) if outside else 0
    widest = 0.0
    for index, here in enumerate(edge):
        if here <= floor:
            continue
        span = max(here, inside[index] if inside else here, BACKGROUND_TOLERANCE + 1) - floor
        share = (here - floor) / span
        # Content spills into the pixel beyond only out of an edge pixel it (nearly) fills.
        if beyond and share >= 0.75 and beyond[index] > floor:
            share += min(1.0, (beyond[index] - floor) / span)
        if share > widest:
            widest = share
    return widest


def _difference_lut(background: tuple[int, ...]) -> list[int]:
    """Lookup table from each channel value to its distance from the background's channel."""
    return [abs(value - level) for level in background for value in range(256)]


def _magnitudes(region: Image.Image, lut: list[int]) -> bytes:
    """Row-major bytes: per pixel of ``region``, its largest channel distance (through ``lut``)."""
    bands = region.point(lut).split()
    magnitude = bands[0]
    for band in bands[1:]:
        magnitude = ImageChops.lighter(magnitude, band)
    return magnitude.tobytes()


def _scale_box_down(box, scale: int, size: tuple[int, int]) -> tuple[int, int, int, int]:
    """Box in an image decoded at 1/``scale`` covering the full-resolution ``box``."""
    left, upper, right, lower = box
    return (
        left // scale,
        upper // scale,
        min(size[0], -(-right // scale)),
        min(size[1], -(-lower // scale)),
    )


def _offset_box(box, offset) -> tuple[int, int, int, int]:
    return box[0] + offset[0], box[1] + offset[1], box[2] + offset[0], box[3] + offset[1]


def _crop_and_scale(image: Image.Image, source_box, target: tuple[int, int]) -> Image.Image:
    """Crop ``source_box`` (float coordinates) and scale it to ``target`` in one resampling."""
    if image.mode in ("RGBA", "LA"):
        # Flatten only the crop, and before resampling, so no hidden colour bleeds in.
        return _flatten_and_scale(image, tuple(round(edge) for edge in source_box), target)
    return image.resize(target, Image.Resampling.LANCZOS, box=source_box, reducing_gap=2.0)


def _flatten_and_scale(image: Image.Image, box, target: tuple[int, int]) -> Image.Image:
    """The crop ``box`` of an RGBA or LA image flattened on white and scaled to ``target``.

    The same pixels as flattening the crop and calling ``resize(reducing_gap=2.0)`` on it, which
    first reduces by whole factors (averaging blocks of pixels) and then resamples. Here the crop
    is flattened and reduced a band of rows at a time, each band a multiple of the vertical
    factor, so no full-size flattened copy is ever held.
    """
    left, upper, right, lower = box
    width, height = right - left, lower - upper
    factor_x = int(width / target[0] / 2.0) or 1
    factor_y = int(height / target[1] / 2.0) or 1
    rows = max(1, BAND_PIXELS // width) // factor_y * factor_y or factor_y
    if (factor_x == 1 and factor_y == 1) or rows >= height:
        flat = _flatten(image, box)
        return flat.resize(target, Image.Resampling.LANCZOS, reducing_gap=2.0)
    reduced = Image.new(image.mode[:-1], (-(-width // factor_x), -(-height // factor_y)))
    for top in range(upper, lower, rows):
        band = _flatten(image, (left, top, right, min(lower, top + rows)))
        reduced.paste(band.reduce((factor_x, factor_y)), (0, (top - upper) // factor_y))
    source = (0, 0, width / factor_x, height / factor_y)
    return reduced.resize(target, Image.Resampling.LANCZOS, box=source)


def _orient_box(box, size: tuple[int, int], orientation: int) -> tuple[int, int, int, int]:
    """Where ``box`` of a stored image of ``size`` lands once EXIF ``orientation`` is applied."""
    left, upper, right, lower = box
    width, height = size
    return {
        1: (left, upper, right, lower),
        2: (width - right, upper, width - left, lower),
        3: (width - right, height - lower, width - left, height - upper),
        4: (left, height - lower, right, height - upper),
        5: (upper, left, lower, right),
        6: (height - lower, left, height - upper, right),
        7: (height - lower, width - right, height - upper, width - left),
        8: (upper, width - right, lower, width - left),
    }[orientation]


# --- modes and colour -------------------------------------------------------------------------


def _working_copy(image: Image.Image) -> Image.Image:
    """The image in RGB, L, RGBA or LA, the modes the box search and resampling work in."""
    mode = image.mode
    if mode in ("RGB", "L"):
        return image.convert("RGBA") if image.has_transparency_data else image
    if mode in ("RGBA", "LA"):
        return image
    if mode == "CMYK":
        return _cmyk_to_rgb(image)
    if mode == "1":
        return image.convert("L")
    if mode == "La":
        return image.convert("LA")
    if mode in ("P", "PA", "RGBa", "RGBX"):
        return image.convert("RGBA" if image.has_transparency_data else "RGB")
    if mode in SIXTEEN_BIT_MODES or mode in ("I", "F"):
        return _grey_to_8bit(image)
    return image.convert("RGB")


def _grey_to_8bit(image: Image.Image) -> Image.Image:
    """L from 16-bit, 32-bit integer or float greyscale; LA when a grey value is transparent."""
    if image.mode == "F":
        return image.convert("L")
    is_sixteen_bit = image.mode in SIXTEEN_BIT_MODES
    transparent = image.info.get("transparency")
    image = image.convert("I")
    alpha = None
    if isinstance(transparent, int):
        # A PNG tRNS chunk names one grey sample value as transparent; Pillow keeps no alpha band.
        alpha = ImageMath.lambda_eval(lambda a: (a["im"] != transparent) * 255, im=image)
    # 16-bit samples map 0-65535 onto 0-255; a 32-bit image whose values fit 8 bits is kept as is.
    if is_sixteen_bit or image.getextrema()[1] > 255:
        image = image.point(lambda value: value * (1 / 256))
    grey = image.convert("L")
    return grey if alpha is None else Image.merge("LA", (grey, alpha.convert("L")))


def _cmyk_to_rgb(image: Image.Image) -> Image.Image:
    """RGB through the embedded ICC profile when it is usable, else Pillow's plain conversion."""
    icc = image.info.get("icc_profile")
    if icc:
        try:
            source = ImageCms.ImageCmsProfile(io.BytesIO(icc))
            return ImageCms.profileToProfile(image, source, _srgb_profile(), outputMode="RGB")
        except (ImageCms.PyCMSError, OSError, ValueError, TypeError):
            pass
    return image.convert("RGB")


def _to_srgb(thumbnail: Image.Image, source: Image.Image) -> Image.Image:
    """RGB thumbnail in sRGB, without metadata: the source's RGB profile is applied, not kept."""
    thumbnail = thumbnail.convert("RGB")
    icc = source.info.get("icc_profile")
    if icc and source.mode != "CMYK":
        try:
            profile = ImageCms.ImageCmsProfile(io.BytesIO(icc))
            description = profile.profile.profile_description or ""
            if profile.profile.xcolor_space.strip() == "RGB" and "sRGB" not in description:
                # 300 px is too few pixels to repay lcms precalculating the transform.
                thumbnail = ImageCms.profileToProfile(
                    thumbnail, profile, _srgb_profile(), flags=ImageCms.Flags.NOOPTIMIZE
                )
        except (ImageCms.PyCMSError, OSError, ValueError, TypeError):
            pass
    # resize() and convert() copy the source's info; the thumbnail carries no EXIF, no profile.
    thumbnail.info = {}
    return thumbnail


@cache
def _srgb_profile() -> ImageCms.ImageCmsProfile:
    return ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB"))


def _flatten(image: Image.Image, box=None) -> Image.Image:
    """RGB or L composite on white of the RGBA or LA ``image``, cropped to ``box``."""
    left, upper, right, lower = box or (0, 0, *image.size)
    mode = image.mode[:-1]
    base = Image.new(mode, (right - left, lower - upper), _WHITE if mode == "RGB" else 255)
    # Pasting at a negative offset clips to the base, so the crop is never copied on its own.
    base.paste(image, (-left, -upper), image)
    return base


# --- background and boxes ---------------------------------------------------------------------


def _alpha_box(image: Image.Image) -> tuple[int, int, int, int] | None:
    """Box of the pixels not fully transparent; None when nothing at the edges is transparent."""
    box = image.getbbox(alpha_only=True)
    if box is None:
        return (0, 0, *image.size)
    return None if box == (0, 0, *image.size) else box


def _background_colour(image: Image.Image) -> tuple[int, ...]:
    """The colour dominating the 1-pixel border of an RGB or L image (RGBA, LA: on white)."""
    width, height = image.size
    bands = len(image.getbands()) - (image.mode in ("RGBA", "LA"))
    edges = [(0, 0, width, 1), (0, height - 1, width, height), (0, 0, 1, height)]
    edges.append((width - 1, 0, width, height))
    border = b"".join(_opaque_region(image, edge).tobytes() for edge in edges)
    # Pixels differing only by noise share a bucket of 16 levels per channel; the busiest bucket
    # is the background and its median the colour, so neither an object touching the border nor
    # a vignette pulls it. About a thousand pixels pin it down; more only cost time.
    stride = bands * max(1, len(border) // bands // 1024)
    pixels = list(zip(*(border[band::stride] for band in range(bands)), strict=True))
    quantized = border.translate(_QUANTIZE)
    buckets = list(zip(*(quantized[band::stride] for band in range(bands)), strict=True))
    dominant = Counter(buckets).most_common(1)[0][0]
    members = [pixel for pixel, bucket in zip(pixels, buckets, strict=True) if bucket == dominant]
    return tuple(sorted(channel)[len(channel) // 2] for channel in zip(*members, strict=True))


def _colour_box(
    image: Image.Image, background: tuple[int, ...]
) -> tuple[int, int, int, int] | None:
    """Box of the pixels of an RGB or L image beyond the tolerance from ``background``, or None.

    An RGBA or LA image counts as flattened on white. The image is marked a band of rows at a
    time, so the search needs no full-size copy.
    """
    lut = [
        255 if distance > BACKGROUND_TOLERANCE else 0 for distance in _difference_lut(background)
    ]
    width, height = image.size
    rows = max(1, BAND_PIXELS // width)
    found = None
    for top in range(0, height, rows):
        bottom = min(height, top + rows)
        region = _opaque_region(image, (0, top, width, bottom)) if rows < height else image
        # One lookup pass marks every channel; getbbox on an RGB image ignores the padding byte.
        box = (region if region.mode in ("RGB", "L") else _flatten(region)).point(lut).getbbox()
        if box is not None:
            box = (box[0], box[1] + top, box[2], box[3] + top)
            found = box if found is None else _union(found, box)
    return found


def _opaque_region(image: Image.Image, box: tuple[int, int, int, int]) -> Image.Image:
    """The region ``box`` of ``image``, flattened on white when it has alpha."""
    return _flatten(image, box) if image.mode in ("RGBA", "LA") else image.crop(box)


def _union(first, second) -> tuple[int, int, int, int]:
    return (
        min(first[0], second[0]),
        min(first[1], second[1]),
        max(first[2], second[2]),
        max(first[3], second[3]),
    )
