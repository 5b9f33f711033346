"""Pure image work for uploads: validation, inspection and content-cropped JPEG thumbnails.

Bytes in, bytes or metadata out. Nothing here imports Django, so the rules are unit-tested and
benchmarked on their own (bench/bench_thumbnails.py compares make_thumbnail with a naive
full-resolution pipeline, `fruitcatalog.blobs.tests.reference`).
"""

from __future__ import annotations

import io
import math
import struct
import warnings
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache

from PIL import Image, ImageChops, ImageCms, ImageMath, UnidentifiedImageError

from fruitcatalog.blobs.content_types import (
    GIF,
    JPEG,
    PNG,
    WEBP,
    detect_content_type,
    extension_for,
)


class ImageError(ValueError):
    """The bytes are not an acceptable image (unsupported, corrupt, truncated, too many pixels)."""


# Detected MIME type per allowed Pillow format.
ALLOWED_FORMATS: dict[str, str] = {"JPEG": JPEG, "PNG": PNG, "GIF": GIF, "WEBP": WEBP}

# 50 MP is above the largest common camera sensors (45 MP) and 8K frames (33 MP), so no real photo
# is refused, while a fully decoded image at the cap (Pillow keeps 4 bytes a pixel) stays at
# 200 MB, the most one upload may cost a worker. It is checked against width x height x frames
# read from the header, before anything is decoded.
DEFAULT_MAX_PIXELS = 50_000_000
THUMBNAIL_MAX_SIDE = 300
THUMBNAIL_PADDING = 5
# JPEG at quality 75 leaves up to about 16 levels of error next to edges, chroma subsampling
# smears colour further and a studio background has a lighting gradient: 32 absorbs all that,
# while anything a viewer reads as an object (an eighth of the range or more) still counts.
BACKGROUND_TOLERANCE = 32
THUMBNAIL_QUALITY = 85

_ORIENTATION_TAG = 0x0112
_TRANSPOSE = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
_SWAPS_SIDES = frozenset({5, 6, 7, 8})
# Pillow's plugins also raise IndexError on some corrupt headers (Image.open itself reads it as
# "not this format"), besides the documented errors.
_DECODER_ERRORS = (OSError, SyntaxError, ValueError, struct.error, EOFError, IndexError)
_SIXTEEN_BIT_MODES = frozenset({"I;16", "I;16B", "I;16L", "I;16N"})
_QUANTIZE = bytes(value >> 4 for value in range(256))
_WHITE = (255, 255, 255)
_PNG_END = b"IEND\xaeB`\x82"  # the IEND chunk's type and its (constant) CRC
# Entropy-coded data escapes 0xFF, so this pair only ever starts a scan.
_JPEG_START_OF_SCAN = b"\xff\xda"
# Progressive encoders write about 10 scans (a phone's MPO twice that); every scan costs a pass
# over the whole image, so a file of thousands of tiny scans is a CPU bomb within the byte limit.
MAX_JPEG_SCANS = 100


@dataclass(frozen=True)
class ImageInfo:
    """What an accepted image is, measured as displayed (after its EXIF orientation)."""

    content_type: str
    format: str
    width: int
    height: int
    frame_count: int
    extension: str


@dataclass(frozen=True)
class _Opened:
    image: Image.Image
    info: ImageInfo
    orientation: int


def inspect_image(data: bytes, *, max_pixels: int = DEFAULT_MAX_PIXELS) -> ImageInfo:
    """Check an upload's header and describe it, without decoding any pixels.

    The type libmagic sees must be allowed and agree with the format Pillow parses (a file that
    is two things at once is refused), and width x height x frames must not exceed max_pixels.
    """
    with _decoding(max_pixels):
        return _open_checked(data, max_pixels).info


def make_thumbnail(
    data: bytes,
    *,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    max_side: int = THUMBNAIL_MAX_SIDE,
    padding: int = THUMBNAIL_PADDING,
) -> bytes:
    """JPEG thumbnail cropped to the image's content, per the contract; no EXIF, no ICC profile."""
    image, _ = _render_thumbnail(data, max_pixels=max_pixels, max_side=max_side, padding=padding)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=THUMBNAIL_QUALITY, optimize=True)
    return out.getvalue()


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
        work = _flatten(work)
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


# --- opening and validation -------------------------------------------------------------------


@contextmanager
def _decoding(max_pixels: int):
    """Turn every decoder failure into an ImageError with a message fit for an API response."""
    # catch_warnings changes process-wide filters; a warning raised meanwhile by another thread
    # follows them too, which is harmless: only Pillow's bomb warning and metadata chatter change.
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        # Broken metadata is tolerated and ignored, so Pillow's complaints about it are noise.
        warnings.filterwarnings("ignore", category=UserWarning, module="PIL")
        try:
            yield
        except ImageError:
            raise
        except (Image.DecompressionBombWarning, Image.DecompressionBombError) as exc:
            raise ImageError(f"The image is too large (limit {max_pixels} pixels).") from exc
        except MemoryError as exc:
            raise ImageError("The image is too large to decode.") from exc
        except _DECODER_ERRORS as exc:
            raise ImageError("The file is truncated or corrupt.") from exc


def _open_checked(data: bytes, max_pixels: int) -> _Opened:
    if not data:
        raise ImageError("The file is empty.")
    content_type = detect_content_type(data)
    if content_type not in ALLOWED_FORMATS.values():
        raise ImageError(f"Unsupported image type: {content_type}.")
    try:
        image = Image.open(io.BytesIO(data), formats=list(ALLOWED_FORMATS))
    except UnidentifiedImageError as exc:
        raise ImageError("The file is truncated or corrupt.") from exc
    # Pillow names JPEGs carrying several pictures (phones' MPF) MPO; picture 0 is the photo.
    pillow_format = "JPEG" if image.format == "MPO" else image.format
    if ALLOWED_FORMATS.get(pillow_format) != content_type:
        raise ImageError(
            f"The file is not consistently one image type ({content_type} by its signature, "
            f"{pillow_format} by its structure)."
        )
    _check_structure(data, pillow_format)
    frame_count = getattr(image, "n_frames", 1)
    width, height = image.size
    pixels = width * height * frame_count
    if pixels > max_pixels:
        raise ImageError(f"The image is too large: {pixels} pixels (limit {max_pixels}).")
    if pixels == 0:
        raise ImageError("The file is truncated or corrupt.")
    orientation = _orientation(image)
    if orientation in _SWAPS_SIDES:
        width, height = height, width
    info = ImageInfo(
        content_type=content_type,
        format=pillow_format,
        width=width,
        height=height,
        frame_count=frame_count,
        extension=extension_for(content_type),
    )
    return _Opened(image, info, orientation)


def _check_structure(data: bytes, pillow_format: str) -> None:
    """Refuse what the header check and decoding would let through: cut files, scan bombs.

    Pillow decodes a PNG that lost its last chunks and a GIF that lost its trailer (a JPEG or
    WebP cut short fails to decode anyway), and decodes a JPEG of thousands of scans for minutes.
    """
    if pillow_format == "JPEG" and data.count(_JPEG_START_OF_SCAN) > MAX_JPEG_SCANS:
        raise ImageError(f"The JPEG has more than {MAX_JPEG_SCANS} scans.")
    if pillow_format == "PNG":
        # Walks every chunk up to IEND checking CRCs (truncation raises); decodes no pixels.
        Image.open(io.BytesIO(data), formats=["PNG"]).verify()
        # verify() stops at IEND's header; the chunk's CRC, a constant, must be there too.
        if _PNG_END not in data:
            raise ImageError("The file is truncated or corrupt.")
    elif pillow_format == "GIF" and not data.endswith(b"\x3b"):
        raise ImageError(
            "The GIF does not end with its trailer: it is truncated or has data appended."
        )


def _orientation(image: Image.Image) -> int:
    """EXIF orientation 1-8 known before decoding; 1 when absent or unreadable."""
    # A PNG may keep its eXIf chunk after the pixel data, and Pillow decodes the whole image to
    # reach it; only EXIF seen in the header counts, so inspection never decodes.
    if image.format == "PNG" and "exif" not in image.info:
        return 1
    try:
        value = image.getexif().get(_ORIENTATION_TAG)
    except Exception:  # a broken EXIF block must not refuse the image, whatever Pillow raises
        return 1
    return value if isinstance(value, int) and 1 <= value <= 8 else 1


# --- thumbnail --------------------------------------------------------------------------------


def _render_thumbnail(
    data: bytes, *, max_pixels: int, max_side: int, padding: int
) -> tuple[Image.Image, tuple[int, int, int, int]]:
    """The RGB thumbnail before encoding, and its crop box in displayed full-resolution pixels."""
    if max_side < 1 or padding < 0:
        raise ValueError("max_side must be positive and padding not negative.")
    with _decoding(max_pixels):
        opened = _open_checked(data, max_pixels)
        full_size = opened.image.size
        if opened.info.format == "JPEG":
            image, box, source_box = _jpeg_source(data, opened.image, max_side, padding)
        else:
            image, box, source_box = _decoded_source(opened.image, padding)
        # EXIF orientation is applied to the 300 px result, not to the decoded image.
        target = fit_within((box[2] - box[0], box[3] - box[1]), max_side)
        thumbnail = _crop_and_scale(image, source_box, target)
        if opened.orientation in _TRANSPOSE:
            thumbnail = thumbnail.transpose(_TRANSPOSE[opened.orientation])
        thumbnail = _to_srgb(thumbnail, opened.image)
    return thumbnail, _orient_box(box, full_size, opened.orientation)


def _decoded_source(image: Image.Image, padding: int):
    """First frame of a non-JPEG, decoded whole; its box is found at full resolution."""
    image.load()
    work = _working_copy(image)
    box = pad_box(content_box(work), work.size, padding)
    return work, box, box


def _jpeg_source(data: bytes, image: Image.Image, max_side: int, padding: int):
    """A JPEG decoded at the smallest DCT scale that still fills the thumbnail, and its box.

    DCT scaling skips most of the decoder's work and memory. Objects usually fill most of the
    frame, so the first decode is at the scale a crop of 3/4 of the frame would need; only a crop
    too small for that scale costs a second, finer decode, searched near the first estimate.
    """
    size = image.size
    image, scale = _decode_jpeg(data, image, _dct_scale(max(size) * 3 // 4, max_side))
    background = _background_colour(image)
    coarse = _colour_box(image, background)
    if coarse is None:
        padded = (0, 0, *size)
    else:
        box = _full_resolution_box(image, coarse, background, scale, size)
        padded = pad_box(box, size, padding)
        crop_side = max(padded[2] - padded[0], padded[3] - padded[1])
        finer = _dct_scale(crop_side, max_side, cap=scale)
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


def _dct_scale(length: int, needed: int, cap: int = 8) -> int:
    """Largest JPEG DCT scale (8, 4, 2 or 1), at most ``cap``, keeping ``length`` >= ``needed``."""
    for scale in (8, 4, 2):
        if scale <= cap and length / scale >= needed:
            return scale
    return 1


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
        image = _flatten(image, tuple(round(edge) for edge in source_box))
        source_box = (0, 0, *image.size)
    return image.resize(target, Image.Resampling.LANCZOS, box=source_box, reducing_gap=2.0)


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
    if mode in _SIXTEEN_BIT_MODES or mode in ("I", "F"):
        return _grey_to_8bit(image)
    return image.convert("RGB")


def _grey_to_8bit(image: Image.Image) -> Image.Image:
    """L from 16-bit, 32-bit integer or float greyscale; LA when a grey value is transparent."""
    if image.mode == "F":
        return image.convert("L")
    is_sixteen_bit = image.mode in _SIXTEEN_BIT_MODES
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
    """The colour dominating the 1-pixel border of an RGB or L image."""
    width, height = image.size
    bands = len(image.getbands())
    edges = [(0, 0, width, 1), (0, height - 1, width, height), (0, 0, 1, height)]
    edges.append((width - 1, 0, width, height))
    border = b"".join(image.crop(edge).tobytes() for edge in edges)
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
    """Box of the pixels of an RGB or L image beyond the tolerance from ``background``, or None."""
    lut = [
        255 if distance > BACKGROUND_TOLERANCE else 0 for distance in _difference_lut(background)
    ]
    # One lookup pass marks every channel; getbbox on an RGB image ignores the padding byte.
    return image.point(lut).getbbox()
