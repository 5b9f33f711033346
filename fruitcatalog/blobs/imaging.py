"""Pure image work for uploads: validation, inspection and content-cropped JPEG thumbnails.

Bytes in, bytes or metadata out. Nothing here imports Django, so the rules are unit-tested and
benchmarked on their own (bench/bench_thumbnails.py compares make_thumbnail with a naive
full-resolution pipeline, `fruitcatalog.blobs.tests.reference`).
"""

from __future__ import annotations

import io
import math
import re
import struct
import warnings
import zlib
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
# --- what one upload may cost --------------------------------------------------------------------
# Validating and thumbnailing any upload (at most 5 MiB) must stay within about 2 s of CPU and
# 300 MB of extra resident memory. What would cost more is refused from its headers and structure,
# before anything is decoded: by a memory estimate (peak bytes of every buffer the pipeline holds
# at once), by the decoding work of progressive JPEGs, and by counts of the structures the
# decoders walk one by one in Python (PNG chunks, GIF blocks, JPEG segments) or seek through
# (frames).

# The largest estimated peak: 256 MiB (268 MB) leaves the rest of 300 MB to decoders' small
# buffers, Python objects and the upload's own bytes. Any 50 MP baseline, 4:2:0 or 4:2:2
# progressive JPEG fits, and a 50 MP 8-bit PNG or GIF (but for RGB with a transparent colour,
# copied to RGBA: 33 MP); a 4:4:4 progressive JPEG (libjpeg keeps 6 bytes of coefficients a
# pixel) fits up to 44 MP, 16-bit greyscale (11 bytes a pixel while it is scaled to 8 bits) up
# to 24 MP, and WebP (libwebp's two canvases and Pillow's copy of the frame besides the image:
# 16 bytes a pixel) up to 16 MP.
MAX_DECODE_BYTES = 256 * 1024 * 1024
# Only the first frame is decoded, but Pillow seeks through GIF frames one by one, and every
# frame is a structure to walk. Animations of a few hundred frames are long; thousands are only
# there to cost time. (The pixel limit counts frames too.)
MAX_FRAMES = 1_000
# Pillow handles each PNG chunk in Python (about 4 us). A real PNG has a few chunks besides its
# image data, which libpng writes in 8 KiB IDATs (640 for 5 MiB) and no writer in pieces
# below a few hundred bytes (a row each, at worst): 20,000 chunks are about a tenth of a second.
MAX_PNG_CHUNKS = 20_000
# zlib inflates and Pillow unfilters a PNG's rows at about 3.5 ns a byte, whatever the file's
# size: 256 MB is 0.9 s, the rest of the budget left to the box search and scaling. It holds any
# 8-bit PNG up to 50 MP, 16-bit RGB up to 42 MP and 16-bit RGBA up to 32 MP.
MAX_PNG_RAW_BYTES = 256_000_000
# Extension, image and data sub-blocks (real encoders fill them to 255 bytes: 20,000 for 5 MiB)
# and stray bytes, which Pillow skips one by one.
MAX_GIF_BLOCKS = 100_000
# A JPEG has a few dozen marker segments (its tables, metadata, one or two a scan).
MAX_JPEG_SEGMENTS = 1_000
# Bytes outside any segment before the first scan, which Pillow skips one by one.
MAX_JPEG_STRAY_BYTES = 65_536
# Progressive encoders write about 10 scans (a phone's MPO twice that); every scan costs a pass
# over the whole image, so a file of thousands of tiny scans is a CPU bomb within the byte limit.
MAX_JPEG_SCANS = 100
# A scan of a progressive JPEG costs libjpeg a pass over every 8x8 block of its components,
# however few bits it holds: up to about 45 ns a block (a refinement scan of 63 coefficients),
# 0.7 ns a sample, and the thumbnail may decode twice. The budget counts 64 samples per block of
# each scan's components: 1e9 samples is 0.7 s at worst, 20 scans of a 50 MP 4:2:0 JPEG
# (libjpeg writes 10), and refuses 100 scans of 50 MP.
MAX_JPEG_SCAN_SAMPLES = 1_000_000_000

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# After a marker segment or entropy-coded data, the next marker: 0xFF followed by anything but a
# stuffed zero or a restart marker, which belong to the entropy-coded data, or a fill 0xFF. No
# quantifier, so the search stays linear: a few ms for a photo, 50 ms for 5 MiB of 0xFF at worst.
_JPEG_NEXT_MARKER = re.compile(rb"\xff([^\x00\xd0-\xd7\xff])")
_JPEG_FRAME_MARKERS = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
_JPEG_PROGRESSIVE_MARKERS = frozenset({0xC2, 0xC6, 0xCA, 0xCE})
_JPEG_END_OF_IMAGE = 0xD9
_JPEG_START_OF_SCAN = 0xDA
# Rows are searched and flattened in bands of about a megapixel (4 MB in RGB).
_BAND_PIXELS = 1 << 20
# Bytes a pixel of each mode takes in Pillow's memory (4 for every other mode).
_STORAGE_BYTES = {"1": 1, "L": 1, "P": 1, "I;16": 2, "I;16B": 2, "I;16L": 2, "I;16N": 2}


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
class _JpegLayout:
    """What the first picture of a JPEG costs libjpeg, from its marker segments."""

    scans: int
    # Samples libjpeg walks over all scans: 64 per 8x8 block of each scan's components.
    scan_samples: int
    # The whole image's DCT coefficients (2 bytes a sample), which libjpeg keeps in memory when
    # the picture comes in several scans (progressive, or one scan per component).
    coefficient_bytes: int


@dataclass(frozen=True)
class _Structure:
    """What the bounded walk over an upload's structure found, before Pillow parses it."""

    frames: int | None = None  # counted for GIF, where Pillow would seek through every frame
    jpeg: _JpegLayout | None = None
    png_raw_bytes: int = 0  # the PNG's image data inflated: its rows with their filter bytes


@dataclass(frozen=True)
class _Opened:
    image: Image.Image
    info: ImageInfo
    orientation: int
    # The finest JPEG DCT scale (1, 2, 4 or 8) whose decode stays within MAX_DECODE_BYTES.
    jpeg_scale_floor: int = 1


def inspect_image(data: bytes, *, max_pixels: int = DEFAULT_MAX_PIXELS) -> ImageInfo:
    """Check an upload's header and describe it, without decoding any pixels.

    The type libmagic sees must be allowed and agree with the format Pillow parses (a file that
    is two things at once is refused), width x height x frames must not exceed max_pixels, and
    thumbnailing it must fit the budget of one upload (MAX_DECODE_BYTES and the limits beside
    it), so what passes here also passes ``make_thumbnail`` unless its pixels are corrupt.
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


def displayed_size(data: bytes) -> tuple[int, int]:
    """Width and height of stored image bytes as displayed (after EXIF orientation).

    Only the header is read, nothing is decoded: for bytes already accepted (a thumbnail, a
    cover), whose width and height a page puts on its `<img>`. `ImageError` when unreadable.
    """
    with warnings.catch_warnings():
        # Accepted bytes passed the pixel limit; a header read allocates no pixels anyway.
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        warnings.filterwarnings("ignore", category=UserWarning, module="PIL")
        try:
            image = Image.open(io.BytesIO(data), formats=list(ALLOWED_FORMATS))
            width, height = image.size
            orientation = _orientation(image)
        except (UnidentifiedImageError, Image.DecompressionBombError, *_DECODER_ERRORS) as exc:
            raise ImageError("The file is truncated or corrupt.") from exc
    return (height, width) if orientation in _SWAPS_SIDES else (width, height)


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
    # Before Pillow parses anything: its parsers walk chunks, segments and blocks in Python.
    structure = _walk_structure(data, content_type)
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
    if structure.frames is not None:
        frame_count = structure.frames
    else:
        frame_count = getattr(image, "n_frames", 1)
    if frame_count > MAX_FRAMES:
        raise ImageError(f"The image has {frame_count} frames (limit {MAX_FRAMES}).")
    width, height = image.size
    pixels = width * height * frame_count
    if pixels > max_pixels:
        raise ImageError(f"The image is too large: {pixels} pixels (limit {max_pixels}).")
    if pixels == 0:
        raise ImageError("The file is truncated or corrupt.")
    jpeg_scale_floor = _check_budget(image, pillow_format, structure)
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
    return _Opened(image, info, orientation, jpeg_scale_floor)


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


# --- structure walks --------------------------------------------------------------------------
# Each walk reads only headers and lengths, refuses as soon as a count passes its limit, so its
# own cost is bounded too, and leaves anything it does not understand to the decoder.


def _walk_structure(data: bytes, content_type: str) -> _Structure:
    """Refuse cut files and structure bombs of the format the signature names; count frames.

    Pillow decodes a PNG that lost its last chunks and a GIF that lost its trailer (a JPEG or
    WebP cut short fails to decode anyway); it walks every PNG chunk, GIF block and JPEG segment
    before the first scan in Python, and a JPEG of thousands of scans takes libjpeg minutes.
    Bytes that do not start with the format's signature are left to Pillow, which refuses them
    or names another format (then the file is not consistently one type).
    """
    if content_type == PNG and data.startswith(_PNG_SIGNATURE):
        return _Structure(png_raw_bytes=_walk_png(data))
    if content_type == GIF and data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 13:
        return _Structure(frames=_walk_gif(data))
    if content_type == JPEG and data.startswith(b"\xff\xd8"):
        return _Structure(jpeg=_walk_jpeg(data))
    # WebP: libwebp parses the RIFF chunks in C, and Pillow's frame count is its demuxer's.
    return _Structure()


def _walk_png(data: bytes) -> int:
    """Every chunk up to IEND present whole with a correct CRC; at most MAX_PNG_CHUNKS of them.

    Returns the size of the image data once inflated, read from the header (IHDR).
    """
    view = memoryview(data)
    position = len(_PNG_SIGNATURE)
    for _ in range(MAX_PNG_CHUNKS):
        if position + 12 > len(data):
            raise ImageError("The file is truncated or corrupt.")
        (length,) = struct.unpack_from(">I", data, position)
        end = position + 12 + length
        if end > len(data):
            raise ImageError("The file is truncated or corrupt.")
        (crc,) = struct.unpack_from(">I", data, end - 4)
        if zlib.crc32(view[position + 4 : end - 4]) != crc:
            raise ImageError("The file is truncated or corrupt.")
        if view[position + 4 : position + 8] == b"IEND":
            return _png_raw_bytes(data)
        position = end
    raise ImageError(f"The PNG has more than {MAX_PNG_CHUNKS} chunks.")


def _png_raw_bytes(data: bytes) -> int:
    """Bytes of a PNG's inflated image data (its rows, each with a filter byte), from IHDR.

    Adam7 interlacing adds a filter byte per row of each pass, a few per cent at most.
    """
    if len(data) < 29 or data[12:16] != b"IHDR":
        return 0  # Pillow refuses it
    width, height, depth, colour = struct.unpack_from(">IIBB", data, 16)
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(colour, 4)
    return height * (1 + -(-width * channels * depth // 8))


def _walk_gif(data: bytes) -> int:
    """The number of frames of a GIF whose blocks run to its trailer, the file's last byte."""
    flags = data[10]
    position = 13 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0)
    end = len(data)
    frames = blocks = 0
    while position < end:
        blocks += 1
        if blocks > MAX_GIF_BLOCKS:
            raise ImageError(f"The GIF has more than {MAX_GIF_BLOCKS} blocks.")
        introducer = data[position]
        position += 1
        if introducer == 0x3B:
            if position == end:
                return frames
            break
        if introducer == 0x21:  # extension: a label, then sub-blocks
            position += 1
        elif introducer == 0x2C:  # image: descriptor, local colour table, code size, sub-blocks
            frames += 1
            if frames > MAX_FRAMES:
                raise ImageError(f"The image has more than the limit of {MAX_FRAMES} frames.")
            if position + 9 > end:
                break
            flags = data[position + 8]
            position += 10 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0)
        else:  # a stray byte, which Pillow skips
            continue
        while position < end:
            size = data[position]
            position += 1 + size
            if not size:
                break
            blocks += 1
            if blocks > MAX_GIF_BLOCKS:
                raise ImageError(f"The GIF has more than {MAX_GIF_BLOCKS} blocks.")
    raise ImageError("The GIF does not end with its trailer: it is truncated or has data appended.")


def _walk_jpeg(data: bytes) -> _JpegLayout:
    """The scans of the first picture (up to its end-of-image marker) and what they cost.

    Marker segments are skipped by their length and entropy-coded data up to the next marker, as
    libjpeg does, so an EXIF thumbnail or a second MPF picture is not counted. A cut file is
    measured as far as it goes: the decoder refuses it.
    """
    blocks: dict[int, int] = {}
    segments = scans = samples = stray = 0
    progressive = False
    position = 2
    while (marker := _JPEG_NEXT_MARKER.search(data, position)) is not None:
        if not scans:
            stray += marker.start() - position
            if stray > MAX_JPEG_STRAY_BYTES:
                raise ImageError(
                    f"The JPEG has more than {MAX_JPEG_STRAY_BYTES} stray bytes between "
                    "its segments."
                )
        kind = marker.group(1)[0]
        position = marker.end()
        if kind == _JPEG_END_OF_IMAGE:
            break
        if kind == 0x01 or position + 2 > len(data):  # TEM stands alone
            continue
        segments += 1
        if segments > MAX_JPEG_SEGMENTS:
            raise ImageError(f"The JPEG has more than {MAX_JPEG_SEGMENTS} segments.")
        (length,) = struct.unpack_from(">H", data, position)
        body = data[position + 2 : position + length]
        position += length
        if kind in _JPEG_FRAME_MARKERS and not blocks:
            blocks = _jpeg_component_blocks(body)
            progressive = kind in _JPEG_PROGRESSIVE_MARKERS
        elif kind == _JPEG_START_OF_SCAN:
            scans += 1
            if scans > MAX_JPEG_SCANS:
                raise ImageError(f"The JPEG has more than {MAX_JPEG_SCANS} scans.")
            components = body[1 : 1 + 2 * body[0] : 2] if body else b""
            samples += 64 * sum(blocks.get(component, 0) for component in components)
    several_scans = progressive or scans > 1
    coefficient_bytes = 128 * sum(blocks.values()) if several_scans else 0
    return _JpegLayout(scans, samples, coefficient_bytes)


def _jpeg_component_blocks(frame_header: bytes) -> dict[int, int]:
    """8x8 blocks per component (id), padded to whole MCUs, from a start-of-frame segment."""
    if len(frame_header) < 6:
        return {}
    _, height, width, count = struct.unpack_from(">BHHB", frame_header)
    components = [
        (frame_header[index], frame_header[index + 1] >> 4, frame_header[index + 1] & 15)
        for index in range(6, min(len(frame_header) - 2, 6 + 3 * count), 3)
    ]
    if not components:
        return {}
    max_h = max(max(h for _, h, _ in components), 1)
    max_v = max(max(v for _, _, v in components), 1)
    mcu_columns = -(-width // (8 * max_h))
    mcu_rows = -(-height // (8 * max_v))
    return {ident: mcu_columns * h * mcu_rows * v for ident, h, v in components}


# --- budget -----------------------------------------------------------------------------------


def _check_budget(image: Image.Image, pillow_format: str, structure: _Structure) -> int:
    """Refuse an image whose decoding would cost more than the limits; the JPEG scale floor.

    The estimate is the peak of the buffers alive at once: what the decoder holds, the decoded
    image and its copy in a working mode (``_peak_bytes_per_pixel``). A JPEG is decoded at a
    reduced DCT scale; the floor is the finest scale that fits, and the image is refused only
    when even 1/8 does not.
    """
    width, height = image.size
    if structure.png_raw_bytes > MAX_PNG_RAW_BYTES:
        raise ImageError(
            f"The PNG is too costly to decompress: {structure.png_raw_bytes} bytes of pixel data "
            f"(limit {MAX_PNG_RAW_BYTES})."
        )
    if pillow_format == "JPEG":
        layout = structure.jpeg or _JpegLayout(1, 0, 0)
        if layout.scan_samples > MAX_JPEG_SCAN_SAMPLES:
            raise ImageError(
                f"The JPEG is too costly to decode: its {layout.scans} scans cover "
                f"{layout.scan_samples} samples (limit {MAX_JPEG_SCAN_SAMPLES})."
            )
        per_pixel = _peak_bytes_per_pixel(image, pillow_format)
        for scale in (1, 2, 4, 8):
            decoded = per_pixel * -(-width // scale) * -(-height // scale)
            # A finer decode happens while the first, at least twice as coarse, is kept.
            needed = layout.coefficient_bytes + decoded + decoded // 4
            if needed <= MAX_DECODE_BYTES:
                return scale
    else:
        needed = _peak_bytes_per_pixel(image, pillow_format) * width * height
        if needed <= MAX_DECODE_BYTES:
            return 1
    raise ImageError(
        f"The image is too large to decode: about {needed // 1_000_000} MB of memory "
        f"(limit {MAX_DECODE_BYTES // 1_000_000} MB)."
    )


def _peak_bytes_per_pixel(image: Image.Image, pillow_format: str) -> int:
    """Bytes a pixel at most while the thumbnail is made, known before anything is decoded.

    The decoded image and its copy in the working mode ``_working_copy`` makes (16-bit and
    32-bit greyscale pass through two 32-bit copies, and a mask when a grey value is
    transparent); the box search and the flattening on white go a band of rows at a time. libwebp
    keeps two canvases of 4 bytes a pixel besides, and Pillow a copy of the frame's bytes.
    """
    mode = image.mode
    transparent = image.has_transparency_data
    total = _STORAGE_BYTES.get(mode, 4)
    if mode in _SIXTEEN_BIT_MODES or mode in ("I", "F"):
        # An I copy, its scaled copy and L; for a transparent value an I mask, its L and LA.
        total += 4 + 4 + 1 + (4 + 1 + 4 if transparent and mode != "F" else 0)
    elif mode == "1":
        total += 1
    elif mode not in ("RGBA", "LA") and (transparent or mode not in ("RGB", "L")):
        total += 4  # an RGB, RGBA or LA copy
    if pillow_format == "WEBP":
        total += 12
    return total


# --- thumbnail --------------------------------------------------------------------------------


def _render_thumbnail(
    data: bytes, *, max_pixels: int, max_side: int, padding: int
) -> tuple[Image.Image, tuple[int, int, int, int]]:
    """The RGB thumbnail before encoding, and its crop box in displayed full-resolution pixels."""
    thumbnail, box, _ = _render(data, max_pixels=max_pixels, max_side=max_side, padding=padding)
    return thumbnail, box


def _render(
    data: bytes, *, max_pixels: int, max_side: int, padding: int
) -> tuple[Image.Image, tuple[int, int, int, int], ImageInfo]:
    """``_render_thumbnail`` and the image's description."""
    if max_side < 1 or padding < 0:
        raise ValueError("max_side must be positive and padding not negative.")
    with _decoding(max_pixels):
        opened = _open_checked(data, max_pixels)
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
    rows = max(1, _BAND_PIXELS // width) // factor_y * factor_y or factor_y
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
    rows = max(1, _BAND_PIXELS // width)
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
